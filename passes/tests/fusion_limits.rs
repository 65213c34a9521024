//! Search limits of `fuse-mixed-reductions` and the grouping of nests (issue 10, "search
//! fixes"), on generated programs of many RMSNorm-backward-like norms that share one weight:
//!
//! - a small shared read-only input (the weight `w[N]`, read by nests over `M x N`) does not
//!   merge the norms into one search group: each norm is searched alone and fully fused, with
//!   no limit hit and no warning, even with 130 norms;
//! - when a limit is hit (`max-nodes`, `max-iterations`, `time-limit-ms`), the pass warns,
//!   naming the limit, its value and the option, and still applies the best plan found so far;
//! - the interpreter agrees before and after fusion in both cases.

use morf_ir::{print_op, verify, Context, Diagnostic, PrintOptions, Severity};

mod common;
use common::{close, has_nan, parse_program, registry, run, signature_inputs};

/// `count` RMSNorm-backward-like norms (f32) that share the weight `%w[N]`; each returns its
/// `dx[M, N]` and `dw[N]`.
fn norms_sharing_a_weight(count: usize) -> String {
    const T: &str = "tensor<?x?xf32>";
    let mut args = vec!["%w: tensor<?xf32> {morf.dims = [\"N\"]}".to_string()];
    let mut body = format!(
        "  %m = mtensor.dim %x0, 0 : {T}\n  %n = mtensor.dim %x0, 1 : {T}\n  \
         %wb = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> {T}\n"
    );
    let mut rets = Vec::new();
    for k in 0..count {
        args.push(format!(
            "%x{k}: {T} {{morf.dims = [\"M\", \"N\"]}}, %dy{k}: {T} {{morf.dims = [\"M\", \"N\"]}}, \
             %rstd{k}: tensor<?xf32> {{morf.dims = [\"M\"], morf.random = \"positive\"}}"
        ));
        body.push_str(&format!(
            "  %rb{k} = mtensor.broadcast %rstd{k} dims [0] sizes(%m, %n) : tensor<?xf32> -> {T}
  %xhat{k} = mtensor.mul %x{k}, %rb{k} : {T}
  %dyw{k} = mtensor.mul %dy{k}, %wb : {T}
  %t{k} = mtensor.mul %dyw{k}, %xhat{k} : {T}
  %c{k} = mtensor.reduce mean %t{k} dims [1] : {T} -> tensor<?xf32>
  %cb{k} = mtensor.broadcast %c{k} dims [0] sizes(%m, %n) : tensor<?xf32> -> {T}
  %xc{k} = mtensor.mul %xhat{k}, %cb{k} : {T}
  %d{k} = mtensor.sub %dyw{k}, %xc{k} : {T}
  %dx{k} = mtensor.mul %rb{k}, %d{k} : {T}
  %g{k} = mtensor.mul %dy{k}, %xhat{k} : {T}
  %dw{k} = mtensor.reduce sum %g{k} dims [0] : {T} -> tensor<?xf32>
"
        ));
        rets.push((format!("%dx{k}, %dw{k}"), format!("{T}, tensor<?xf32>")));
    }
    let names: Vec<&str> = rets.iter().map(|r| r.0.as_str()).collect();
    let types: Vec<&str> = rets.iter().map(|r| r.1.as_str()).collect();
    format!(
        "func.func @norms({}) -> ({}) {{\n{body}  return {} : {}\n}}\n",
        args.join(", "),
        types.join(", "),
        names.join(", "),
        types.join(", ")
    )
}

/// What fusing a program did.
struct Fused {
    printed: String,
    warnings: Vec<Diagnostic>,
    rendered: Vec<String>,
}

impl Fused {
    fn count(&self, kind: &str) -> usize {
        self.printed.matches(&format!("kind = \"{kind}\"")).count()
    }
}

