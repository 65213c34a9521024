//! `morf-runtime`: the thin layer between morf and a CUDA GPU. It loads PTX text, owns
//! device buffers, launches kernels with raw pointer and integer arguments, and times work
//! with CUDA events. It knows no IR: the compiler hands it PTX text and kernel names, so
//! every other crate builds and tests without a GPU.
//!
//! The CUDA driver library is loaded at run time (cudarc's `dynamic-loading`). [`Gpu::new`]
//! checks for it first and returns [`RuntimeError::NoCuda`] when it is missing; nothing else
//! in this crate may touch the driver before a [`Gpu`] exists, because cudarc panics when a
//! driver symbol cannot be loaded.
//!
//! Every driver failure becomes a [`RuntimeError::Cuda`] naming the call, the CUDA error
//! code and, where it helps, a hint (the PTX ISA version the driver accepts, the JIT log).
//!
//! All work goes to the legacy default stream, so launches, copies and events are ordered
//! in program order; [`Gpu::synchronize`] waits for all of it and reports errors of
//! kernels that failed asynchronously. The one exception is the spinning kernel of
//! [`Gpu::reserve_sms`], on a stream of its own (module `reserve`).
#![warn(missing_docs)]

mod copy;
mod reserve;

use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{result, CudaContext, DriverError};

pub use copy::{CopyBandwidth, COPY_KERNEL_NAME, COPY_PTX};
pub use reserve::{SmReservation, RESERVE_DEADLINE_S, RESERVE_KERNEL_NAME, RESERVE_PTX};

/// Why a runtime call failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RuntimeError {
    /// No CUDA driver library on this machine: GPU work is skipped, not failed.
    #[error("{0}")]
    NoCuda(String),
    /// A CUDA driver call failed.
    #[error("{call} failed: {code}{hint}")]
    Cuda {
        /// The driver call, e.g. `cuModuleLoadData`.
        call: String,
        /// The CUDA error name, e.g. `CUDA_ERROR_INVALID_PTX`.
        code: String,
        /// Extra explanation, starting with a space (empty when there is none).
        hint: String,
    },
    /// A request the runtime rejects before calling the driver (unknown kernel, bad size).
    #[error("{0}")]
    Usage(String),
}

/// Result of a runtime call.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;

/// The message of [`RuntimeError::NoCuda`].
pub const NO_CUDA_MESSAGE: &str = "CUDA driver library not found; GPU work skipped";

/// The environment variable that hides the CUDA driver: when it is set to anything but
/// empty or `0`, [`cuda_available`] answers false and [`Gpu::new`] fails with
/// [`RuntimeError::NoCuda`], as on a machine without a driver (for tests, and to force
/// the CPU paths).
pub const NO_CUDA_ENV: &str = "MORF_NO_CUDA";

/// Whether a value of [`NO_CUDA_ENV`] hides the driver.
pub fn driver_hidden(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the CUDA driver library (`libcuda.so`) can be loaded on this machine (and is
/// not hidden by [`NO_CUDA_ENV`]).
pub fn cuda_available() -> bool {
    if driver_hidden(std::env::var_os(NO_CUDA_ENV).as_deref()) {
        return false;
    }
    // SAFETY: only tries to dlopen the library; it calls no driver function.
    unsafe { sys::is_culib_present() }
}

/// Runs `f`, turning a panic inside cudarc (it panics when the driver library lacks a
/// symbol it needs, e.g. an old driver) into a [`RuntimeError::Cuda`] for `call`.
fn guarded<T>(call: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    r.unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("unknown failure");
        Err(RuntimeError::Cuda {
            call: call.to_string(),
            code: "the CUDA driver library is unusable".into(),
            hint: format!(" ({what}; is the driver too old for CUDA 12.8?)"),
        })
    })
}

/// The CUDA error name of a driver result, e.g. `CUDA_ERROR_INVALID_PTX`. It comes from
/// the enum, not from `cuGetErrorName`, so it works even when the driver is unusable.
pub fn error_name(e: DriverError) -> String {
    format!("{:?}", e.0)
}

fn cuda_err(call: &str, e: DriverError, hint: impl Into<String>) -> RuntimeError {
    let hint = hint.into();
    RuntimeError::Cuda {
        call: call.to_string(),
        code: error_name(e),
        hint: if hint.is_empty() { hint } else { format!(" ({hint})") },
    }
}

