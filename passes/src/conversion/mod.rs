//! Conversions between dialects: `lower-tensor-to-loop` (`mtensor` to `mloop`) and
//! `lower-loop-to-gpu` (`mloop` to `mgpu`, with its launch [`schedule`]s), and
//! `gpu-choose-schedule` (those schedules as `morf.schedule` attributes on the nests); the
//! [`kernel_dag`] of a host block's launches, which the [`grid_merge`] asks before fusing two;
//! [`remat_converts`], the widenings a row kernel recomputes after a barrier.

pub mod gpu_choose_schedule;
pub mod grid_merge;
pub mod kernel_dag;
pub mod loop_to_gpu;
pub mod remat_converts;
pub mod schedule;
pub mod tensor_to_loop;
