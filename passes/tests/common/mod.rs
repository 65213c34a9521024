//! Shared parts of the differential tests (`mod common;` in each test file): a context with
//! every dialect registered, parsing and verifying a program, inputs (from a signature or
//! from `morf_tensor::progen::random_inputs`), running a function in the interpreter, the
//! numerics-contract comparison, and shrinking a failing program for the report.
//!
//! Each test keeps its own policy (which passes, exact or within tolerance, counts).

// Each test binary uses only some of these helpers.
#![allow(dead_code)]

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

use morf_ir::interp::{run_function, Array, RtValue};
use morf_ir::numerics::{relative_error, tolerance};
use morf_ir::pass::PassRegistry;
use morf_ir::{builtin::func_type, parse_source, verify, AttrData, Context, FloatKind, OpId};
use morf_tensor::progen::{random_inputs, shrink, Program, Rng};

/// Results: (shape, values, float kind of the element type) per output.
pub type Results = Vec<(Vec<usize>, Vec<f64>, Option<FloatKind>)>;
/// Inputs: (shape, values) per argument.
pub type Inputs = Vec<(Vec<usize>, Vec<f64>)>;

/// A context with the tensor, loop and gpu dialects registered.
pub fn context() -> Context {
    let mut ctx = Context::new();
    morf_tensor::register(&mut ctx);
    morf_loop::register(&mut ctx);
    morf_gpu::register(&mut ctx);
    ctx
}

/// A registry with every pass.
pub fn registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// The first `func.func` of `module`.
pub fn first_function(ctx: &Context, module: OpId) -> Option<OpId> {
    let r = *ctx.regions(module).first()?;
    let b = ctx.entry_block(r)?;
    ctx.block_ops(b).find(|o| ctx.op_name(*o) == "func.func")
}

/// Parses and verifies `text` in a fresh [`context`]; returns it, the module and its first
/// function. Errors about the program itself start with `invalid:` (the shrinker skips those).
pub fn parse_program(text: &str) -> Result<(Context, OpId, OpId), String> {
    let mut ctx = context();
    let m = parse_source(&mut ctx, "gen.mlir", text, 0)
        .map_err(|d| format!("invalid: does not parse: {}", ctx.render(&d)))?;
    verify(&ctx, m).map_err(|d| format!("invalid: does not verify: {}", ctx.render(&d)))?;
    let f = first_function(&ctx, m).ok_or("no function")?;
    Ok((ctx, m, f))
}

/// The inputs `morf_tensor::progen::random_inputs` makes for `p` with `seed`.
pub fn progen_inputs(p: &Program, seed: u64) -> Inputs {
    random_inputs(p, seed).into_iter().map(|(s, d, _)| (s, d)).collect()
}

/// Runs `f` on `inputs`, as tensors or as buffers (per its signature).
pub fn run(ctx: &Context, f: OpId, inputs: &Inputs) -> Result<Results, String> {
    let fty = func_type(ctx, f).ok_or("no function type")?;
    let ins = ctx.function_parts(fty).ok_or("bad function type")?.0.to_vec();
    let mut args = Vec::new();
    for (t, (shape, data)) in ins.iter().zip(inputs) {
        let elem = ctx.element_type(*t);
        let array = Array::new(shape.clone(), data.clone());
        args.push(if ctx.is_tensor(*t) {
            RtValue::Tensor { elem, array: Rc::new(array) }
        } else {
            RtValue::Buffer { elem, data: Rc::new(RefCell::new(array)) }
        });
    }
    let outs = run_function(ctx, f, args).map_err(|d| ctx.render(&d))?;
    Ok(outs
        .into_iter()
        .map(|o| match o {
            RtValue::Tensor { elem, array } => (array.shape.clone(), array.data.clone(), ctx.float_kind(elem)),
            RtValue::Buffer { elem, data } => {
                let a = data.borrow();
                (a.shape.clone(), a.data.clone(), ctx.float_kind(elem))
            }
            other => (vec![], vec![other.as_float().or(other.as_int().map(|i| i as f64)).unwrap_or(f64::NAN)], None),
        })
        .collect())
}

/// Whether any result has a NaN.
pub fn has_nan(r: &Results) -> bool {
    r.iter().any(|x| x.1.iter().any(|v| v.is_nan()))
}