/// The highest PTX ISA version a driver of `driver_version` (as `cuDriverGetVersion`
/// reports it, e.g. 12080 for 12.8) can JIT-compile, as `(major, minor)`.
pub fn max_ptx_isa(driver_version: i32) -> (u32, u32) {
    let major = driver_version / 1000;
    let minor = (driver_version % 1000) / 10;
    match (major, minor) {
        (13, m) => (9, m.min(9) as u32),
        (12, m) if m >= 9 => (8, 8),
        (12, 8) => (8, 7),
        (12, m) if m >= 5 => (8, 5),
        (12, m) => (8, m as u32),
        (11, m) if m >= 8 => (7, 8),
        (11, m) => (7, m as u32),
        (m, _) if m > 13 => (9, 9),
        _ => (6, 4),
    }
}

/// The `.version` directive of PTX text, e.g. `Some("8.0")`.
pub fn ptx_version(ptx: &str) -> Option<&str> {
    ptx.lines().map(str::trim).find_map(|l| l.strip_prefix(".version")).map(str::trim)
}

/// The `.target` directive of PTX text, e.g. `Some("sm_90")`.
pub fn ptx_target(ptx: &str) -> Option<&str> {
    ptx.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(".target"))
        .map(|t| t.trim().split(',').next().unwrap_or("").trim())
}

/// One kernel argument. Kernel parameters are pointers (`.param .u64` holding a global
/// address) and 64-bit integers (`index` values); both travel as 8 bytes.
#[derive(Clone, Copy, Debug)]
pub enum KernelArg<'a> {
    /// The device address of a buffer's first byte.
    Ptr(&'a DeviceBuffer),
    /// A 64-bit integer.
    U64(u64),
}

/// The 8-byte values of `args`, in order, as `cuLaunchKernel` reads them.
pub fn pack_args(args: &[KernelArg<'_>]) -> Vec<u64> {
    args.iter()
        .map(|a| match a {
            KernelArg::Ptr(b) => b.ptr,
            KernelArg::U64(v) => *v,
        })
        .collect()
}

/// How [`Gpu`] launches a kernel: plainly, plainly with its grid capped at the blocks the
/// device holds at once ([`Gpu::launch_resident`]), or cooperatively with that cap
/// ([`Gpu::launch_cooperative`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LaunchKind {
    Plain,
    Resident,
    Cooperative,
}

/// A CUDA device with its primary context; work goes to the default stream.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    /// SMs held by a live [`SmReservation`] (0: none).
    reserved: AtomicU32,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.ctx.ordinal())
    }
}

impl Gpu {
    /// Opens device `device_ordinal`. Fails with [`RuntimeError::NoCuda`] when the driver
    /// library is missing, and with [`RuntimeError::Cuda`] when there is no such device.
    pub fn new(device_ordinal: usize) -> Result<Gpu> {
        if !cuda_available() {
            return Err(RuntimeError::NoCuda(NO_CUDA_MESSAGE.to_string()));
        }
        guarded("cuInit", || {
            let count = {
                result::init()
                    .map_err(|e| cuda_err("cuInit", e, "is an NVIDIA driver installed and a GPU visible?"))?;
                result::device::get_count().map_err(|e| cuda_err("cuDeviceGetCount", e, ""))?
            };
            if device_ordinal >= count.max(0) as usize {
                return Err(RuntimeError::Usage(format!(
                    "no CUDA device {device_ordinal}: this machine has {count} device(s)"
                )));
            }
            let ctx = CudaContext::new(device_ordinal).map_err(|e| cuda_err("cuDevicePrimaryCtxRetain", e, ""))?;
            Ok(Gpu { ctx, reserved: AtomicU32::new(0) })
        })
    }

    /// The device memory `(free, total)` in bytes (`cuMemGetInfo`).
    pub fn mem_info(&self) -> Result<(usize, usize), RuntimeError> {
        self.bind()?;
        guarded("cuMemGetInfo", || result::mem_get_info().map_err(|e| cuda_err("cuMemGetInfo", e, "")))
    }

    fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(|e| cuda_err("cuCtxSetCurrent", e, ""))
    }

    /// The device's name, e.g. `NVIDIA H200`.
    pub fn device_name(&self) -> Result<String> {
        self.ctx.name().map_err(|e| cuda_err("cuDeviceGetName", e, ""))
    }

    /// The number of streaming multiprocessors work may run on: the device's, less those a
    /// live [`SmReservation`] holds.
    pub fn sm_count(&self) -> Result<u32> {
        Ok(self.total_sm_count()? - self.reserved_sms())
    }

    /// The device's streaming multiprocessors, reserved or not.
    pub fn total_sm_count(&self) -> Result<u32> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    }

    /// The SMs a live [`SmReservation`] holds (0: none).
    pub fn reserved_sms(&self) -> u32 {
        self.reserved.load(Ordering::SeqCst)
    }

    /// A device attribute.
    fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<u32> {
        self.ctx
            .attribute(attr)
            .map(|n| n.max(0) as u32)
            .map_err(|e| cuda_err(&format!("cuDeviceGetAttribute({attr:?})"), e, ""))
    }

    /// The compute capability, e.g. `(9, 0)`.
    pub fn compute_capability(&self) -> Result<(i32, i32)> {
        self.ctx.compute_capability().map_err(|e| cuda_err("cuDeviceGetAttribute(COMPUTE_CAPABILITY)", e, ""))
    }

    /// The driver's CUDA version, e.g. 12080 for 12.8.
    pub fn driver_version(&self) -> Result<i32> {
        let mut v = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut v) }.result().map_err(|e| cuda_err("cuDriverGetVersion", e, ""))?;
        Ok(v)
    }

    /// JIT-compiles `ptx` and looks up each of `kernel_names` (`.entry` names).
    pub fn load_ptx(&self, ptx: &str, kernel_names: &[&str]) -> Result<Module> {
        self.bind()?;
        let src = CString::new(ptx).map_err(|_| RuntimeError::Usage("PTX text contains a NUL byte".into()))?;
        const LOG: usize = 16 * 1024;
        let mut error_log = vec![0u8; LOG];
        let mut info_log = vec![0u8; LOG];
        // Verbose: the info log then has ptxas' register and spill lines for each kernel.
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
            sys::CUjit_option::CU_JIT_LOG_VERBOSE,
        ];
        let mut values: [*mut c_void; 5] = [
            error_log.as_mut_ptr().cast(),
            LOG as *mut c_void,
            info_log.as_mut_ptr().cast(),
            LOG as *mut c_void,
            // CU_JIT_LOG_VERBOSE takes its value (1: on) in the pointer slot.
            std::ptr::without_provenance_mut(1),
        ];
        let mut raw: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: the option values point at live buffers of the sizes given.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                &mut raw,
                src.as_ptr().cast(),
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        if let Err(e) = r.result() {
            let log = c_log(&error_log);
            let mut hint = String::new();
            if matches!(e.0, sys::CUresult::CUDA_ERROR_INVALID_PTX | sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
            {
                let (maj, min) = self.driver_version().map(max_ptx_isa).unwrap_or((0, 0));
                hint = format!(
                    "check the PTX version: the driver supports up to PTX ISA {maj}.{min}; this PTX has .version {} .target {}",
                    ptx_version(ptx).unwrap_or("?"),
                    ptx_target(ptx).unwrap_or("?")
                );
            }
            let mut err = cuda_err("cuModuleLoadDataEx", e, hint);
            if !log.is_empty() {
                if let RuntimeError::Cuda { hint, .. } = &mut err {
                    hint.push_str(&format!("\nJIT log:\n{log}"));
                }
            }
            return Err(err);
        }
        let mut module = Module { raw, functions: Vec::new(), ctx: self.ctx.clone(), jit_log: c_log(&info_log) };
        for &name in kernel_names {
            let c = CString::new(name).map_err(|_| RuntimeError::Usage(format!("bad kernel name '{name}'")))?;
            // SAFETY: `raw` is a loaded module.
            let f = unsafe { result::module::get_function(raw, c) }.map_err(|e| {
                cuda_err(
                    &format!("cuModuleGetFunction('{name}')"),
                    e,
                    if e.0 == sys::CUresult::CUDA_ERROR_NOT_FOUND {
                        format!("the PTX has no '.entry {name}'")
                    } else {
                        String::new()
                    },
                )
            })?;
            // The kernel's static shared memory, which counts toward the 48 KiB a launch may
            // take without opting in to more dynamic shared memory ([`Gpu::launch`]); its
            // registers a thread and local memory a thread, for reports.
            let attribute = |attr: sys::CUfunction_attribute, what: &str| -> Result<u64> {
                let mut v: i32 = 0;
                // SAFETY: `f` belongs to the loaded module; the out-pointer is a live i32.
                unsafe { sys::cuFuncGetAttribute(&mut v, attr, f) }
                    .result()
                    .map_err(|e| cuda_err(&format!("cuFuncGetAttribute({what})"), e, format!("kernel '{name}'")))?;
                Ok(v.max(0) as u64)
            };
            use sys::CUfunction_attribute as A;
            let static_shared = attribute(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES")?;
            let registers = attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS")?;
            let local_bytes = attribute(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES")?;
            module.functions.push((
                f,
                KernelResources { name: name.to_string(), registers, local_bytes, static_shared_bytes: static_shared },
            ));
        }
        Ok(module)
    }

    /// A device buffer of `bytes` bytes with undefined contents.
    pub fn alloc_bytes(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.bind()?;
        // cuMemAlloc rejects 0 bytes; an empty buffer still gets a valid address.
        // SAFETY: plain allocation.
        let ptr = unsafe { result::malloc_sync(bytes.max(1)) }.map_err(|e| {
            cuda_err(
                "cuMemAlloc",
                e,
                if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                    oom_hint(bytes, result::mem_get_info().ok())
                } else {
                    String::new()
                },
            )
        })?;
        Ok(DeviceBuffer { ptr, bytes, ctx: self.ctx.clone() })
    }

    /// A device buffer holding a copy of `data`.
    pub fn upload(&self, data: &[u8]) -> Result<DeviceBuffer> {
        let buf = self.alloc_bytes(data.len())?;
        self.write(&buf, data)?;
        Ok(buf)
    }

    /// Copies `data` into the start of `buf` (which must be at least as large).
    pub fn write(&self, buf: &DeviceBuffer, data: &[u8]) -> Result<()> {
        if data.len() > buf.bytes {
            return Err(RuntimeError::Usage(format!(
                "cannot write {} bytes into a device buffer of {} bytes",
                data.len(),
                buf.bytes
            )));
        }
        if data.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: the destination holds at least data.len() bytes.
        unsafe { result::memcpy_htod_sync(buf.ptr, data) }.map_err(|e| cuda_err("cuMemcpyHtoD", e, ""))
    }

    /// Sets every byte of `buf` to `value`.
    pub fn memset(&self, buf: &DeviceBuffer, value: u8) -> Result<()> {
        if buf.bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: within the buffer.
        unsafe { result::memset_d8_sync(buf.ptr, value, buf.bytes) }.map_err(|e| cuda_err("cuMemsetD8", e, ""))
    }

    /// Sets the first `count` 2-byte words of `buf` to `value`, on the default stream
    /// (ordered with launches and timed by events, unlike an upload).
    pub fn fill_u16(&self, buf: &DeviceBuffer, value: u16, count: usize) -> Result<()> {
        check_fill(buf, count, 2)?;
        if count == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: within the buffer (checked above).
        unsafe { sys::cuMemsetD16Async(buf.ptr, value, count, std::ptr::null_mut()) }
            .result()
            .map_err(|e| cuda_err("cuMemsetD16Async", e, ""))
    }

    /// Sets the first `count` 4-byte words of `buf` to `value`, on the default stream.
    pub fn fill_u32(&self, buf: &DeviceBuffer, value: u32, count: usize) -> Result<()> {
        check_fill(buf, count, 4)?;
        if count == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: within the buffer (checked above).
        unsafe { sys::cuMemsetD32Async(buf.ptr, value, count, std::ptr::null_mut()) }
            .result()
            .map_err(|e| cuda_err("cuMemsetD32Async", e, ""))
    }

    /// The contents of `buf` (waits for earlier work on the default stream).
    pub fn download(&self, buf: &DeviceBuffer) -> Result<Vec<u8>> {
        let mut out = vec![0u8; buf.bytes];
        if buf.bytes == 0 {
            return Ok(out);
        }
        self.bind()?;
        // SAFETY: the source holds buf.bytes bytes.
        unsafe { result::memcpy_dtoh_sync(&mut out, buf.ptr) }.map_err(|e| {
            cuda_err("cuMemcpyDtoH", e, "a kernel launched earlier may have failed; errors of kernels surface here")
        })?;
        Ok(out)
    }

    /// Launches kernel `name` of `module` on a 1-D grid of `grid` blocks of `block` threads
    /// with `shared_bytes` of dynamic shared memory. A launch of zero blocks does nothing
    /// (CUDA would reject it; an empty iteration space has no work). Asynchronous: errors
    /// inside the kernel show up at the next [`Gpu::synchronize`] or download.
    pub fn launch(
        &self,
        module: &Module,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KernelArg<'_>],
    ) -> Result<()> {
        self.launch_with(module, name, grid, block, shared_bytes, args, LaunchKind::Plain).map(|_| ())
    }

    /// Launches kernel `name` like [`Gpu::launch`], but cooperatively
    /// (`cuLaunchCooperativeKernel`): all its blocks are resident at once, so they may wait
    /// for each other (a grid barrier). The grid is capped at the blocks that fit on the
    /// device at once (the occupancy of `block` threads and `shared_bytes`, times the SMs);
    /// the kernel must cover its work with any number of blocks. Returns the grid launched.
    pub fn launch_cooperative(
        &self,
        module: &Module,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KernelArg<'_>],
    ) -> Result<u32> {
        self.launch_with(module, name, grid, block, shared_bytes, args, LaunchKind::Cooperative)
    }

    /// Launches kernel `name` plainly (`cuLaunchKernel`) with its grid capped, as
    /// [`Gpu::launch_cooperative`] caps it, at the blocks the device holds at once: a kernel
    /// whose last blocks wait for the others (a grid tail) needs those others resident or
    /// running to completion, and the cap keeps the launch to one wave. Returns the grid
    /// launched.
    pub fn launch_resident(
        &self,
        module: &Module,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KernelArg<'_>],
    ) -> Result<u32> {
        self.launch_with(module, name, grid, block, shared_bytes, args, LaunchKind::Resident)
    }

    /// The blocks of `block` threads and `shared_bytes` of dynamic shared memory of kernel
    /// `name` that the device holds at once (occupancy per SM times the SMs).
    pub fn resident_blocks(&self, module: &Module, name: &str, block: u32, shared_bytes: u32) -> Result<u32> {
        let (f, static_shared) = module.function(name)?;
        self.bind()?;
        self.opt_in_shared(f, name, shared_bytes, static_shared)?;
        self.resident(f, name, block, shared_bytes)
    }

    /// The blocks of kernel `name` launched in clusters of `cluster` CTAs (its own
    /// `.reqnctapercluster`) that the device holds at once: `cuOccupancyMaxActiveClusters`
    /// times `cluster` (a cluster's CTAs share one GPC, so fewer clusters may fit than the
    /// per-SM occupancy suggests). `cluster <= 1` is [`Gpu::resident_blocks`].
    pub fn resident_cluster_blocks(
        &self,
        module: &Module,
        name: &str,
        block: u32,
        shared_bytes: u32,
        cluster: u32,
    ) -> Result<u32> {
        if cluster <= 1 {
            return self.resident_blocks(module, name, block, shared_bytes);
        }
        let (f, static_shared) = module.function(name)?;
        self.bind()?;
        self.opt_in_shared(f, name, shared_bytes, static_shared)?;
        // SAFETY: plain data; every field is set below or is zero (no stream, one attribute).
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = cluster;
        attr.value.clusterDim.y = 1;
        attr.value.clusterDim.z = 1;
        let cfg = sys::CUlaunchConfig {
            gridDimX: cluster * self.sm_count()?.max(1),
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: shared_bytes,
            hStream: std::ptr::null_mut(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        let mut n: std::ffi::c_int = 0;
        // SAFETY: `f` belongs to a live module; `cfg` and `attr` outlive the call.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f, &cfg) }
            .result()
            .map_err(|e| cuda_err("cuOccupancyMaxActiveClusters", e, format!("kernel '{name}'")))?;
        // The occupancy API counts every SM: scaled to those not reserved.
        let (total, free) = (self.total_sm_count()?.max(1), self.sm_count()?);
        Ok(n.max(0) as u32 * free / total * cluster)
    }

    /// [`Gpu::resident_blocks`] of a function already looked up and opted in.
    fn resident(&self, f: sys::CUfunction, name: &str, block: u32, shared_bytes: u32) -> Result<u32> {
        // SAFETY: `f` belongs to a live module.
        let per_sm =
            unsafe { result::occupancy::max_active_block_per_multiprocessor(f, block as i32, shared_bytes as usize) }
                .map_err(|e| cuda_err("cuOccupancyMaxActiveBlocksPerMultiprocessor", e, format!("kernel '{name}'")))?;
        Ok(per_sm.max(0) as u32 * self.sm_count()?)
    }

    /// Opts kernel `f` in to `shared_bytes` of dynamic shared memory where that and its
    /// static shared memory exceed the default 48 KiB.
    fn opt_in_shared(&self, f: sys::CUfunction, name: &str, shared_bytes: u32, static_shared: u64) -> Result<()> {
        if shared_bytes as u64 + static_shared <= 48 * 1024 {
            return Ok(());
        }
        // SAFETY: `f` belongs to a live module.
        unsafe {
            sys::cuFuncSetAttribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_bytes as i32,
            )
        }
        .result()
        .map_err(|e| {
            cuda_err(
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                e,
                format!(
                    "'{name}' asks for {shared_bytes} bytes of dynamic shared memory beside {static_shared} static ({} in all)",
                    shared_bytes as u64 + static_shared
                ),
            )
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_with(
        &self,
        module: &Module,
        name: &str,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[KernelArg<'_>],
        kind: LaunchKind,
    ) -> Result<u32> {
        let cooperative = kind == LaunchKind::Cooperative;
        let (f, static_shared) = module.function(name)?;
        if block == 0 {
            return Err(RuntimeError::Usage(format!("launch of '{name}' with 0 threads per block")));
        }
        if grid == 0 {
            return Ok(0);
        }
        self.bind()?;
        // The kernel's static shared memory (read at load time) counts against the same 48 KiB.
        self.opt_in_shared(f, name, shared_bytes, static_shared)?;
        let grid = if kind != LaunchKind::Plain {
            let fits = self.resident(f, name, block, shared_bytes)?;
            if fits == 0 {
                let how = if cooperative { "cooperative launch" } else { "launch" };
                return Err(RuntimeError::Usage(format!(
                    "{how} of '{name}': not one block of {block} threads and {shared_bytes} bytes of \
                     shared memory fits on an SM"
                )));
            }
            grid.min(fits)
        } else {
            grid
        };
        let mut values = pack_args(args);
        let mut params: Vec<*mut c_void> = values.iter_mut().map(|v| (v as *mut u64).cast()).collect();
        let what = if cooperative { "cuLaunchCooperativeKernel" } else { "cuLaunchKernel" };
        // SAFETY: each parameter points at an 8-byte value that lives until the call
        // returns (the driver copies parameters at launch).
        unsafe {
            if cooperative {
                result::launch_cooperative_kernel(
                    f,
                    (grid, 1, 1),
                    (block, 1, 1),
                    shared_bytes,
                    std::ptr::null_mut(),
                    &mut params,
                )
            } else {
                result::launch_kernel(f, (grid, 1, 1), (block, 1, 1), shared_bytes, std::ptr::null_mut(), &mut params)
            }
        }
        .map_err(|e| {
            cuda_err(
                &format!("{what}('{name}', grid {grid}, block {block}, shared {shared_bytes})"),
                e,
                match e.0 {
                    sys::CUresult::CUDA_ERROR_INVALID_VALUE => "check the block size and the argument count",
                    sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES => {
                        "too many registers or too much shared memory for this block size"
                    }
                    sys::CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE => {
                        "more blocks than fit on the device at once"
                    }
                    _ => "",
                },
            )
        })?;
        Ok(grid)
    }

    /// Waits for all work (while SMs are reserved, all work of the default stream: not the
    /// spinning kernel); reports the error of a kernel that failed asynchronously.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        if self.reserved_sms() > 0 {
            // SAFETY: the legacy default stream.
            return unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) }
                .result()
                .map_err(|e| cuda_err("cuStreamSynchronize", e, "a kernel launched earlier failed"));
        }
        result::ctx::synchronize().map_err(|e| cuda_err("cuCtxSynchronize", e, "a kernel launched earlier failed"))
    }

    /// Times `runs` calls of `call` as `triton.testing.do_bench` times a function: before
    /// each call an asynchronous memset of `flush_bytes` evicts the L2 cache, then the call's
    /// GPU work runs between its own pair of events; the host queues every call and waits
    /// only once, at the end. Returns each call's time in microseconds, in call order. `call`
    /// enqueues its work (it must not wait for the GPU, or the figures hold that wait).
    pub fn time_flushed<E: From<RuntimeError>>(
        &self,
        runs: usize,
        flush_bytes: usize,
        mut call: impl FnMut() -> std::result::Result<(), E>,
    ) -> std::result::Result<Vec<f64>, E> {
        let flush = self.alloc_bytes(flush_bytes / 4 * 4)?;
        let events = (0..runs).map(|_| self.event_pair()).collect::<Result<Vec<_>>>()?;
        for ev in &events {
            self.fill_u32(&flush, 0, flush_bytes / 4)?;
            ev.record_start()?;
            call()?;
            ev.record_end()?;
        }
        Ok(events.iter().map(|ev| Ok(ev.elapsed_ms()? as f64 * 1e3)).collect::<Result<Vec<_>>>()?)
    }

    /// A start/end pair of events with timing enabled.
    pub fn event_pair(&self) -> Result<EventPair> {
        self.bind()?;
        let mk = || {
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(|e| cuda_err("cuEventCreate", e, ""))
        };
        let start = mk()?;
        let end = match mk() {
            Ok(e) => e,
            Err(err) => {
                // SAFETY: `start` was just created.
                let _ = unsafe { result::event::destroy(start) };
                return Err(err);
            }
        };
        Ok(EventPair { start, end, ctx: self.ctx.clone() })
    }

    /// Runs `f` between two events and returns the GPU time it took, in milliseconds
    /// (waits for the work to finish).
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f32> {
        let ev = self.event_pair()?;
        ev.record_start()?;
        f()?;
        ev.record_end()?;
        ev.elapsed_ms()
    }
}

/// The hint of a failed allocation of `bytes`: how much the device has free.
fn oom_hint(bytes: usize, info: Option<(usize, usize)>) -> String {
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    match info {
        Some((free, total)) => format!(
            "GPU out of memory: {bytes} bytes ({:.1} MiB) requested, {:.1} MiB free of {:.1} MiB",
            mib(bytes),
            mib(free),
            mib(total)
        ),
        None => format!("GPU out of memory: {bytes} bytes ({:.1} MiB) requested", mib(bytes)),
    }
}

fn check_fill(buf: &DeviceBuffer, count: usize, width: usize) -> Result<()> {
    if count.checked_mul(width).is_none_or(|n| n > buf.bytes) {
        return Err(RuntimeError::Usage(format!(
            "cannot fill {count} {width}-byte words of a device buffer of {} bytes",
            buf.bytes
        )));
    }
    Ok(())
}

fn c_log(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).trim().to_string()
}

