//! The conversion framework on a toy dialect: full and partial conversion, dynamic
//! legality, patterns whose output is converted again, type-changing replacements and the
//! `failed to legalize` diagnostics.

use morf_ir::conversion::{
    apply_full_conversion, apply_partial_conversion, typed, ConversionPattern, ConversionRewriter, ConversionTarget,
    OpConversionPattern,
};
use morf_ir::opdef::{AnyType, Float};
use morf_ir::{define_op, parse_source, print_op, Context, Diagnostic, OpId, PrintOptions, Value};

define_op! {
    /// `toy.double %a`: 2a.
    pub struct DoubleOp("toy.double") {
        summary: "2a",
        operands: [input: Float],
        results: [output: AnyType],
    }
}
define_op! {
    /// `toy.quad %a`: 4a.
    pub struct QuadOp("toy.quad") {
        summary: "4a",
        operands: [input: Float],
        results: [output: AnyType],
    }
}
define_op! {
    /// `toy.add %a, %b`.
    pub struct AddOp("toy.add") {
        summary: "a + b",
        operands: [lhs: Float, rhs: Float],
        results: [output: AnyType],
    }
}
define_op! {
    /// `toy.widen %a`: the same value as f64.
    pub struct WidenOp("toy.widen") {
        summary: "a as f64",
        operands: [input: Float],
        results: [output: AnyType],
    }
}

struct DoubleToAdd;
impl OpConversionPattern for DoubleToAdd {
    type Op = DoubleOp;
    fn name(&self) -> &'static str {
        "DoubleToAdd"
    }
    fn match_and_rewrite(
        &self,
        op: DoubleOp,
        v: &[Value],
        rw: &mut ConversionRewriter<'_>,
    ) -> Result<bool, Diagnostic> {
        let ty = rw.ctx().value_type(v[0]);
        let add = rw.create_before(op.id(), AddOp::state(rw.loc(op.id()), v[0], v[0], ty));
        let r = rw.ctx().result(add, 0);
        rw.replace_op(op.id(), &[r]);
        Ok(true)
    }
}

/// quad(a) = double(double(a)): its output is illegal again and must be converted too.
struct QuadToDoubles;
impl OpConversionPattern for QuadToDoubles {
    type Op = QuadOp;
    fn name(&self) -> &'static str {
        "QuadToDoubles"
    }
    fn match_and_rewrite(&self, op: QuadOp, v: &[Value], rw: &mut ConversionRewriter<'_>) -> Result<bool, Diagnostic> {
        let ty = rw.ctx().value_type(v[0]);
        let loc = rw.loc(op.id());
        let d1 = rw.create_before(op.id(), DoubleOp::state(loc, v[0], ty));
        let r1 = rw.ctx().result(d1, 0);
        let d2 = rw.create_before(op.id(), DoubleOp::state(loc, r1, ty));
        let r2 = rw.ctx().result(d2, 0);
        rw.replace_op(op.id(), &[r2]);
        Ok(true)
    }
}

/// Replaces `toy.widen` by its f32 operand: a type-changing replacement.
struct DropWiden;
impl OpConversionPattern for DropWiden {
    type Op = WidenOp;
    fn name(&self) -> &'static str {
        "DropWiden"
    }
    fn match_and_rewrite(&self, op: WidenOp, v: &[Value], rw: &mut ConversionRewriter<'_>) -> Result<bool, Diagnostic> {
        rw.replace_op(op.id(), &[v[0]]);
        Ok(true)
    }
}

fn ctx() -> Context {
    let mut ctx = Context::new();
    for info in [DoubleOp::info(), QuadOp::info(), AddOp::info(), WidenOp::info()] {
        ctx.registry_mut().register_op(info);
    }
    ctx.registry_mut().allow_unregistered = true;
    ctx
}

fn parse(ctx: &mut Context, body: &str) -> OpId {
    let src = format!("func.func @f(%a: f32) -> f32 {{\n{body}\n}}");
    parse_source(ctx, "t.mlir", &src, 0).unwrap_or_else(|d| panic!("{}", ctx.render(&d)))
}

fn target() -> ConversionTarget {
    let mut t = ConversionTarget::new();
    t.add_legal_dialect("func").add_legal_dialect("builtin").add_legal_op::<AddOp>().add_illegal_op::<DoubleOp>();
    t
}

fn patterns() -> Vec<Box<dyn ConversionPattern>> {
    vec![typed(DoubleToAdd), typed(QuadToDoubles), typed(DropWiden)]
}

