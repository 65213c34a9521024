//! Every lit input of the repository (`test/**/*.mlir` and `examples/*.mlir`, each
//! `// -----` split) through the `gpu` and `gpu-unfused` pipelines. The contract of
//! `lower-loop-to-gpu` on valid input: it either compiles, and the compiled host function
//! (every `mgpu.launch` on the CPU simulator) gives the interpreter's results, or it fails
//! with a located diagnostic. Never an internal compiler error (a panic), never a silently
//! wrong kernel.
//!
//! Functions whose arguments are all tensors or buffers are run on random inputs (dims of
//! `morf.dims` names sized 1, 7, 33 or 40), before and after, and every result and every
//! argument buffer (which a loop-level function may write) is compared within the numerics
//! contract. Other functions (index arguments) are only compiled.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::pass::{parse_pipeline, Instrumentation, PassManager};
use morf_ir::{builtin::func_type, parse_source, verify, Context, OpId};

mod common;
use common::{close, context, has_nan, registry, signature_inputs, Inputs, Results};

/// The `.mlir` files under `dir`, recursively, sorted.
fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).expect("read dir").flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// The splits of a file, as `--split-input-file` makes them.
fn splits(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in text.lines() {
        if line.trim_start().starts_with("// -----") {
            out.push(String::new());
        } else {
            let cur = out.last_mut().expect("one split");
            cur.push_str(line);
            cur.push('\n');
        }
    }
    out
}

/// The `func.func`s of a module, by name.
fn functions(ctx: &Context, m: OpId) -> Vec<(String, OpId)> {
    let Some(b) = ctx.regions(m).first().and_then(|r| ctx.entry_block(*r)) else { return vec![] };
    ctx.block_ops(b)
        .filter(|&o| ctx.op_name(o) == "func.func")
        .map(|o| (morf_ir::builtin::symbol_name(ctx, o).unwrap_or("").to_string(), o))
        .collect()
}

/// Runs `f` on `inputs`; returns its results followed by the final contents of its buffer
/// arguments (a loop-level function returns some of its outputs by writing its arguments).
fn run_all(ctx: &Context, f: OpId, inputs: &Inputs) -> Result<Results, String> {
    let fty = func_type(ctx, f).ok_or("no function type")?;
    let ins = ctx.function_parts(fty).ok_or("bad function type")?.0.to_vec();
    let mut args = Vec::new();
    let mut buffers = Vec::new();
    for (t, (shape, data)) in ins.iter().zip(inputs) {
        let elem = ctx.element_type(*t);
        let array = Array::new(shape.clone(), data.clone());
        if ctx.is_tensor(*t) {
            args.push(RtValue::Tensor { elem, array: Rc::new(array) });
        } else {
            let data = Rc::new(RefCell::new(array));
            buffers.push((elem, data.clone()));
            args.push(RtValue::Buffer { elem, data });
        }
    }
    let outs = run_function(ctx, f, args).map_err(|d| ctx.render(&d))?;
    let mut res = Results::new();
    for o in outs {
        res.push(match o {
            RtValue::Tensor { elem, array } => (array.shape.clone(), array.data.clone(), ctx.float_kind(elem)),
            RtValue::Buffer { elem, data } => {
                let a = data.borrow();
                (a.shape.clone(), a.data.clone(), ctx.float_kind(elem))
            }
            _ => return Err("a scalar result".into()),
        });
    }
    for (elem, data) in buffers {
        let a = data.borrow();
        res.push((a.shape.clone(), a.data.clone(), ctx.float_kind(elem)));
    }
    Ok(res)
}

/// Whether every argument of `f` is a tensor or a buffer (so random inputs fit it).
fn runnable(ctx: &Context, f: OpId) -> bool {
    let Some(fty) = func_type(ctx, f) else { return false };
    let Some((ins, _)) = ctx.function_parts(fty) else { return false };
    ins.iter().all(|t| ctx.shape_of(*t).is_some())
}

/// What happened to one split through one pipeline.
#[derive(Default)]
struct Tally {
    compiled: usize,
    rejected: usize,
    compared: usize,
}

/// Compiles one split with `pipeline` and checks the contract; `Err` describes a violation.
fn check_split(text: &str, pipeline: &str, tally: &mut Tally) -> Result<(), String> {
    let mut ctx = context();
    let Ok(m) = parse_source(&mut ctx, "split.mlir", text, 0) else { return Ok(()) };
    if verify(&ctx, m).is_err() {
        return Ok(());
    }
    // The reference results of every runnable function, before any pass.
    let mut refs = Vec::new();
    for (name, f) in functions(&ctx, m) {
        if !runnable(&ctx, f) {
            continue;
        }
        for (seed, sizes) in [(0u64, &[1usize, 7][..]), (1, &[33, 40])] {
            let ins = signature_inputs(&ctx, f, seed, sizes, 0.5, &[]);
            if let Ok(r) = run_all(&ctx, f, &ins) {
                if !has_nan(&r) {
                    refs.push((name.clone(), ins, r));
                }
            }
        }
    }
    let reg = registry();
    let text_of = reg.pipeline(pipeline).expect("named pipeline").text;
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    pm.add_pipeline(&reg, &parse_pipeline(text_of).expect("pipeline text")).expect("pipeline");
    if let Err(d) = pm.run(&mut ctx, m) {
        let msg = ctx.render(&d);
        if msg.contains("internal compiler error") || !msg.contains("split.mlir:") {
            return Err(format!("not a located diagnostic: {msg}"));
        }
        tally.rejected += 1;
        eprintln!("rejected ({pipeline}): {msg}");
        return Ok(());
    }
    tally.compiled += 1;
    let funcs = functions(&ctx, m);
    for (name, ins, before) in refs {
        let f = funcs.iter().find(|(n, _)| *n == name).ok_or("function lost")?.1;
        let mut after = run_all(&ctx, f, &ins).map_err(|e| format!("@{name}: the compiled program fails: {e}"))?;
        // Tensor arguments became buffers: inputs, not compared.
        after.truncate(before.len());
        close(&before, &after, Some("NaN after lowering")).map_err(|e| format!("@{name}: {e}"))?;
        tally.compared += 1;
    }
    Ok(())
}

#[test]
fn every_lit_input_compiles_correctly_or_is_rejected_with_a_location() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = Vec::new();
    mlir_files(&root.join("test"), &mut files);
    mlir_files(&root.join("examples"), &mut files);
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for path in &files {
        // The parser's corpus holds files that are not UTF-8 on purpose.
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        for (k, split) in splits(&text).iter().enumerate() {
            for pipeline in ["gpu", "gpu-unfused"] {
                if let Err(e) = check_split(split, pipeline, &mut tally) {
                    failures.push(format!("{} split {k} --pipeline={pipeline}: {e}", path.display()));
                }
            }
        }
    }
    eprintln!(
        "{} files: {} compiled, {} rejected with a diagnostic, {} function runs compared",
        files.len(),
        tally.compiled,
        tally.rejected,
        tally.compared
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(tally.compared >= 50, "only {} function runs were compared", tally.compared);
}
