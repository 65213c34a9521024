//! Conversions between dialects: `lower-tensor-to-loop` (`mtensor` to `mloop`) and
//! `lower-loop-to-gpu` (`mloop` to `mgpu`, with its launch [`schedule`]s).

pub mod loop_to_gpu;
pub mod schedule;
pub mod tensor_to_loop;
