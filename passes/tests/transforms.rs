//! Unit tests of cse, dce and canonicalize on a small test dialect registered in-process.

use morf_ir::pass::Pass;
use morf_ir::rewrite::{RewritePattern, Rewriter};
use morf_ir::{parse_source, print_op, verify, Context, FoldResult, OpId, OpInfo, PrintOptions, Traits};
use morf_passes::transforms::canonicalize::{Canonicalize, CanonicalizeOptions};
use morf_passes::transforms::cse::eliminate_common_subexpressions;
use morf_passes::transforms::dce::eliminate_dead_code;

/// Flips attribute `a` between 0 and 1 forever: a pattern set that never converges.
struct Flip;
impl RewritePattern for Flip {
    fn name(&self) -> &'static str {
        "Flip"
    }
    fn root(&self) -> Option<&'static str> {
        Some("test.flip")
    }
    fn match_and_rewrite(&self, op: OpId, rw: &mut Rewriter<'_>) -> bool {
        let v = rw.ctx().attr(op, "a").and_then(|a| rw.ctx().attr_int(a)).unwrap_or(0);
        let a = rw.uniquer().i64_attr(1 - v);
        rw.set_attr(op, "a", a);
        true
    }
}

/// A one-off op kind for these tests, made `'static` as the registry requires.
fn leak(info: OpInfo) -> &'static OpInfo {
    Box::leak(Box::new(info))
}

fn test_ctx() -> Context {
    let mut ctx = Context::new();
    let r = ctx.registry_mut();
    r.register_op(leak(OpInfo::new("test.pure", "pure").traits(Traits::PURE)));
    r.register_op(leak(OpInfo::new("test.commut", "commutative").traits(Traits::PURE | Traits::COMMUTATIVE)));
    r.register_op(leak(OpInfo::new("test.effect", "side effects")));
    r.register_op(leak(OpInfo::new("test.scope", "a non-isolated region").traits(Traits::NO_TERMINATOR)));
    r.register_op(leak(
        OpInfo::new("test.isolated", "an isolated region").traits(Traits::NO_TERMINATOR | Traits::ISOLATED_FROM_ABOVE),
    ));
    r.register_op(leak(
        OpInfo::new("test.id", "folds to its operand")
            .traits(Traits::PURE)
            .fold(|ctx, op, _| Some(vec![FoldResult::Value(ctx.operand(op, 0))])),
    ));
    r.register_op(leak(OpInfo::new("test.flip", "cycles").traits(Traits::PURE).patterns(|| vec![Box::new(Flip)])));
    ctx
}

fn parse(ctx: &mut Context, text: &str) -> OpId {
    let m = parse_source(ctx, "t.mlir", text, 0).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    verify(ctx, m).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    m
}

fn count(ctx: &Context, root: OpId, name: &str) -> usize {
    ctx.walk_collect(root).into_iter().filter(|o| ctx.op_name(*o) == name).count()
}

const CSE_INPUT: &str = r#"
func.func @f(%x: i32, %y: i32) -> (i32, i32, i32, i32) {
  %a = "test.pure"(%x) : (i32) -> i32
  %b = "test.pure"(%x) : (i32) -> i32
  %c = "test.pure"(%x) {k = 1} : (i32) -> i32
  %d = "test.commut"(%x, %y) : (i32, i32) -> i32
  %e = "test.commut"(%y, %x) : (i32, i32) -> i32
  %s1 = "test.effect"(%x) : (i32) -> i32
  %s2 = "test.effect"(%x) : (i32) -> i32
  "test.scope"() ({
    %n = "test.pure"(%x) : (i32) -> i32
    %m = "test.pure"(%y) : (i32) -> i32
    "test.effect"(%n, %m) : (i32, i32) -> ()
  }) : () -> ()
  "test.isolated"() ({
    %z = "test.effect"() : () -> i32
    %i1 = "test.pure"(%z) : (i32) -> i32
    %i2 = "test.pure"(%z) : (i32) -> i32
    "test.effect"(%i1, %i2) : (i32, i32) -> ()
  }) : () -> ()
  %late = "test.pure"(%y) : (i32) -> i32
  "test.effect"(%a, %b, %c, %d, %e, %s1, %s2, %late) : (i32, i32, i32, i32, i32, i32, i32, i32) -> ()
  return %a, %b, %d, %e : i32, i32, i32, i32
}
"#;

#[test]
fn cse_merges_equivalent_pure_ops_by_dominance() {
    let mut ctx = test_ctx();
    let m = parse(&mut ctx, CSE_INPUT);
    let erased = eliminate_common_subexpressions(&mut ctx, m);
    verify(&ctx, m).unwrap();
    // %b (same as %a), %e (commuted %d), %n (same as %a, nested), %i2 (same as %i1).
    assert_eq!(erased, 4, "{}", print_op(&ctx, m, &PrintOptions::default()));
    assert_eq!(count(&ctx, m, "test.effect"), 6, "ops with side effects stay");
    // %m is nested in a region and does not dominate %late: both stay.
    assert_eq!(count(&ctx, m, "test.pure"), 5);
    assert_eq!(count(&ctx, m, "test.commut"), 1);
    // A second run finds nothing.
    assert_eq!(eliminate_common_subexpressions(&mut ctx, m), 0);
}

