//! The device-to-device copy kernel that benchmarks use as their bandwidth reference, and
//! its measurement. The kernel is hand-written PTX: each thread moves 16 bytes per step
//! (`ld.global.nc.v4.u32` / `st.global.v4.u32`) in a grid-stride loop, which is what a
//! well-tuned pointwise kernel does. Bandwidth counts bytes read plus bytes written.

use crate::{median, DeviceBuffer, Gpu, KernelArg, Result, RuntimeError};

/// The `.entry` name of [`COPY_PTX`].
pub const COPY_KERNEL_NAME: &str = "morf_copy_v16";

/// `morf_copy_v16(src: u64, dst: u64, n16: u64)`: copies `n16` 16-byte vectors from `src`
/// to `dst` (both 16-byte aligned). PTX ISA 7.0 for sm_70, so any CUDA 11+ driver JITs it.
pub const COPY_PTX: &str = r#"//
// morf_copy_v16: grid-stride copy of 16-byte vectors (bandwidth reference).
//
.version 7.0
.target sm_70
.address_size 64

.visible .entry morf_copy_v16(
	.param .u64 morf_copy_v16_src,
	.param .u64 morf_copy_v16_dst,
	.param .u64 morf_copy_v16_n16
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<9>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [morf_copy_v16_src];
	ld.param.u64 	%rd2, [morf_copy_v16_dst];
	ld.param.u64 	%rd3, [morf_copy_v16_n16];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mov.u32 	%r4, %nctaid.x;
	mul.wide.u32 	%rd4, %r1, %r2;
	cvt.u64.u32 	%rd5, %r3;
	add.s64 	%rd4, %rd4, %rd5;
	mul.wide.u32 	%rd6, %r4, %r2;
	setp.ge.u64 	%p1, %rd4, %rd3;
	@%p1 bra 	$L__done;
$L__loop:
	shl.b64 	%rd7, %rd4, 4;
	add.s64 	%rd8, %rd1, %rd7;
	add.s64 	%rd9, %rd2, %rd7;
	ld.global.nc.v4.u32 	{%r5, %r6, %r7, %r8}, [%rd8];
	st.global.v4.u32 	[%rd9], {%r5, %r6, %r7, %r8};
	add.s64 	%rd4, %rd4, %rd6;
	setp.lt.u64 	%p1, %rd4, %rd3;
	@%p1 bra 	$L__loop;
$L__done:
	ret;
}
"#;

/// Threads per block of the copy kernel.
pub const COPY_BLOCK: u32 = 256;

/// A measured copy bandwidth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CopyBandwidth {
    /// Bytes copied per run (the same amount is read and written).
    pub bytes: usize,
    /// Median time of one copy, in microseconds.
    pub median_us: f64,
    /// Timed runs.
    pub runs: usize,
}

impl CopyBandwidth {
    /// Bytes read plus bytes written per second, in TB/s (10^12 bytes per second).
    pub fn tb_per_s(&self) -> f64 {
        bandwidth_tb_per_s(2 * self.bytes, self.median_us)
    }
}

/// `bytes` moved in `us` microseconds, in TB/s (10^12 bytes per second).
pub fn bandwidth_tb_per_s(bytes: usize, us: f64) -> f64 {
    bytes as f64 / (us * 1e-6) / 1e12
}

/// The grid of the copy kernel for `n16` vectors: one vector per thread, capped at the
/// CUDA grid limit (the grid-stride loop covers the rest).
pub fn copy_grid(n16: u64) -> u32 {
    n16.div_ceil(COPY_BLOCK as u64).clamp(1, i32::MAX as u64) as u32
}

impl Gpu {
    /// Copies `src` into `dst` with the copy kernel of `module` (loaded from [`COPY_PTX`]).
    /// Both sizes must be equal multiples of 16 bytes.
    pub fn copy_with_kernel(&self, module: &crate::Module, src: &DeviceBuffer, dst: &DeviceBuffer) -> Result<()> {
        if src.len() != dst.len() || src.len() & 15 != 0 {
            return Err(RuntimeError::Usage(format!(
                "the copy kernel needs two buffers of one size, a multiple of 16 bytes (got {} and {})",
                src.len(),
                dst.len()
            )));
        }
        let n16 = (src.len() / 16) as u64;
        self.launch(
            module,
            COPY_KERNEL_NAME,
            copy_grid(n16),
            COPY_BLOCK,
            0,
            &[KernelArg::Ptr(src), KernelArg::Ptr(dst), KernelArg::U64(n16)],
        )
    }

