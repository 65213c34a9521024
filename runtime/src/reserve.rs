//! Reserving SMs: a spinning kernel that holds some of the device's SMs whole, so that the
//! work timed beside it runs on the others ([`Gpu::reserve_sms`]). A device with fewer SMs
//! has more DRAM bandwidth per SM: an H100 with 40 of its 132 SMs reserved moves 3.0 TB/s
//! through 92, as many bytes per SM cycle as an H200's 4.3 TB/s through 132, so a kernel
//! limited by what one SM issues or keeps in flight meets that limit as it would there.
//!
//! Each reserving CTA asks for all the shared memory a CTA may opt in to; with the 1 KiB the
//! hardware keeps for each CTA that is a whole SM's, so no other CTA (of any kernel, even one
//! without shared memory) is placed beside it, and no two of them share an SM. The CTAs spin
//! on a flag in device memory, on a stream that does not wait for the legacy default stream
//! (where all other work of this crate goes), until [`SmReservation`] is dropped or their
//! deadline passes; while one lives, [`Gpu::sm_count`] answers the SMs left, so grids sized
//! from it (cooperative launches, resident partials) fit the SMs that are free, and
//! [`Gpu::synchronize`] waits for the default stream only.

use std::sync::atomic::Ordering;
use std::sync::Mutex;

use cudarc::driver::{result, sys};

use crate::{cuda_err, DeviceBuffer, Gpu, Module, Result, RuntimeError};

/// The `.entry` name of [`RESERVE_PTX`].
pub const RESERVE_KERNEL_NAME: &str = "morf_reserve_sm";

/// `morf_reserve_sm(flag: u64, started: u64, span_ns: u64)`: thread 0 of each CTA adds one
/// to `*started`, then spins (with `nanosleep`) until `*flag` is non-zero or `span_ns` of the
/// global timer have passed since it started; a CTA that stopped at that deadline adds one
/// to `flag[1]`.
pub const RESERVE_PTX: &str = r#"//
// morf_reserve_sm: holds an SM until a flag is set (see morf-runtime's reserve.rs).
//
.version 7.0
.target sm_70
.address_size 64

.visible .entry morf_reserve_sm(
	.param .u64 morf_reserve_sm_flag,
	.param .u64 morf_reserve_sm_started,
	.param .u64 morf_reserve_sm_span
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<6>;

	mov.u32 	%r1, %tid.x;
	setp.ne.u32 	%p1, %r1, 0;
	@%p1 bra 	$L__done;
	ld.param.u64 	%rd1, [morf_reserve_sm_flag];
	ld.param.u64 	%rd2, [morf_reserve_sm_started];
	ld.param.u64 	%rd3, [morf_reserve_sm_span];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u64 	%rd5, %globaltimer;
	add.u64 	%rd3, %rd3, %rd5;
	atom.global.add.u32 	%r2, [%rd2], 1;
$L__spin:
	nanosleep.u32 	2000;
	ld.volatile.global.u32 	%r3, [%rd1];
	setp.ne.u32 	%p2, %r3, 0;
	@%p2 bra 	$L__done;
	mov.u64 	%rd4, %globaltimer;
	setp.lt.u64 	%p2, %rd4, %rd3;
	@%p2 bra 	$L__spin;
	atom.global.add.u32 	%r2, [%rd1+4], 1;
$L__done:
	ret;
}
"#;

/// A free or a module unload held back while SMs are reserved: `cuMemFree` and
/// `cuModuleUnload` wait for every stream of the context, the spinning one too, so they are
/// done when the reservation ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Deferred {
    /// A device pointer to free.
    Free(sys::CUdeviceptr),
    /// A module handle (as an address) to unload.
    Unload(usize),
}

/// `Some` (the held-back work) while a reservation lives.
static DEFERRED: Mutex<Option<Vec<Deferred>>> = Mutex::new(None);

