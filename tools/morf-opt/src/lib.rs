//! The `morf-opt` tool: registers morf's dialects and passes and hands the command line to
//! the driver in the core ([`morf_ir::tools::opt_main`]). See `docs/passes.md` for the flags.

use morf_ir::pass::PassRegistry;
use morf_ir::tools::{OptConfig, PtxFlags};
use morf_ir::{Context, Diagnostic, OpId};
use morf_passes::target::ptx::PtxOptions;

/// Registers every dialect `morf-opt` knows into `ctx`.
pub fn register_dialects(ctx: &mut Context) {
    morf_tensor::register(ctx);
    morf_loop::register(ctx);
    morf_gpu::register(ctx);
}

/// Every pass and named pipeline `morf-opt` knows.
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// `--emit=ptx`: every `mgpu.func` of the module as PTX ([`morf_passes::target::ptx`]).
pub fn emit_ptx(ctx: &Context, module: OpId, flags: &PtxFlags) -> Result<String, Diagnostic> {
    let mut opts = PtxOptions::default();
    if let Some(v) = &flags.version {
        opts.version = v.clone();
    }
    if let Some(t) = &flags.target {
        opts.target = t.clone();
    }
    morf_passes::target::ptx::emit_module(ctx, module, &opts)
}

/// Runs morf-opt with the given command line (argv[0] first) and returns the process exit code.
pub fn main_with_args(args: Vec<std::ffi::OsString>) -> i32 {
    let config = OptConfig { ptx_emitter: Some(emit_ptx) };
    morf_ir::tools::opt_main_with(args, &register_dialects, &pass_registry(), &config)
}
