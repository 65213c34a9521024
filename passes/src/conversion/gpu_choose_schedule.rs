//! `gpu-choose-schedule`: writes the launch schedule `lower-loop-to-gpu` would choose for
//! each top-level nest onto the nest, as a `morf.schedule` dictionary attribute
//! (docs/conversion-loop-to-gpu.md, "Schedules in the IR"). `lower-loop-to-gpu` then uses
//! the attribute instead of its heuristic, so the schedule can be read and edited in the IR.
//!
//! The pass runs the lowering on a copy of the module with the same options (a dry run that
//! ignores existing `morf.schedule` attributes and records every schedule the heuristic,
//! [`super::schedule::choose_schedule`], picks), drops the copy and annotates the nests of
//! the original. Running it before `lower-loop-to-gpu` with the same options changes nothing
//! in the lowered IR. Nests the lowering creates itself (device-side `fill`s) and scalar code
//! outside nests get no attribute.
//!
//! **Options:** those of `lower-loop-to-gpu` (`threads`, `threads-per-row`, `vector`,
//! `rows-per-cta`, `grid`, `fast`, `split-rows`, `device`, `size-hints`; `report` is accepted
//! and prints nothing: the dry run never reports).
//!
//! **Example:**
//!
//! ```text
//! // before
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) { ... mloop.reduce ... }
//! // after
//! mloop.parallel (%i) = (%c0) to (%m) step (%c1) { ... } {morf.schedule = {mapping =
//!   "row_reduction", max_grid = 1056 : i64, partials = "none", rows_in_flight_per_warp = 1 : i64,
//!   rows_per_cta = 8 : i64, threads = 256 : i64, threads_per_row = 32 : i64, vector = 8 : i64}}
//! ```

use std::collections::HashMap;

use morf_ir::builtin::{op_error, ModuleOp};
use morf_ir::pass::{Pass, PassInfo, PassResult};
use morf_ir::{Context, OpId};

use super::loop_to_gpu::{LoopToGpuOptions, LowerLoopToGpu, ScheduleLog, OPTIONS};
use super::schedule::{Mapping, SCHEDULE_ATTR};

/// The registry entry of `gpu-choose-schedule`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "gpu-choose-schedule",
        description: "write lower-loop-to-gpu's launch schedule of each nest as a morf.schedule attribute",
        options: OPTIONS,
        create: |o| Ok(Box::new(GpuChooseSchedule { options: LoopToGpuOptions::from_pass_options(o)? })),
    }
}

/// The `gpu-choose-schedule` pass.
#[derive(Debug, Default)]
pub struct GpuChooseSchedule {
    /// The options of the lowering it mirrors.
    pub options: LoopToGpuOptions,
}

impl Pass for GpuChooseSchedule {
    fn name(&self) -> &'static str {
        "gpu-choose-schedule"
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        if !ctx.isa::<ModuleOp>(root) {
            return Err(op_error(ctx, root, "pass 'gpu-choose-schedule' runs on a 'builtin.module'"));
        }
        // The lowering's own rewrite of 2-D partial nests into the row form, on the IR
        // annotated here, so each attribute lands on the nest the lowering will see.
        super::loop_to_gpu::partials_to_rows_in_module(ctx, root, &self.options);
        let copy = ctx.clone_op(root, &mut HashMap::new());
        let back: HashMap<OpId, OpId> = ctx.walk_collect(copy).into_iter().zip(ctx.walk_collect(root)).collect();
        let log = ScheduleLog::default();
        let options = LoopToGpuOptions { dry_run: Some(log.clone()), ..self.options.clone() };
        let result = LowerLoopToGpu { options }.run(ctx, copy);
        ctx.erase_op(copy);
        result?;
        let log = log.borrow();
        let mut k = 0;
        while k < log.len() {
            let (nest, s) = &log[k];
            k += 1;
            let fin = if s.mapping == Mapping::SplitPartial && k < log.len() && log[k].0 == *nest {
                k += 1;
                Some(&log[k - 1].1)
            } else {
                None
            };
            let Some(&op) = back.get(nest) else { continue };
            if ctx.regions(op).is_empty() {
                continue;
            }
            let a = s.to_attr(ctx, fin);
            ctx.set_attr(op, SCHEDULE_ATTR, a);
        }
        Ok(())
    }
}