/// Holds `d` back if SMs are reserved (true), else leaves it to the caller (false).
pub(crate) fn defer(d: Deferred) -> bool {
    match DEFERRED.lock() {
        Ok(mut g) => match g.as_mut() {
            Some(v) => {
                v.push(d);
                true
            }
            None => false,
        },
        Err(_) => false,
    }
}

/// How long the reserving CTAs spin at most (a program that hung beside them is freed, and
/// the reservation's release reports it).
pub const RESERVE_DEADLINE_S: u64 = 120;

/// SMs held by a spinning kernel ([`Gpu::reserve_sms`]); dropping it (or [`SmReservation::release`])
/// sets the flag, waits for the kernel and gives the SMs back.
pub struct SmReservation<'g> {
    gpu: &'g Gpu,
    stream: sys::CUstream,
    flag: DeviceBuffer,
    started: DeviceBuffer,
    _module: Module,
    sms: u32,
    released: bool,
}

impl std::fmt::Debug for SmReservation<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SmReservation({} SMs)", self.sms)
    }
}

impl Gpu {
    /// Holds `sms` of the device's SMs with a spinning kernel until the returned reservation
    /// is dropped (module docs). Fails where `sms` leaves no SM free, where a reservation is
    /// held already, or where the reserving CTAs do not all start within a few seconds (other
    /// work holds the SMs).
    pub fn reserve_sms(&self, sms: u32) -> Result<SmReservation<'_>> {
        let total = self.total_sm_count()?;
        if sms == 0 || sms >= total {
            return Err(RuntimeError::Usage(format!(
                "cannot reserve {sms} of the device's {total} SMs: at least one must be reserved and one left"
            )));
        }
        if self.reserved.load(Ordering::SeqCst) != 0 {
            return Err(RuntimeError::Usage("SMs are reserved already".into()));
        }
        let module = self.load_ptx(RESERVE_PTX, &[RESERVE_KERNEL_NAME])?;
        let (f, _) = module.function(RESERVE_KERNEL_NAME)?;
        self.bind()?;
        let optin = self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?;
        self.opt_in_shared(f, RESERVE_KERNEL_NAME, optin, 0)?;
        let flag = self.alloc_bytes(8)?;
        self.memset(&flag, 0)?;
        let started = self.alloc_bytes(4)?;
        self.memset(&started, 0)?;
        let stream = non_blocking_stream()?;
        let reservation = SmReservation { gpu: self, stream, flag, started, _module: module, sms, released: false };
        let mut flag_ptr = reservation.flag.ptr;
        let mut started_ptr = reservation.started.ptr;
        let mut span: u64 = RESERVE_DEADLINE_S * 1_000_000_000;
        let mut params: [*mut std::ffi::c_void; 3] =
            [(&mut flag_ptr as *mut u64).cast(), (&mut started_ptr as *mut u64).cast(), (&mut span as *mut u64).cast()];
        // SAFETY: `f` belongs to the live module; the parameters point at three live u64s.
        unsafe {
            sys::cuLaunchKernel(f, sms, 1, 1, 32, 1, 1, optin, stream, params.as_mut_ptr(), std::ptr::null_mut())
        }
        .result()
        .map_err(|e| cuda_err("cuLaunchKernel", e, format!("kernel '{RESERVE_KERNEL_NAME}'")))?;
        self.reserved.store(sms, Ordering::SeqCst);
        if let Ok(mut g) = DEFERRED.lock() {
            *g = Some(Vec::new());
        }
        // Every reserving CTA resident before the reservation counts: polled through
        // synchronous reads on the default stream, which do not wait for the spinning one.
        let t0 = std::time::Instant::now();
        loop {
            let n = u32::from_le_bytes(self.download(&reservation.started)?[..4].try_into().expect("4 bytes"));
            if n >= sms {
                break;
            }
            if t0.elapsed() > std::time::Duration::from_secs(5) {
                return Err(RuntimeError::Usage(format!(
                    "only {n} of the {sms} SM-reserving CTAs started within 5 s: other work holds the SMs"
                )));
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(reservation)
    }
}

impl SmReservation<'_> {
    /// The SMs held.
    pub fn sms(&self) -> u32 {
        self.sms
    }