/// What one loaded kernel takes, as the driver's JIT compiled it (`cuFuncGetAttribute`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelResources {
    /// The kernel's `.entry` name.
    pub name: String,
    /// Registers a thread.
    pub registers: u64,
    /// Local memory a thread, in bytes: register spills and the stack frame.
    pub local_bytes: u64,
    /// Static shared memory, in bytes.
    pub static_shared_bytes: u64,
}

/// A loaded PTX module and the kernels looked up in it.
pub struct Module {
    raw: sys::CUmodule,
    /// Each kernel looked up at load time: its handle and what it takes.
    functions: Vec<(sys::CUfunction, KernelResources)>,
    ctx: Arc<CudaContext>,
    jit_log: String,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("kernels", &self.kernel_names()).finish()
    }
}

impl Module {
    /// The kernel `name`: its handle and its static shared memory in bytes.
    fn function(&self, name: &str) -> Result<(sys::CUfunction, u64)> {
        self.functions.iter().find(|(_, k)| k.name == name).map(|(f, k)| (*f, k.static_shared_bytes)).ok_or_else(|| {
            RuntimeError::Usage(format!(
                "kernel '{name}' was not loaded (loaded: {})",
                if self.functions.is_empty() { "none".to_string() } else { self.kernel_names().join(", ") }
            ))
        })
    }

