//! The `morf-opt` tool: registers morf's dialects and passes and hands the command line to
//! the driver in the core ([`morf_ir::tools::opt_main`]). See `docs/passes.md` for the flags.

use morf_ir::pass::PassRegistry;
use morf_ir::Context;

/// Registers every dialect `morf-opt` knows into `ctx`.
pub fn register_dialects(ctx: &mut Context) {
    morf_tensor::register(ctx);
    morf_loop::register(ctx);
}

/// Every pass and named pipeline `morf-opt` knows.
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::default();
    morf_passes::register_all(&mut reg);
    reg
}

/// Runs morf-opt with the given command line (argv[0] first) and returns the process exit code.
pub fn main_with_args(args: Vec<std::ffi::OsString>) -> i32 {
    morf_ir::tools::opt_main(args, &register_dialects, &pass_registry())
}