    /// Sets the flag, waits for the spinning kernel and gives the SMs back. Fails where a
    /// reserving CTA stopped at its deadline before the flag (the timed work beside it may
    /// then have had every SM for a while).
    pub fn release(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        if self.released {
            return Ok(());
        }
        self.released = true;
        self.gpu.bind()?;
        // The flag is set on a second non-blocking stream of its own, so that nothing about the
        // default stream's ordering can make the write wait for the spinning kernel.
        let set = set_flag(self.flag.ptr);
        // SAFETY: the stream was created by `reserve_sms` and is destroyed only here.
        let waited = unsafe { sys::cuStreamSynchronize(self.stream) }
            .result()
            .map_err(|e| cuda_err("cuStreamSynchronize", e, "the SM-reserving kernel failed"));
        // SAFETY: as above; nothing is queued on it any more.
        unsafe { sys::cuStreamDestroy_v2(self.stream) };
        self.gpu.reserved.store(0, Ordering::SeqCst);
        let held = DEFERRED.lock().ok().and_then(|mut g| g.take()).unwrap_or_default();
        for d in held {
            match d {
                // SAFETY: each was allocated (or loaded) by this crate and dropped once,
                // which held it back instead of freeing it.
                Deferred::Free(p) => unsafe {
                    let _ = result::free_sync(p);
                },
                Deferred::Unload(m) => unsafe {
                    let _ = result::module::unload(m as sys::CUmodule);
                },
            }
        }
        set?;
        waited?;
        let bytes = self.gpu.download(&self.flag)?;
        let expired = u32::from_le_bytes(bytes[4..8].try_into().expect("8 bytes"));
        if expired > 0 {
            return Err(RuntimeError::Usage(format!(
                "{expired} SM-reserving CTA(s) stopped at their {RESERVE_DEADLINE_S} s deadline before the reservation ended: the work beside them may have had every SM"
            )));
        }
        Ok(())
    }
}

/// A new stream that does not wait for the legacy default stream (`CU_STREAM_NON_BLOCKING`).
fn non_blocking_stream() -> Result<sys::CUstream> {
    let mut s: sys::CUstream = std::ptr::null_mut();
    // SAFETY: writes one stream handle.
    unsafe { sys::cuStreamCreate(&mut s, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) }
        .result()
        .map_err(|e| cuda_err("cuStreamCreate", e, ""))?;
    Ok(s)
}

/// Writes 1 to the 4-byte word at `flag` on a new non-blocking stream and waits for it.
fn set_flag(flag: sys::CUdeviceptr) -> Result<()> {
    let s = non_blocking_stream()?;
    // SAFETY: `flag` points at the reservation's live flag buffer; `s` was just created.
    let r = unsafe { sys::cuMemsetD32Async(flag, 1, 1, s) }
        .result()
        .map_err(|e| cuda_err("cuMemsetD32Async", e, ""))
        .and_then(|()| {
            unsafe { sys::cuStreamSynchronize(s) }.result().map_err(|e| cuda_err("cuStreamSynchronize", e, ""))
        });
    // SAFETY: created above; nothing else uses it.
    unsafe { sys::cuStreamDestroy_v2(s) };
    r
}

impl Drop for SmReservation<'_> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_ptx_declares_its_entry() {
        assert!(RESERVE_PTX.contains(&format!(".visible .entry {RESERVE_KERNEL_NAME}(")));
        // Every register used is declared: %r1..%r3, %rd1..%rd5, %p1..%p2.
        assert!(RESERVE_PTX.contains("%r<4>") && RESERVE_PTX.contains("%rd<6>") && RESERVE_PTX.contains("%p<3>"));
    }

    #[test]
    fn deferral_only_while_reserved() {
        // No reservation in this test binary's unit tests: nothing is held back.
        assert!(!defer(Deferred::Free(0)));
    }
}