    /// The kernels looked up at load time.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.functions.iter().map(|(_, k)| k.name.as_str()).collect()
    }

    /// What each kernel looked up at load time takes, as the driver compiled it: registers a
    /// thread, local memory a thread (spills and stack), static shared memory.
    pub fn kernel_resources(&self) -> Vec<KernelResources> {
        self.functions.iter().map(|(_, k)| k.clone()).collect()
    }

    /// The JIT compiler's info log: ptxas' lines (verbose), with each kernel's registers and
    /// spills.
    pub fn jit_log(&self) -> &str {
        &self.jit_log
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if reserve::defer(reserve::Deferred::Unload(self.raw as usize)) {
            return;
        }
        let _ = self.ctx.bind_to_thread();
        // SAFETY: loaded by us, unloaded once.
        let _ = unsafe { result::module::unload(self.raw) };
    }
}

/// Device memory owned by the runtime; freed on drop.
pub struct DeviceBuffer {
    ptr: sys::CUdeviceptr,
    bytes: usize,
    ctx: Arc<CudaContext>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({:#x}, {} bytes)", self.ptr, self.bytes)
    }
}

impl DeviceBuffer {
    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.bytes
    }
    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
    /// The device address of the first byte.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if reserve::defer(reserve::Deferred::Free(self.ptr)) {
            return;
        }
        let _ = self.ctx.bind_to_thread();
        // SAFETY: allocated by us, freed once. cuMemFree waits for pending work using it.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Two CUDA events with timing enabled: record the start, enqueue work, record the end,
