//! Timing compiled programs on the GPU with CUDA events (what `morf-bench` measures): the
//! host sequence of one call between two events ([`time_program`]), or each launch of a
//! call between its own pair ([`time_kernels`]).

use morf_ir::interp::RtValue;
use morf_runtime::{median, Gpu};

use crate::compile::{exec_err, runtime_err, GpuProgram};
use crate::gpu_exec::LaunchInfo;
use crate::EngineError;

/// The figures of one launch position of a call (`--per-kernel`).
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTiming {
    /// The kernel.
    pub kernel: String,
    /// Blocks.
    pub grid: u32,
    /// Threads per block.
    pub block: u32,
    /// Dynamic shared memory, in bytes.
    pub shared_bytes: u32,
    /// Median time of this launch, in microseconds.
    pub median_us: f64,
}

/// Times `prog` on `args`: warm-up calls, then the median of `runs` calls, each between
/// its own pair of events. Buffers the host function allocates come from a pool after the
/// first call, so timed calls do no `cuMemAlloc`.
pub fn time_program(
    gpu: &Gpu,
    prog: &GpuProgram,
    args: &[RtValue],
    warmup: usize,
    runs: usize,
) -> Result<(f64, f64, usize), EngineError> {
    let mut exec = prog.executor(gpu);
    let dev_args = prog.upload_args(&mut exec, args)?;
    let exec_err = |e| exec_err(&prog.ctx, e);
    for _ in 0..warmup.max(1) {
        let out = exec.call(&dev_args).map_err(exec_err)?;
        gpu.synchronize().map_err(runtime_err)?;
        out.into_iter().for_each(|v| exec.release(v));
    }
    let ev = gpu.event_pair().map_err(runtime_err)?;
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        ev.record_start().map_err(runtime_err)?;
        let out = exec.call(&dev_args).map_err(exec_err)?;
        ev.record_end().map_err(runtime_err)?;
        samples.push(ev.elapsed_ms().map_err(runtime_err)? as f64 * 1e3);
        out.into_iter().for_each(|v| exec.release(v));
    }
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    Ok((median(&samples), min, exec.launches))
}

/// Times each launch of `prog` on its own: warm-up calls, then `runs` calls with a pair of
/// events around every launch; returns each launch position's kernel, configuration and
/// median time. A separate pass from [`time_program`], so the whole-call figures are
/// taken with nothing recorded between launches.
pub fn time_kernels(
    gpu: &Gpu,
    prog: &GpuProgram,
    args: &[RtValue],
    warmup: usize,
    runs: usize,
) -> Result<Vec<KernelTiming>, EngineError> {
    let mut exec = prog.executor(gpu);
    let dev_args = prog.upload_args(&mut exec, args)?;
    let exec_err = |e| exec_err(&prog.ctx, e);
    exec.set_launch_timing(true);
    for _ in 0..warmup.max(1) {
        let out = exec.call(&dev_args).map_err(exec_err)?;
        gpu.synchronize().map_err(runtime_err)?;
        out.into_iter().for_each(|v| exec.release(v));
    }
    let infos: Vec<LaunchInfo> = exec.launch_infos().to_vec();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); infos.len()];
    for _ in 0..runs {
        let out = exec.call(&dev_args).map_err(exec_err)?;
        let times = exec.launch_times_ms().map_err(runtime_err)?;
        if exec.launch_infos() != infos.as_slice() {
            return Err(EngineError::Other(
                "the launches of a call changed between calls; cannot time them one by one".into(),
            ));
        }
        for (s, t) in samples.iter_mut().zip(times) {
            s.push(t as f64 * 1e3);
        }
        out.into_iter().for_each(|v| exec.release(v));
    }
    Ok(infos
        .into_iter()
        .zip(samples)
        .map(|(i, s)| KernelTiming {
            kernel: i.kernel,
            grid: i.grid,
            block: i.block,
            shared_bytes: i.shared_bytes,
            median_us: median(&s),
        })
        .collect())
}
