//! Timing compiled programs on the GPU with CUDA events (what `morf-bench` measures): the
//! host sequence of one call between two events ([`time_program`], by default as
//! `triton.testing.do_bench` times: an L2-evicting memset before each call and one wait at
//! the end, [`CallTiming`]), or each launch of a call between its own pair
//! ([`time_kernels`]).

use morf_ir::interp::RtValue;
use morf_runtime::{median, Gpu};

use crate::compile::{exec_err, runtime_err, GpuProgram};
use crate::gpu_exec::{DevValue, ExecError, LaunchInfo};
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
    /// Bytes of the buffers the launch is passed, each counted once (element count x element
    /// size): the traffic floor of a kernel that touches each element once, an upper bound
    /// on it (a buffer read and written counts once; a buffer read in part counts whole).
    pub arg_bytes: u64,
}

/// How [`time_program`] separates the timed calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CallTiming {
    /// Like `triton.testing.do_bench` (how the peers of `docs/perf.md` are timed): before
    /// each call an asynchronous [`L2_FLUSH_BYTES`] memset evicts the L2 cache, then the call
    /// runs between its own pair of events; the host waits only once, after the last call. The
    /// host queues each call while the GPU still clears the cache, so the figure is the GPU time
    /// of the call's sequence (launches, fills, the gaps between them) without the host's
    /// enqueue time in front of its first launch.
    #[default]
    Pipelined,
    /// The host waits for every call before queueing the next: the figure also holds the
    /// time from the start event to the call's first operation reaching the GPU (the
    /// host's work and the driver's latency for the first launch or fill).
    Synced,
}

/// Bytes of the memset that evicts the L2 cache before each [`CallTiming::Pipelined`] call
/// (the H200's L2 holds 50 MiB; `do_bench` clears 256 MiB).
pub const L2_FLUSH_BYTES: usize = 256 << 20;

/// Times `prog` on `args`: warm-up calls, then the median of `runs` calls, each between
/// its own pair of events, separated as `method` says. Buffers the host function allocates
/// come from a pool after the first call, so timed calls do no `cuMemAlloc`. Returns the
/// median and the minimum in microseconds, and the launches of one call.
pub fn time_program(
    gpu: &Gpu,
    prog: &GpuProgram,
    args: &[RtValue],
    warmup: usize,
    runs: usize,
    method: CallTiming,
) -> Result<(f64, f64, usize), EngineError> {
    let mut exec = prog.executor(gpu);
    let dev_args = prog.upload_args(&mut exec, args)?;
    time_program_on(gpu, prog, &dev_args, warmup, runs, method)
}

/// [`time_program`] on arguments already on the device (uploaded once, e.g. by the tuner for
/// every candidate of a shape: the host functions of one tensor-level function take the same
/// arguments and do not write them).
pub fn time_program_on(
    gpu: &Gpu,
    prog: &GpuProgram,
    dev_args: &[DevValue],
    warmup: usize,
    runs: usize,
    method: CallTiming,
) -> Result<(f64, f64, usize), EngineError> {
    let mut exec = prog.executor(gpu);
    let exec_err = |e| exec_err(&prog.ctx, e);
    for _ in 0..warmup.max(1) {
        let out = exec.call(dev_args).map_err(exec_err)?;
        gpu.synchronize().map_err(runtime_err)?;
        out.into_iter().for_each(|v| exec.release(v));
    }
    let mut samples = Vec::with_capacity(runs);
    match method {
        CallTiming::Synced => {
            let ev = gpu.event_pair().map_err(runtime_err)?;
            for _ in 0..runs {
                ev.record_start().map_err(runtime_err)?;
                let out = exec.call(dev_args).map_err(exec_err)?;
                ev.record_end().map_err(runtime_err)?;
                samples.push(ev.elapsed_ms().map_err(runtime_err)? as f64 * 1e3);
                out.into_iter().for_each(|v| exec.release(v));
            }
        }
        CallTiming::Pipelined => {
            samples = gpu
                .time_flushed(runs, L2_FLUSH_BYTES, || {
                    let out = exec.call(dev_args)?;
                    // Stream order keeps the next call's reuse of these buffers after this
                    // call (a release only returns them to the host-side pool).
                    out.into_iter().for_each(|v| exec.release(v));
                    Ok::<(), ExecError>(())
                })
                .map_err(exec_err)?;
        }
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
    drop(exec);
    time_kernels_on(gpu, prog, &dev_args, warmup, runs)
}

/// [`time_kernels`] on arguments already on the device.
pub fn time_kernels_on(
    gpu: &Gpu,
    prog: &GpuProgram,
    dev_args: &[DevValue],
    warmup: usize,
    runs: usize,
) -> Result<Vec<KernelTiming>, EngineError> {
    let mut exec = prog.executor(gpu);
    let exec_err = |e| exec_err(&prog.ctx, e);
    exec.set_launch_timing(true);
    for _ in 0..warmup.max(1) {
        let out = exec.call(dev_args).map_err(exec_err)?;
        gpu.synchronize().map_err(runtime_err)?;
        out.into_iter().for_each(|v| exec.release(v));
    }
    let infos: Vec<LaunchInfo> = exec.launch_infos().to_vec();
    let mut samples: Vec<Vec<f64>> = vec![Vec::with_capacity(runs); infos.len()];
    for _ in 0..runs {
        let out = exec.call(dev_args).map_err(exec_err)?;
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
            arg_bytes: i.arg_bytes,
        })
        .collect())
}
