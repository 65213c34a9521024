//! `morf-standalone`: an out-of-tree dialect and pass on top of morf's embedding API (the
//! `morf` crate), in the spirit of MLIR's standalone dialect example.
//!
//! - The `standalone` dialect ([`register`]) has one op, [`SquareOp`]:
//!   `%y = standalone.square %x : tensor<?x8xf32>`, the elementwise square of an f32
//!   tensor, with a verifier (f32 only) and reference semantics for the interpreter.
//! - The pass `standalone-expand-square` ([`expand_square_info`], [`ExpandSquare`]) rewrites
//!   every `standalone.square %x` into `mtensor.mul %x, %x`, after which morf's own
//!   pipelines (`gpu`) lower the module to kernels.
//!
//! ```
//! let mut session = morf::Session::new();
//! morf_standalone::register(session.context_mut());
//! session.register_pass(morf_standalone::expand_square_info());
//! let module = session.parse("sq.mlir", morf_standalone::EXAMPLE)?;
//! session.run_pipeline(module, "builtin.module(standalone-expand-square)")?;
//! assert!(session.print(module).contains("mtensor.mul"));
//! # Ok::<(), morf::Error>(())
//! ```
#![warn(missing_docs)]

use std::rc::Rc;

use morf::ir::asm::formats::{parse_operands_colon_type, print_operands_colon_type};
use morf::ir::builtin::op_error;
use morf::ir::interp::{InterpResult, Machine, RtValue};
use morf::ir::opdef::FloatTensor;
use morf::ir::pass::{Pass, PassInfo, PassResult};
use morf::ir::{define_op, Context, Diagnostic, DialectInfo, FloatKind, OpId};
use morf::tensor::ops::MulOp;

/// A small program using the op: `square(x) + y` on `M x 8` f32 tensors.
pub const EXAMPLE: &str = r#"func.func @square_add(%x: tensor<?x8xf32> {morf.dims = ["M", "N"]}, %y: tensor<?x8xf32> {morf.dims = ["M", "N"]}) -> tensor<?x8xf32> {
  %s = standalone.square %x : tensor<?x8xf32>
  %z = mtensor.add %s, %y : tensor<?x8xf32>
  func.return %z : tensor<?x8xf32>
}
"#;

define_op! {
    /// `%y = standalone.square %x : tensor<?x8xf32>`: `x * x`, elementwise, on an f32 tensor.
    pub struct SquareOp("standalone.square") {
        summary: "the elementwise square of an f32 tensor",
        traits: [PURE, SAME_OPERANDS_AND_RESULT_TYPE],
        operands: [input: FloatTensor],
        results: [result: FloatTensor],
        verify: verify_square,
        format: (parse_operands_colon_type, print_operands_colon_type),
        interpret: interpret_square,
    }
}

/// What the declaration cannot say: the element type is f32.
fn verify_square(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let elem = ctx.element_type(ctx.value_type(ctx.operand(op, 0)));
    if ctx.float_kind(elem) != Some(FloatKind::F32) {
        return Err(op_error(ctx, op, "operand must be a tensor of f32"));
    }
    Ok(())
}

/// The reference semantics: `x * x` in f64, rounded to the result's element type.
fn interpret_square(m: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let x = m.tensor(ctx, op, ctx.operand(op, 0))?;
    let mut y = x.map(|v| v * v);
    let r = ctx.result(op, 0);
    let elem = ctx.element_type(ctx.value_type(r));
    if let Some(k) = ctx.float_kind(elem) {
        y.round_to(k);
    }
    m.set(r, RtValue::Tensor { elem, array: Rc::new(y) });
    Ok(())
}

/// Registers the `standalone` dialect and its op in `ctx`
/// (`morf_standalone::register(session.context_mut())`).
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "standalone",
        summary: "an out-of-tree example dialect",
        materialize_constant: None,
    });
    r.register_op(SquareOp::info());
}

/// The registry entry of the `standalone-expand-square` pass
/// (`session.register_pass(morf_standalone::expand_square_info())`).
pub fn expand_square_info() -> PassInfo {
    PassInfo {
        name: "standalone-expand-square",
        description: "rewrite standalone.square %x into mtensor.mul %x, %x",
        options: &[],
        create: |_| Ok(Box::new(ExpandSquare)),
    }
}

/// The `standalone-expand-square` pass: `standalone.square %x` becomes `mtensor.mul %x, %x`.
#[derive(Debug, Default)]
pub struct ExpandSquare;

impl Pass for ExpandSquare {
    fn name(&self) -> &'static str {
        "standalone-expand-square"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        expand_squares(ctx, root);
        Ok(())
    }
}

/// Rewrites every `standalone.square` nested in `root`; returns how many.
pub fn expand_squares(ctx: &mut Context, root: OpId) -> usize {
    let mut n = 0;
    for op in ctx.walk_collect(root) {
        let Some(square) = SquareOp::dyn_cast(ctx, op) else { continue };
        let x = square.input(ctx);
        let res = square.result(ctx);
        let ty = ctx.value_type(res);
        let mul = ctx.create_op(MulOp::state(ctx.op_loc(op), x, x, ty));
        ctx.insert_op_before(op, mul);
        let m = ctx.result(mul, 0);
        ctx.replace_all_uses_with(res, m);
        ctx.erase_op(op);
        n += 1;
    }
    n
}

/// The inputs of [`EXAMPLE`] with `m` rows: deterministic values in [-2, 2).
pub fn example_inputs(m: usize) -> morf::Inputs {
    let x: Vec<f64> = (0..m * 8).map(|i| ((i * 37) % 64) as f64 / 16.0 - 2.0).collect();
    let y: Vec<f64> = (0..m * 8).map(|i| ((i * 11) % 32) as f64 / 8.0 - 2.0).collect();
    morf::Inputs::new().array("x", vec![m, 8], x).array("y", vec![m, 8], y)
}

/// The whole flow of `main`: parse [`EXAMPLE`], run it on the interpreter (the op's own
/// semantics), expand the squares with the pass, lower with morf's `gpu` pipeline, emit
/// PTX, run the kernels on the GPU simulator, and compare with the interpreter. Returns the
/// PTX and the largest absolute difference.
pub fn run_example(m: usize) -> Result<(String, f64), morf::Error> {
    let mut session = morf::Session::new();
    register(session.context_mut());
    session.register_pass(expand_square_info());
    let module = session.parse("square_add.mlir", EXAMPLE)?;
    let inputs = example_inputs(m);
    let reference = session.run(module, morf::Device::Interp, &inputs)?;

    session.run_pipeline(module, "builtin.module(standalone-expand-square)")?;
    session.run_pipeline(module, "gpu")?;
    let ptx = session.emit_ptx(module)?;
    let sim = session.run(module, morf::Device::Sim, &inputs)?;

    let (want_shape, want) = reference.array(0).expect("one result");
    let (got_shape, got) = sim.array(0).expect("one result");
    assert_eq!(want_shape, got_shape);
    let diff = want.iter().zip(got).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    Ok((ptx, diff))
}