    /// Measures device-to-device copy bandwidth on a buffer of `bytes` bytes (rounded down
    /// to a multiple of 16): `warmup` untimed copies, then the median of `runs` copies,
    /// each between its own pair of events.
    pub fn measure_copy_bandwidth(&self, bytes: usize, warmup: usize, runs: usize) -> Result<CopyBandwidth> {
        let bytes = bytes / 16 * 16;
        if bytes == 0 || runs == 0 {
            return Err(RuntimeError::Usage("copy bandwidth needs at least 16 bytes and one run".into()));
        }
        let module = self.load_ptx(COPY_PTX, &[COPY_KERNEL_NAME])?;
        let src = self.alloc_bytes(bytes)?;
        let dst = self.alloc_bytes(bytes)?;
        self.memset(&src, 0x3c)?;
        for _ in 0..warmup {
            self.copy_with_kernel(&module, &src, &dst)?;
        }
        self.synchronize()?;
        let ev = self.event_pair()?;
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            ev.record_start()?;
            self.copy_with_kernel(&module, &src, &dst)?;
            ev.record_end()?;
            samples.push(ev.elapsed_ms()? as f64 * 1e3);
        }
        Ok(CopyBandwidth { bytes, median_us: median(&samples), runs })
    }

    /// Times one copy of `bytes` bytes (rounded down to a multiple of 16) as the benchmarks
    /// time a program (`triton.testing.do_bench`'s way): before each copy a `flush_bytes`
    /// memset evicts the L2 cache, and the copy alone runs between a pair of events. The
    /// median of `runs` copies after `warmup` untimed ones. This is the time a plain copy of
    /// a program's own traffic takes, launch and ramp included, which the bandwidth of
    /// [`Gpu::measure_copy_bandwidth`] (a large copy) leaves out.
    pub fn measure_copy_flushed(
        &self,
        bytes: usize,
        warmup: usize,
        runs: usize,
        flush_bytes: usize,
    ) -> Result<CopyBandwidth> {
        let bytes = bytes / 16 * 16;
        if bytes == 0 || runs == 0 || flush_bytes < 4 {
            return Err(RuntimeError::Usage(
                "a flushed copy needs at least 16 bytes, one run and a flush buffer of 4 bytes".into(),
            ));
        }
        let module = self.load_ptx(COPY_PTX, &[COPY_KERNEL_NAME])?;
        let src = self.alloc_bytes(bytes)?;
        let dst = self.alloc_bytes(bytes)?;
        self.memset(&src, 0x3c)?;
        for _ in 0..warmup.max(1) {
            self.copy_with_kernel(&module, &src, &dst)?;
        }
        self.synchronize()?;
        let samples = self.time_flushed(runs, flush_bytes, || self.copy_with_kernel(&module, &src, &dst))?;
        Ok(CopyBandwidth { bytes, median_us: median(&samples), runs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_units() {
        // 1 GiB read + 1 GiB written in 500 us.
        let bw = CopyBandwidth { bytes: 1 << 30, median_us: 500.0, runs: 1 };
        assert!((bw.tb_per_s() - 2.0 * (1u64 << 30) as f64 / 500e-6 / 1e12).abs() < 1e-9);
        assert!((bandwidth_tb_per_s(4_000_000, 1.0) - 4.0).abs() < 1e-12);
    }

    #[test]
    fn grid_covers_the_vectors() {
        assert_eq!(copy_grid(1), 1);
        assert_eq!(copy_grid(256), 1);
        assert_eq!(copy_grid(257), 2);
        assert_eq!(copy_grid((1 << 30) / 16), (1 << 26) / 256);
        assert_eq!(copy_grid(u64::MAX), i32::MAX as u32);
    }

    #[test]
    fn copy_ptx_declares_its_entry() {
        assert!(COPY_PTX.contains(&format!(".visible .entry {COPY_KERNEL_NAME}(")));
        // Every register used is declared: %r1..%r8, %rd1..%rd9, %p1.
        assert!(COPY_PTX.contains("%r<9>") && COPY_PTX.contains("%rd<10>") && COPY_PTX.contains("%p<2>"));
    }
}