/// then read the elapsed time.
pub struct EventPair {
    start: sys::CUevent,
    end: sys::CUevent,
    ctx: Arc<CudaContext>,
}

impl EventPair {
    /// Records the start event on the default stream.
    pub fn record_start(&self) -> Result<()> {
        // SAFETY: a live event of this context.
        unsafe { result::event::record(self.start, std::ptr::null_mut()) }.map_err(|e| cuda_err("cuEventRecord", e, ""))
    }
    /// Records the end event on the default stream.
    pub fn record_end(&self) -> Result<()> {
        // SAFETY: a live event of this context.
        unsafe { result::event::record(self.end, std::ptr::null_mut()) }.map_err(|e| cuda_err("cuEventRecord", e, ""))
    }
    /// Waits for the end event and returns the time between the two, in milliseconds.
    pub fn elapsed_ms(&self) -> Result<f32> {
        // SAFETY: live events.
        unsafe { result::event::synchronize(self.end) }
            .map_err(|e| cuda_err("cuEventSynchronize", e, "a kernel between the events failed"))?;
        // SAFETY: live events, both recorded and complete.
        unsafe { result::event::elapsed(self.start, self.end) }.map_err(|e| cuda_err("cuEventElapsedTime", e, ""))
    }
}

impl Drop for EventPair {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: created by us, destroyed once.
        unsafe {
            let _ = result::event::destroy(self.start);
            let _ = result::event::destroy(self.end);
        }
    }
}