#[test]
fn full_conversion_converts_the_output_of_patterns_again() {
    let mut ctx = ctx();
    let m = parse(&mut ctx, "  %q = \"toy.quad\"(%a) : (f32) -> f32\n  return %q : f32");
    let mut t = target();
    t.add_illegal_op::<QuadOp>();
    let stats = apply_full_conversion(&mut ctx, m, &t, &patterns()).unwrap();
    assert_eq!(stats.rewrites, 3);
    let text = print_op(&ctx, m, &PrintOptions::default());
    assert_eq!(text.matches("toy.add").count(), 2, "{text}");
    assert!(!text.contains("toy.quad") && !text.contains("toy.double"), "{text}");
    morf_ir::verify(&ctx, m).unwrap();
}

#[test]
fn full_conversion_fails_at_an_unknown_op_with_its_location() {
    let mut ctx = ctx();
    let m = parse(&mut ctx, "  %x = \"other.op\"(%a) : (f32) -> f32\n  return %x : f32");
    let d = apply_full_conversion(&mut ctx, m, &target(), &patterns()).unwrap_err();
    let text = ctx.render(&d);
    assert!(text.contains("t.mlir:2:8"), "{text}");
    assert!(text.contains("failed to legalize operation 'other.op'"), "{text}");
}

#[test]
fn partial_conversion_leaves_unknown_ops_and_fails_on_illegal_ones() {
    let mut ctx = ctx();
    let m = parse(
        &mut ctx,
        "  %x = \"other.op\"(%a) : (f32) -> f32\n  %d = \"toy.double\"(%x) : (f32) -> f32\n  return %d : f32",
    );
    apply_partial_conversion(&mut ctx, m, &target(), &patterns()).unwrap();
    let text = print_op(&ctx, m, &PrintOptions::default());
    assert!(text.contains("other.op") && text.contains("toy.add"), "{text}");

    // toy.quad is illegal and has no pattern here.
    let mut ctx = self::ctx();
    let m = parse(&mut ctx, "  %q = \"toy.quad\"(%a) : (f32) -> f32\n  return %q : f32");
    let mut t = target();
    t.add_illegal_op::<QuadOp>();
    let d = apply_partial_conversion(&mut ctx, m, &t, &[typed(DoubleToAdd)]).unwrap_err();
    assert!(ctx.render(&d).contains("failed to legalize operation 'toy.quad': no conversion pattern applies"));
}

#[test]
fn dynamic_legality_decides_per_op() {
    let mut ctx = ctx();
    let m = parse(
        &mut ctx,
        "  %d = \"toy.double\"(%a) {keep} : (f32) -> f32\n  %e = \"toy.double\"(%d) : (f32) -> f32\n  return %e : f32",
    );
    let mut t = target();
    t.add_dynamically_legal_op::<DoubleOp>(|ctx, op| ctx.attr(op, "keep").is_some());
    apply_full_conversion(&mut ctx, m, &t, &patterns()).unwrap();
    let text = print_op(&ctx, m, &PrintOptions::default());
    assert_eq!(text.matches("toy.double").count(), 1, "{text}");
    assert_eq!(text.matches("toy.add").count(), 1, "{text}");
}

#[test]
fn a_type_changing_replacement_with_an_unconverted_user_is_an_error() {
    let mut ctx = ctx();
    let src = "func.func @f(%a: f32) -> f64 {\n  %w = \"toy.widen\"(%a) : (f32) -> f64\n  return %w : f64\n}";
    let m = parse_source(&mut ctx, "t.mlir", src, 0).unwrap();
    let mut t = target();
    t.add_illegal_op::<WidenOp>();
    let d = apply_full_conversion(&mut ctx, m, &t, &patterns()).unwrap_err();
    let text = ctx.render(&d);
    assert!(text.contains("t.mlir:2:8"), "{text}");
    assert!(text.contains("still used by 'func.return', which was not converted"), "{text}");
}

#[test]
fn check_legal_reports_the_first_illegal_op() {
    let mut ctx = ctx();
    let m = parse(&mut ctx, "  %d = \"toy.double\"(%a) : (f32) -> f32\n  return %d : f32");
    let d = target().check_legal(&ctx, m).unwrap_err();
    assert!(ctx.render(&d).contains("t.mlir:2:8: error: failed to legalize operation 'toy.double'"));
    assert!(ctx.isa::<DoubleOp>(ctx.walk_collect(m)[2]));
}