/// Parses `text`, runs it in the interpreter on small inputs, lowers and fuses it with
/// `options`, verifies, runs again and compares with the numerics contract.
fn fuse_and_compare(text: &str, options: &str) -> Fused {
    let (mut ctx, m, f) = parse_program(text).unwrap_or_else(|e| panic!("{e}"));
    let ins = signature_inputs(&ctx, f, 7, &[3, 5, 4], 0.5, &[("M", 6), ("N", 5)]);
    let before = run(&ctx, f, &ins).unwrap_or_else(|e| panic!("reference fails: {e}"));
    assert!(!has_nan(&before), "NaN in the reference");
    let reg = registry();
    let report = |ctx: &Context, d: &Diagnostic| ctx.render(d);
    reg.create("lower-tensor-to-loop", "")
        .unwrap()
        .run(&mut ctx, m)
        .unwrap_or_else(|d| panic!("lowering: {}", report(&ctx, &d)));
    ctx.take_emitted();
    reg.create("fuse-mixed-reductions", options)
        .unwrap()
        .run(&mut ctx, m)
        .unwrap_or_else(|d| panic!("fusion: {}", report(&ctx, &d)));
    let warnings: Vec<Diagnostic> =
        ctx.take_emitted().into_iter().filter(|d| d.severity == Severity::Warning).collect();
    let rendered = warnings.iter().map(|d| ctx.render(d)).collect();
    verify(&ctx, m).unwrap_or_else(|d| panic!("fused IR does not verify: {}", report(&ctx, &d)));
    let printed = print_op(&ctx, m, &PrintOptions::default());
    let after = run(&ctx, f, &ins).unwrap_or_else(|e| panic!("fused program fails: {e}"));
    close(&before, &after, Some("NaN after fusion")).unwrap_or_else(|e| panic!("{e}"));
    Fused { printed, warnings, rendered }
}

#[test]
fn shared_weight_does_not_merge_norms() {
    // 130 norms: more than the 128 at which, as one group, the node limit was hit.
    let fused = fuse_and_compare(&norms_sharing_a_weight(130), "size-hints=M=576000,N=384");
    assert!(fused.warnings.is_empty(), "unexpected warnings: {:?}", fused.rendered);
    assert_eq!(fused.count("row-fused"), 130, "every norm gets its row kernel");
    // Every norm gets partial column sums; their 130 independent finals over the same columns
    // are one launch.
    assert_eq!(fused.count("final"), 1, "the finals of the norms are merged into one launch");
    assert_eq!(fused.printed.matches("mloop.accumulate").count(), 130, "one partial per norm");
    assert_eq!(fused.count("reduction"), 0, "no reduction is left unfused");
}

#[test]
fn node_limit_warns_and_keeps_the_best_plan() {
    let fused = fuse_and_compare(&norms_sharing_a_weight(130), "size-hints=M=576000,N=384 max-nodes=60");
    assert_eq!(fused.warnings.len(), 1, "one warning per limit: {:?}", fused.rendered);
    let w = &fused.rendered[0];
    for part in [
        "warning: fuse-mixed-reductions: the search of 130 of the 130 nest groups of @norms",
        "the e-node limit (60 e-nodes)",
        "the best plan found so far is used (130 of 130 fused)",
        "the pass option 'max-nodes'",
    ] {
        assert!(w.contains(part), "'{part}' not in: {w}");
    }
    // The warning points at the first norm's row reduction (`%c0`, line 9 of the program).
    assert!(w.starts_with("gen.mlir:9:9: warning"), "not at the first nest: {w}");
    // The best plans found so far are applied: every norm still has its row kernel.
    assert_eq!(fused.count("row-fused"), 130);
}

#[test]
fn iteration_and_time_limits_warn() {
    let text = norms_sharing_a_weight(4);
    let fused = fuse_and_compare(&text, "size-hints=M=576000,N=384 max-iterations=1");
    assert_eq!(fused.warnings.len(), 1, "{:?}", fused.rendered);
    assert!(fused.rendered[0].contains("the iteration limit (1 iterations)"), "{}", fused.rendered[0]);
    assert!(fused.rendered[0].contains("'max-iterations'"), "{}", fused.rendered[0]);
    assert_eq!(fused.count("row-fused"), 4, "the best plans after one iteration are applied");

    let fused = fuse_and_compare(&text, "time-limit-ms=0");
    assert_eq!(fused.warnings.len(), 1, "{:?}", fused.rendered);
    assert!(fused.rendered[0].contains("the time limit (0 ms)"), "{}", fused.rendered[0]);
    assert!(fused.rendered[0].contains("'time-limit-ms'"), "{}", fused.rendered[0]);
}

#[test]
fn default_limits_are_not_hit_on_the_examples() {
    for (path, text) in common::examples() {
        let (mut ctx, m, _) = parse_program(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let reg = registry();
        reg.create("lower-tensor-to-loop", "").unwrap().run(&mut ctx, m).unwrap();
        ctx.take_emitted();
        reg.create("fuse-mixed-reductions", "size-hints=M=576000,N=384").unwrap().run(&mut ctx, m).unwrap();
        let warnings: Vec<String> = ctx.take_emitted().iter().map(|d| ctx.render(d)).collect();
        assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
    }
}