/// The median of `samples` (the mean of the middle two for an even count); NaN if empty.
pub fn median(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_name_call_and_code() {
        let e =
            cuda_err("cuModuleLoadData", DriverError(sys::CUresult::CUDA_ERROR_INVALID_PTX), "check the PTX version");
        assert_eq!(e.to_string(), "cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (check the PTX version)");
        let e = cuda_err("cuCtxSynchronize", DriverError(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS), "");
        assert_eq!(e.to_string(), "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
        assert_eq!(RuntimeError::NoCuda(NO_CUDA_MESSAGE.into()).to_string(), NO_CUDA_MESSAGE);
    }

    #[test]
    fn no_cuda_is_reported_not_panicked() {
        match Gpu::new(0) {
            Err(RuntimeError::NoCuda(m)) => {
                assert!(!cuda_available());
                assert_eq!(m, NO_CUDA_MESSAGE)
            }
            // On a machine with a driver: either a device or a clear driver error.
            Ok(_) | Err(RuntimeError::Cuda { .. }) | Err(RuntimeError::Usage(_)) => assert!(cuda_available()),
        }
    }

    #[test]
    fn hidden_driver() {
        use std::ffi::OsStr;
        assert!(!driver_hidden(None));
        assert!(!driver_hidden(Some(OsStr::new(""))));
        assert!(!driver_hidden(Some(OsStr::new("0"))));
        assert!(driver_hidden(Some(OsStr::new("1"))));
    }

    #[test]
    fn out_of_memory_hint() {
        let e = cuda_err(
            "cuMemAlloc",
            DriverError(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            oom_hint(3 << 30, Some((1 << 30, 80 << 30))),
        );
        assert_eq!(
            e.to_string(),
            "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (GPU out of memory: 3221225472 bytes (3072.0 MiB) requested, 1024.0 MiB free of 81920.0 MiB)"
        );
    }

    #[test]
    fn panics_in_the_driver_layer_become_errors() {
        let r: Result<()> = guarded("cuFoo", || panic!("Expected function \"cuFoo\" in library"));
        let m = r.unwrap_err().to_string();
        assert!(m.starts_with("cuFoo failed: the CUDA driver library is unusable"), "{m}");
        assert!(m.contains("Expected function"), "{m}");
        assert_eq!(guarded("cuBar", || Ok(3)), Ok(3));
    }

    #[test]
    fn ptx_isa_table() {
        assert_eq!(max_ptx_isa(12080), (8, 7));
        assert_eq!(max_ptx_isa(12040), (8, 4));
        assert_eq!(max_ptx_isa(12060), (8, 5));
        assert_eq!(max_ptx_isa(12090), (8, 8));
        assert_eq!(max_ptx_isa(13000), (9, 0));
        assert_eq!(max_ptx_isa(11080), (7, 8));
    }

    #[test]
    fn ptx_directives() {
        assert_eq!(ptx_version(COPY_PTX), Some("7.0"));
        assert_eq!(ptx_target(COPY_PTX), Some("sm_70"));
        assert_eq!(ptx_target(".version 8.0\n.target sm_90a, debug\n"), Some("sm_90a"));
        assert_eq!(ptx_version("// nothing"), None);
    }

    #[test]
    fn arg_packing() {
        assert_eq!(pack_args(&[KernelArg::U64(7), KernelArg::U64(u64::MAX)]), vec![7, u64::MAX]);
        assert!(pack_args(&[]).is_empty());
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
