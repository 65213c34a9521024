//! `morf-passes`: the passes of morf.
//!
//! Every pass lives in its own file with a `//!` header (what it does, the IR it expects,
//! its options and a before/after example) and is registered once, in [`register_all`],
//! sorted by name. Tools call `register_all` on their [`PassRegistry`] and then build
//! pipelines from text (`builtin.module(func.func(canonicalize,cse))`) or from shorthand
//! flags (`--canonicalize`).
#![warn(missing_docs)]

pub mod conversion;
pub mod fusion;
pub mod target;
pub mod transforms;

use morf_ir::pass::PassRegistry;

/// Registers every pass of this crate, sorted by name.
pub fn register_all(reg: &mut PassRegistry) {
    reg.register(transforms::canonicalize::info());
    reg.register(transforms::cse::info());
    reg.register(transforms::dce::info());
    reg.register(fusion::pass::info());
    reg.register(conversion::gpu_choose_schedule::info());
    reg.register(conversion::tensor_to_loop::info());
    reg.register(transforms::invariant_divisor_to_reciprocal::info());
    reg.register(transforms::loop_coalesce::info());
    reg.register(transforms::loop_fuse::info());
    reg.register(transforms::loop_interchange::info());
    reg.register(transforms::loop_invariant_code_motion::info());
    reg.register(transforms::loop_map::info());
    reg.register(transforms::loop_partial_accumulate::info());
    reg.register(transforms::loop_split::info());
    reg.register(transforms::loop_tile::info());
    reg.register(transforms::loop_unroll::info());
    reg.register(conversion::loop_to_gpu::info());
    reg.register(target::ptx::relief_pass::info());
    reg.register_pipeline(morf_ir::pass::NamedPipeline {
        name: "fuse",
        description: "lower tensors to loops and fuse mixed-order reductions",
        text: "builtin.module(lower-tensor-to-loop,canonicalize,cse,fuse-mixed-reductions,canonicalize,cse)",
    });
    conversion::loop_to_gpu::register_pipelines(reg);
}

#[cfg(test)]
mod tests {
    #[test]
    fn registers_every_pass_sorted() {
        let mut reg = morf_ir::pass::PassRegistry::default();
        super::register_all(&mut reg);
        let names: Vec<&str> = reg.passes().map(|p| p.name).collect();
        assert_eq!(
            names,
            [
                "canonicalize",
                "cse",
                "dce",
                "fuse-mixed-reductions",
                "gpu-choose-schedule",
                "invariant-divisor-to-reciprocal",
                "loop-coalesce",
                "loop-fuse",
                "loop-interchange",
                "loop-invariant-code-motion",
                "loop-map",
                "loop-partial-accumulate",
                "loop-split",
                "loop-tile",
                "loop-unroll",
                "lower-loop-to-gpu",
                "lower-tensor-to-loop",
                "ptx-spill-relief"
            ]
        );
    }
}
