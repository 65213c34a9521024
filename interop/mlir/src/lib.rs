//! `morf-mlir`: interop with upstream MLIR (LLVM 22) through [melior](https://docs.rs/melior).
//!
//! It owns the bridge between morf's IR and MLIR's, in both directions:
//!
//! - **export** ([`export_mlir`]): a morf module at any level to MLIR built in memory, checked
//!   by MLIR's verifier and printed by MLIR's printer: `mtensor` as `linalg`/`tensor`/`arith`/
//!   `math` on tensors, `mloop` as `scf`/`memref`/`arith`, `mgpu` as `gpu`/`nvvm`/`llvm`;
//! - **import** ([`import_mlir`]): a linalg-on-tensors subset (`func.func`, `linalg.generic`
//!   with parallel and reduction iterators, the named elementwise ops, `linalg.reduce`,
//!   `linalg.fill`, `tensor.empty`, `arith.constant`, ...) to `mtensor`, so that the normal
//!   morf pipeline (`--pipeline=gpu`) compiles it;
//! - **a second PTX path** ([`emit_ptx`]): the GPU level exported to `gpu`/`nvvm`, then MLIR's
//!   own lowering and `gpu-module-to-binary{format=isa}`, in process, to cross-check morf's
//!   PTX emitter.
//!
//! Everything that touches MLIR is behind the cargo feature `mlir` (which links
//! `libMLIR.so` of LLVM 22: set `MLIR_SYS_220_PREFIX=/usr/lib/llvm-22` and
//! `TABLEGEN_220_PREFIX=/usr/lib/llvm-22`). Without it the crate compiles without MLIR,
//! [`is_available`] is `false` and every entry point returns the error [`UNAVAILABLE`]:
//! there is no partial or fake implementation. `docs/interop-mlir.md` has the mapping
//! tables, the commands and what is not covered.
#![warn(missing_docs)]

#[cfg(feature = "mlir")]
mod bridge;
#[cfg(feature = "mlir")]
mod export;
#[cfg(feature = "mlir")]
mod import;
#[cfg(feature = "mlir")]
mod ptx;

use morf_ir::{Context, Diagnostic, OpId};

/// The error of every entry point when the crate is built without the feature `mlir`.
pub const UNAVAILABLE: &str = "MLIR interop is not available: this build of morf has no MLIR \
     (rebuild with the cargo feature 'mlir' and LLVM/MLIR 22, see docs/interop-mlir.md)";

/// Whether this build links MLIR (the cargo feature `mlir`).
pub fn is_available() -> bool {
    cfg!(feature = "mlir")
}

/// The options of [`emit_ptx`]: the PTX target and ISA version handed to MLIR's NVVM target.
#[derive(Clone, Debug)]
pub struct PtxOptions {
    /// The SM, `sm_90` by default (as morf's own emitter).
    pub target: String,
    /// The PTX ISA version, `8.0` by default.
    pub version: String,
}

impl Default for PtxOptions {
    fn default() -> Self {
        PtxOptions { target: "sm_90".into(), version: "8.0".into() }
    }
}

/// Exports a verified morf module to MLIR and returns MLIR's text of it (its custom form),
/// after MLIR's verifier accepted it. Errors: an op with no mapping (at the op), or a
/// module MLIR's verifier rejects (an export bug; MLIR's messages are in the diagnostic).
pub fn export_mlir(ctx: &Context, module: OpId) -> Result<String, Diagnostic> {
    #[cfg(feature = "mlir")]
    {
        export::export_text(ctx, module)
    }
    #[cfg(not(feature = "mlir"))]
    {
        let _ = (ctx, module);
        Err(unavailable())
    }
}

/// Parses `text` (upstream MLIR, `file` names it in diagnostics, `line_offset` shifts its
/// lines as for a `--split-input-file` chunk) and imports it as a new `mtensor`-level
/// `builtin.module` of `ctx`, verified. `ctx` must have the `mtensor` dialect registered.
/// Errors: MLIR's own parse and verify errors, and every op outside the supported subset,
/// each at its `file:line:col`.
pub fn import_mlir(ctx: &mut Context, file: &str, text: &str, line_offset: u32) -> Result<OpId, Diagnostic> {
    #[cfg(feature = "mlir")]
    {
        import::import(ctx, file, text, line_offset)
    }
    #[cfg(not(feature = "mlir"))]
    {
        let _ = (ctx, file, text, line_offset);
        Err(unavailable())
    }
}

/// PTX for every `mgpu.func` of a GPU-level module through MLIR: the export to `gpu`/`nvvm`,
/// then MLIR's passes (`convert-gpu-to-nvvm` and friends) and `gpu-module-to-binary
/// {format=isa}` run in process by melior's pass manager.
pub fn emit_ptx(ctx: &Context, module: OpId, options: &PtxOptions) -> Result<String, Diagnostic> {
    #[cfg(feature = "mlir")]
    {
        ptx::emit(ctx, module, options)
    }
    #[cfg(not(feature = "mlir"))]
    {
        let _ = (ctx, module, options);
        Err(unavailable())
    }
}

/// The diagnostic of a build without MLIR.
#[cfg(not(feature = "mlir"))]
fn unavailable() -> Diagnostic {
    Diagnostic::error(morf_ir::Loc::Unknown, UNAVAILABLE)
}
