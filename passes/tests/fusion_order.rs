//! Order independence of `fuse-mixed-reductions`: the kernels it chooses must not depend on the
//! order in which independent statements are written (issue 10: a column sum written before the
//! row sum of the same tensor found no fusion, while the other order fused).
//!
//! Every example in `examples/` and random `mtensor` programs (`morf_tensor::progen`) are
//! rewritten in several random topological orders of their statements. Each order is lowered
//! and fused; the fused kernels, summarized without names or order (each top-level kernel's
//! `morf.kernel` attribute and the multiset of the ops inside it), must be the same for every
//! order, and each order must still agree with the tensor interpreter (the differential check
//! of `fusion_differential.rs`).

use morf_ir::{print_op, verify, Context, OpId, PrintOptions};
use morf_tensor::progen::{generate, GenConfig, Rng};

mod common;
use common::{close, examples, has_nan, parse_program, progen_inputs, registry, run, Inputs};

/// The option sets: defaults, and fusion made attractive everywhere.
const OPTION_SETS: &[&str] = &["", "default-hint=4096 device=launch=1e-3"];

/// Random orders tried per program (besides the written one).
const ORDERS: u64 = 3;

/// `text` with the statements of its function body in a random topological order (a statement
/// after every statement defining a value it uses). Comment lines in the body are dropped.
fn permute(text: &str, seed: u64) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(first) = lines.iter().position(|l| l.starts_with("  %")) else { return text.to_string() };
    let ret = lines.iter().position(|l| l.trim_start().starts_with("return") || l.contains("func.return"));
    let ret = ret.expect("a return");
    let stmts: Vec<&str> = lines[first..ret].iter().copied().filter(|l| l.starts_with("  %")).collect();
    let names = |s: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = s;
        while let Some(i) = rest.find('%') {
            let tail = &rest[i + 1..];
            let end = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
            out.push(tail[..end].to_string());
            rest = &tail[end..];
        }
        out
    };
    let defs: Vec<Vec<String>> = stmts.iter().map(|s| names(s.split(" = ").next().unwrap_or(""))).collect();
    let uses: Vec<Vec<String>> =
        stmts.iter().map(|s| s.split_once(" = ").map(|(_, r)| names(r)).unwrap_or_default()).collect();
    let n = stmts.len();
    let preds: Vec<Vec<usize>> =
        (0..n).map(|b| (0..n).filter(|&a| a != b && uses[b].iter().any(|u| defs[a].contains(u))).collect()).collect();
    let mut rng = Rng::new(seed);
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let ready: Vec<usize> = (0..n).filter(|&s| !placed[s] && preds[s].iter().all(|&p| placed[p])).collect();
        let s = ready[rng.below(ready.len())];
        placed[s] = true;
        order.push(s);
    }
    let mut out: Vec<&str> = lines[..first].to_vec();
    out.extend(order.iter().map(|&s| stmts[s]));
    out.extend_from_slice(&lines[ret..]);
    out.join("\n") + "\n"
}

