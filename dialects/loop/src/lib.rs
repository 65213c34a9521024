//! `morf-loop`: the `mloop` dialect, morf's loop level.
//!
//! Explicit loop nests over mutable buffers (`!mloop.buffer<?x384xbf16>`): the level where
//! iteration spaces, loop order, reductions and memory are visible, executable and
//! checkable. The dialect is named `mloop` (like `mtensor`) so that its generic form stays
//! loadable by upstream `mlir-opt --allow-unregistered-dialect`.
//!
//! Ops, by group (see `docs/dialects/loop.md` for the full reference):
//!
//! - [`ops::scalar`]: `constant`, `add`, `sub`, `mul`, `div`, `max`, `min`, `pow`, `rem`,
//!   `neg`, `exp`, `log`, `sqrt`, `rsqrt`, `tanh`, `abs`, `cmp`, `select`, `convert`;
//! - [`ops::buffer`]: `dim`, `alloc`, `constant_buffer`, `dealloc`, `load`, `store`,
//!   `accumulate`, `fill`;
//! - [`ops::loops`]: `for`, `parallel`, `reduce`, `yield`.
//!
//! Every op has a verifier, a custom assembly format (and round-trips in generic form) and
//! interpreter semantics: scalars are f64 rounded to their type, buffers are shared mutable
//! arrays, and out-of-bounds accesses are diagnostics at the op.
//!
//! ```
//! let mut ctx = morf_ir::Context::new();
//! morf_loop::register(&mut ctx);
//! let src = "func.func @f(%b: !mloop.buffer<4xf32>) -> f32 {
//!   %c0 = mloop.constant 0 : index
//!   %v = mloop.load %b[%c0] : !mloop.buffer<4xf32>
//!   return %v : f32
//! }";
//! let m = morf_ir::parse_source(&mut ctx, "f.mlir", src, 0).unwrap();
//! morf_ir::verify(&ctx, m).unwrap();
//! ```
#![warn(missing_docs)]

pub mod ops;
pub mod types;

use morf_ir::{Context, DialectInfo};

use ops::{buffer as buf, loops, scalar as sc};

pub use types::{buffer_parts, buffer_type, is_buffer, BUFFER};

/// Registers the `mloop` dialect, its `!mloop.buffer` type and its ops into `ctx`.
pub fn register(ctx: &mut Context) {
    let r = ctx.registry_mut();
    r.register_dialect(DialectInfo {
        name: "mloop",
        summary: "explicit loop nests over mutable buffers",
        materialize_constant: Some(sc::materialize_constant),
    });
    r.register_type(types::BUFFER, types::verify_buffer_type);
    r.register_op(Box::leak(Box::new(sc::constant())));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.add", "sum of two scalars"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.sub", "difference of two scalars"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.mul", "product of two scalars"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.div", "quotient of two scalars (floor division on index)"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.max", "maximum of two scalars (NaN-propagating)"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.min", "minimum of two scalars (NaN-propagating)"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.pow", "power of two floats"))));
    r.register_op(Box::leak(Box::new(sc::binary("mloop.rem", "remainder of index floor division"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.neg", "negation"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.exp", "exponential"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.log", "natural logarithm"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.sqrt", "square root"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.rsqrt", "reciprocal square root"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.tanh", "hyperbolic tangent"))));
    r.register_op(Box::leak(Box::new(sc::unary("mloop.abs", "absolute value"))));
    r.register_op(Box::leak(Box::new(sc::cmp())));
    r.register_op(Box::leak(Box::new(sc::select())));
    r.register_op(Box::leak(Box::new(sc::convert())));
    r.register_op(Box::leak(Box::new(buf::dim())));
    r.register_op(Box::leak(Box::new(buf::alloc())));
    r.register_op(Box::leak(Box::new(buf::constant_buffer())));
    r.register_op(Box::leak(Box::new(buf::dealloc())));
    r.register_op(Box::leak(Box::new(buf::load())));
    r.register_op(Box::leak(Box::new(buf::store())));
    r.register_op(Box::leak(Box::new(buf::accumulate())));
    r.register_op(Box::leak(Box::new(buf::fill())));
    r.register_op(Box::leak(Box::new(loops::for_())));
    r.register_op(Box::leak(Box::new(loops::parallel())));
    r.register_op(Box::leak(Box::new(loops::reduce())));
    r.register_op(Box::leak(Box::new(loops::yield_())));
}
