//! `morf-ir`: the core IR of morf.
//!
//! It owns operations, regions, blocks and SSA values (in a [`Context`]), types and
//! attributes (interned), source locations and diagnostics, the MLIR-syntax parser and
//! printer, the verifier, rewrite patterns with a greedy driver, the pass manager, the
//! interpreter framework, and the builtin and `func` ops. Dialects (`morf-tensor`, ...)
//! register their ops into a context; passes live in `morf-passes`.
//!
//! Building IR without text:
//!
//! ```
//! use morf_ir::{Context, OperationState, Loc, Dim, print_op, PrintOptions};
//! let mut ctx = Context::new();
//! let f32t = ctx.f32_type();
//! let t = ctx.tensor_type(&[Dim::Dynamic, Dim::Static(384)], f32t);
//! let mut b = morf_ir::Builder::new_module(&mut ctx);
//! let (func, args) = b.func("identity", &[t], &[t]);
//! b.ret(func, &[args[0]]);
//! let module = b.module();
//! morf_ir::verify(&ctx, module).unwrap();
//! let text = print_op(&ctx, module, &PrintOptions::default());
//! assert!(text.contains("func.func @identity(%arg0: tensor<?x384xf32>) -> tensor<?x384xf32>"));
//! # let _ = OperationState::new("x.y", Loc::Unknown);
//! ```
#![warn(missing_docs)]

pub mod asm;
pub mod attrs;
pub mod builder;
pub mod builtin;
pub mod context;
pub mod conversion;
pub mod diag;
pub mod hash;
pub mod interfaces;
pub mod interp;
pub mod io;
pub mod location;
pub mod numerics;
pub mod opdef;
pub mod pass;
pub mod registry;
pub mod rewrite;
pub mod tools;
pub mod types;
pub mod verify;

pub use asm::{parse_source, print_op, PrintOptions};
pub use attrs::{Attr, AttrData};
pub use builder::Builder;
pub use context::{BlockId, Context, OpId, OperationState, RegionId, Sym, Use, Value, ValueDef};
pub use diag::{Diagnostic, Severity};
pub use location::Loc;
pub use numerics::FloatKind;
pub use opdef::Op;
pub use registry::{DialectInfo, FoldResult, OpInfo, Registry, Traits};
pub use types::{Dim, Type, TypeData};
pub use verify::verify;