/// The fused kernels of printed loop IR, without names or order: per top-level kernel its
/// `morf.kernel` attribute and the sorted names of the non-constant ops inside it; sorted.
fn kernels(printed: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut ops: Option<Vec<String>> = None;
    for line in printed.lines() {
        let indent = line.len() - line.trim_start().len();
        if indent == 4 && line.trim_end().ends_with('{') && ops.is_none() {
            ops = Some(vec![]);
        }
        if let Some(v) = ops.as_mut() {
            if let Some(i) = line.find("mloop.") {
                let name: String =
                    line[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_').collect();
                if name != "mloop.constant" && name != "mloop.yield" {
                    v.push(name);
                }
            }
        }
        if indent == 4 && line.trim_start().starts_with('}') {
            if let Some(mut v) = ops.take() {
                v.sort();
                let attr = line.find("morf.kernel").map_or("", |i| &line[i..]);
                out.push(format!("{attr} {}", v.join(" ")));
            }
        }
    }
    out.sort();
    out
}

/// Lowers and fuses `text` with `options`; checks it against the tensor interpreter on
/// `inputs`; returns the fused kernels.
fn fuse(text: &str, inputs: &dyn Fn(&Context, OpId) -> Inputs, options: &str) -> Result<Vec<String>, String> {
    let (mut ctx, m, f) = parse_program(text)?;
    let ins = inputs(&ctx, f);
    let before = run(&ctx, f, &ins).ok().filter(|r| !has_nan(r));
    let reg = registry();
    let mut lower = reg.create("lower-tensor-to-loop", "")?;
    lower.run(&mut ctx, m).map_err(|d| format!("lowering failed: {}", ctx.render(&d)))?;
    let mut fuse = reg.create("fuse-mixed-reductions", options)?;
    fuse.run(&mut ctx, m).map_err(|d| format!("fusion failed: {}", ctx.render(&d)))?;
    let printed = print_op(&ctx, m, &PrintOptions::default());
    verify(&ctx, m).map_err(|d| format!("fused IR does not verify: {}\n{printed}", ctx.render(&d)))?;
    if let Some(before) = before {
        let after = run(&ctx, f, &ins).map_err(|e| format!("fused program fails: {e}\n{printed}"))?;
        close(&before, &after, Some("NaN after fusion")).map_err(|e| format!("{e}\nfused IR:\n{printed}"))?;
    }
    Ok(kernels(&printed))
}

/// Checks that every order of `text` fuses into the same kernels; returns whether the written
/// order was rewritten (a row kernel or a final).
fn same_for_every_order(
    what: &str,
    text: &str,
    inputs: &dyn Fn(&Context, OpId) -> Inputs,
    options: &str,
) -> Result<bool, String> {
    let want = fuse(text, inputs, options).map_err(|e| format!("{what}: {e}"))?;
    for seed in 0..ORDERS {
        let permuted = permute(text, seed);
        let got = fuse(&permuted, inputs, options).map_err(|e| format!("{what}, order {seed}: {e}\n{permuted}"))?;
        if got != want {
            return Err(format!(
                "{what}, options '{options}': order {seed} fuses differently\nwritten order:\n{}\n\npermuted:\n{permuted}\n{}",
                want.join("\n"),
                got.join("\n")
            ));
        }
    }
    Ok(want.iter().any(|k| k.contains("\"row-fused\"") || k.contains("\"final\"")))
}

#[test]
fn column_before_row_reduction_fuses() {
    let col_first = "func.func @f(%x: tensor<?x?xf32> {morf.dims = [\"M\", \"N\"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %r, %c : tensor<?xf32>, tensor<?xf32>
}
";
    let row_first = col_first.replace(
        "  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>",
        "  %r = mtensor.reduce sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %c = mtensor.reduce sum %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>",
    );
    let inputs = |ctx: &Context, f: OpId| common::signature_inputs(ctx, f, 1, &[40, 67], 0.5, &[]);
    let a = fuse(col_first, &inputs, "").unwrap();
    let b = fuse(&row_first, &inputs, "").unwrap();
    assert_eq!(a, b);
    assert!(a.iter().any(|k| k.contains("\"row-fused\"")), "{a:?}");
}

#[test]
fn examples_fuse_the_same_in_every_order() {
    let mut failures = Vec::new();
    let mut fused = 0;
    for (path, text) in examples() {
        let inputs = |ctx: &Context, f: OpId| common::signature_inputs(ctx, f, 0, &[3, 17, 40], 0.5, &[]);
        for options in OPTION_SETS.iter().chain(&["size-hints=M=576000,N=384"]) {
            match same_for_every_order(&path.display().to_string(), &text, &inputs, options) {
                Ok(f) => fused += f as usize,
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(fused >= 20, "only {fused} example runs were fused");
}

#[test]
fn random_programs_fuse_the_same_in_every_order() {
    let dense = GenConfig { max_rank: 2, max_ops: 20, ..GenConfig::default() };
    let mut failures = Vec::new();
    let mut fused = 0;
    for (cfg, options) in
        [(GenConfig::default(), OPTION_SETS[0]), (dense.clone(), OPTION_SETS[0]), (dense, OPTION_SETS[1])]
    {
        for seed in 0..300u64 {
            let p = generate(seed, &cfg);
            let inputs = |_: &Context, _: OpId| progen_inputs(&p, seed);
            match same_for_every_order(&format!("seed {seed} (max_ops {})", cfg.max_ops), &p.text, &inputs, options) {
                Ok(f) => fused += f as usize,
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!(
        "fuse-mixed-reductions: 900 random programs in {} orders each, {fused} with a row kernel or a final",
        ORDERS + 1
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
    assert!(fused >= 5, "only {fused} random programs were fused");
}