#[test]
fn cse_does_not_cross_isolated_ops() {
    let mut ctx = test_ctx();
    let text = r#"
func.func @f(%x: i32) -> i32 {
  %a = "test.pure"(%x) : (i32) -> i32
  return %a : i32
}
func.func @g(%x: i32) -> i32 {
  %a = "test.pure"(%x) : (i32) -> i32
  return %a : i32
}
"#;
    let m = parse(&mut ctx, text);
    assert_eq!(eliminate_common_subexpressions(&mut ctx, m), 0);
}

#[test]
fn dce_erases_dead_chains_to_a_fixpoint() {
    let mut ctx = test_ctx();
    let text = r#"
func.func @f(%x: i32) -> i32 {
  %a = "test.pure"(%x) : (i32) -> i32
  %b = "test.pure"(%a) : (i32) -> i32
  %c = "test.pure"(%b) : (i32) -> i32
  %s = "test.effect"(%x) : (i32) -> i32
  %keep = "test.pure"(%x) {k = 2} : (i32) -> i32
  "test.scope"() ({
    %dead = "test.pure"(%keep) : (i32) -> i32
  }) : () -> ()
  return %keep : i32
}
"#;
    let m = parse(&mut ctx, text);
    assert_eq!(eliminate_dead_code(&mut ctx, m), 4);
    verify(&ctx, m).unwrap();
    assert_eq!(count(&ctx, m, "test.pure"), 1);
    assert_eq!(count(&ctx, m, "test.effect"), 1);
    assert_eq!(count(&ctx, m, "test.scope"), 1, "ops with regions stay");
    assert_eq!(eliminate_dead_code(&mut ctx, m), 0);
}

#[test]
fn canonicalize_folds_and_converges() {
    let mut ctx = test_ctx();
    let text = r#"
func.func @f(%x: i32) -> i32 {
  %a = "test.id"(%x) : (i32) -> i32
  %b = "test.id"(%a) : (i32) -> i32
  %dead = "test.pure"(%b) : (i32) -> i32
  return %b : i32
}
"#;
    let m = parse(&mut ctx, text);
    let mut p = Canonicalize::new(CanonicalizeOptions { test_convergence: true, ..CanonicalizeOptions::default() });
    p.run(&mut ctx, m).unwrap_or_else(|d| panic!("{}", ctx.render(&d)));
    let out = print_op(&ctx, m, &PrintOptions::default());
    assert!(!out.contains("test."), "{out}");
    assert!(out.contains("return %x"), "{out}");
}

#[test]
fn canonicalize_without_fold_keeps_foldable_ops() {
    let mut ctx = test_ctx();
    let text = "func.func @f(%x: i32) -> i32 {\n  %a = \"test.id\"(%x) : (i32) -> i32\n  return %a : i32\n}\n";
    let m = parse(&mut ctx, text);
    let mut p = Canonicalize::new(CanonicalizeOptions { fold: false, ..CanonicalizeOptions::default() });
    p.run(&mut ctx, m).unwrap();
    assert_eq!(count(&ctx, m, "test.id"), 1);
}

#[test]
fn canonicalize_reports_non_convergence() {
    let mut ctx = test_ctx();
    let text =
        "func.func @f(%x: i32) -> i32 {\n  %a = \"test.flip\"(%x) {a = 0} : (i32) -> i32\n  return %a : i32\n}\n";
    let m = parse(&mut ctx, text);
    // Without test-convergence it stops quietly after max-iterations.
    let mut quiet = Canonicalize::new(CanonicalizeOptions { max_iterations: 3, ..CanonicalizeOptions::default() });
    quiet.run(&mut ctx, m).unwrap();
    let mut strict = Canonicalize::new(CanonicalizeOptions {
        max_iterations: 3,
        test_convergence: true,
        ..CanonicalizeOptions::default()
    });
    let err = strict.run(&mut ctx, m).unwrap_err();
    assert_eq!(err.message, "'builtin.module' op canonicalization did not converge within 3 iterations");
}

#[test]
fn options_parse_from_text() {
    let reg = {
        let mut r = morf_ir::pass::PassRegistry::default();
        morf_passes::register_all(&mut r);
        r
    };
    let p = reg.create("canonicalize", "max-iterations=4 test-convergence fold=false").unwrap();
    assert_eq!(p.options_text(), "fold=false max-iterations=4 test-convergence=true");
    assert!(reg.create("canonicalize", "max-iterations=x").is_err());
    assert!(reg.create("canonicalize", "max-iterations=0").is_err());
    assert!(reg.create("cse", "bogus=1").is_err());
}

struct Panicker;
impl Pass for Panicker {
    fn name(&self) -> &'static str {
        "panicker"
    }
    fn run(&mut self, _: &mut Context, _: OpId) -> morf_ir::pass::PassResult {
        panic!("boom")
    }
}

#[test]
fn a_panicking_pass_is_an_internal_error_not_a_crash() {
    use morf_ir::pass::{Instrumentation, PassManager, PmNode};
    let mut ctx = test_ctx();
    let m = parse(&mut ctx, "func.func @f() {\n  return\n}\n");
    let mut pm = PassManager::new(Instrumentation { verify_each: true, ..Default::default() });
    pm.nodes.push(PmNode::Pass(Box::new(Panicker)));
    let err = pm.run(&mut ctx, m).unwrap_err();
    assert_eq!(err.message, "internal compiler error in pass 'panicker': boom");
}