/// Results within the numerics contract: equal shapes, infinities equal, relative L2 error
/// of the rest at most the tolerance of the reference's dtype. With `nan_in_out` set, a NaN
/// in `out` fails with that message (`result {i}: {nan_in_out}`).
pub fn close(reference: &Results, out: &Results, nan_in_out: Option<&str>) -> Result<(), String> {
    if reference.len() != out.len() {
        return Err(format!("{} results vs {}", reference.len(), out.len()));
    }
    for (i, (r, o)) in reference.iter().zip(out).enumerate() {
        if r.0 != o.0 || r.1.len() != o.1.len() {
            return Err(format!("result {i}: shape {:?} vs {:?}", r.0, o.0));
        }
        let (mut rf, mut of) = (Vec::new(), Vec::new());
        for (p, q) in r.1.iter().zip(&o.1) {
            if let Some(msg) = nan_in_out {
                if q.is_nan() {
                    return Err(format!("result {i}: {msg}"));
                }
            }
            if p.is_infinite() || q.is_infinite() {
                if p != q {
                    return Err(format!("result {i}: {p} vs {q}"));
                }
            } else {
                rf.push(*p);
                of.push(*q);
            }
        }
        let tol = r.2.map(tolerance).unwrap_or(0.0);
        let err = relative_error(&of, &rf);
        if err.is_nan() || err > tol {
            return Err(format!("result {i}: relative error {err:e} exceeds {tol:e}"));
        }
    }
    Ok(())
}

/// Inputs from a signature: `morf.dims` names sized from `rng` (`sizes`), except the names
/// in `fixed` (given their sizes); normal values (`positive_offset + |x|` for
/// `morf.random = "positive"`), rounded to each dtype.
pub fn signature_inputs(
    ctx: &Context,
    f: OpId,
    seed: u64,
    sizes: &[usize],
    positive_offset: f64,
    fixed: &[(&str, usize)],
) -> Inputs {
    let mut rng = Rng::new(seed);
    let mut named: Vec<(String, usize)> = Vec::new();
    let fty = func_type(ctx, f).expect("function type");
    let ins = ctx.function_parts(fty).expect("function").0.to_vec();
    let arg_attrs: Vec<Option<morf_ir::Attr>> = match ctx.attr(f, "arg_attrs").and_then(|a| ctx.attr_array(a)) {
        Some(v) => v.iter().map(|a| Some(*a)).collect(),
        None => vec![None; ins.len()],
    };
    let lookup = |d: Option<morf_ir::Attr>, key: &str| -> Option<morf_ir::Attr> {
        match ctx.attr_data(d?) {
            AttrData::Dict(es) => es.iter().find(|(k, _)| ctx.str(*k) == key).map(|(_, v)| *v),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for (i, t) in ins.iter().enumerate() {
        let shape = ctx.shape_of(*t).unwrap_or(&[]).to_vec();
        let names: Vec<String> = lookup(arg_attrs[i], "morf.dims")
            .and_then(|a| {
                ctx.attr_array(a).map(|v| v.iter().map(|x| ctx.attr_str(*x).unwrap_or("").to_string()).collect())
            })
            .unwrap_or_default();
        let positive = lookup(arg_attrs[i], "morf.random").and_then(|a| ctx.attr_str(a)) == Some("positive");
        let mut dims = Vec::new();
        for (k, d) in shape.iter().enumerate() {
            dims.push(match d {
                morf_ir::Dim::Static(n) => *n as usize,
                morf_ir::Dim::Dynamic => {
                    let name = names.get(k).cloned().unwrap_or_else(|| format!("arg{i}.{k}"));
                    match named.iter().find(|(n, _)| *n == name) {
                        Some((_, s)) => *s,
                        None => {
                            let s = match fixed.iter().find(|(n, _)| *n == name) {
                                Some((_, s)) => *s,
                                None => *rng.pick(sizes),
                            };
                            named.push((name, s));
                            s
                        }
                    }
                }
            });
        }
        let kind = ctx.float_kind(ctx.element_type(*t)).unwrap_or(FloatKind::F64);
        let n: usize = dims.iter().product();
        let data = (0..n)
            .map(|_| {
                let x = rng.normal();
                kind.round(if positive { positive_offset + x.abs() } else { x })
            })
            .collect();
        out.push((dims, data));
    }
    out
}

/// The `.mlir` files of `examples/`, sorted by path, with their text.
pub fn examples() -> Vec<(PathBuf, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples");
    let mut names: Vec<_> = std::fs::read_dir(dir).expect("examples dir").flatten().map(|e| e.path()).collect();
    names.sort();
    names
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("read example");
            (p, text)
        })
        .collect()
}

/// The report of a failing program: `{what}: {error}`, the program, and the program shrunk
/// while `check` keeps failing for a reason other than the program being invalid.
pub fn failure_report<T>(what: &str, error: &str, text: &str, check: &dyn Fn(&str) -> Result<T, String>) -> String {
    let small = shrink(text, &|t| check(t).is_err_and(|e| !e.starts_with("invalid:")));
    format!("{what}: {error}\nprogram:\n{text}\nshrunk:\n{small}")
}
