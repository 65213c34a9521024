//! GPU failures are clear errors, never panics: device out of memory, a bad PTX module
//! (with the JIT's log), a failing launch (its kernel named), and `mem_info`. Each test
//! runs only where a CUDA device is present; elsewhere it checks the "no GPU" error.

use morf_runtime::{Gpu, KernelArg, RuntimeError, COPY_KERNEL_NAME, COPY_PTX};

/// The GPU, or `None` (after checking the missing-driver error) without one.
fn gpu() -> Option<Gpu> {
    match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(RuntimeError::NoCuda(m)) => {
            assert_eq!(m, morf_runtime::NO_CUDA_MESSAGE);
            eprintln!("skipping: no CUDA driver");
            None
        }
        Err(e) => {
            // A driver without a usable device: still an error, not a panic.
            eprintln!("skipping: {e}");
            None
        }
    }
}

#[test]
fn mem_info_is_free_and_total() {
    let Some(g) = gpu() else { return };
    let (free, total) = g.mem_info().unwrap();
    assert!(free > 0 && free <= total, "free {free} total {total}");
    let b = g.alloc_bytes(64 << 20).unwrap();
    let (free2, _) = g.mem_info().unwrap();
    assert!(free2 < free, "a 64 MiB buffer should lower the free memory ({free} -> {free2})");
    drop(b);
}

#[test]
fn out_of_memory_is_an_error() {
    let Some(g) = gpu() else { return };
    let (_, total) = g.mem_info().unwrap();
    let e = g.alloc_bytes(total * 2).unwrap_err();
    let m = e.to_string();
    assert!(m.starts_with("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (GPU out of memory: "), "{m}");
    assert!(m.contains("free of"), "{m}");
    // The device still works afterwards.
    assert!(g.alloc_bytes(1 << 20).is_ok());
}

#[test]
fn bad_ptx_reports_the_jit_log() {
    let Some(g) = gpu() else { return };
    let bad = COPY_PTX.replace("ld.global.nc.v4.u32", "ld.global.bogus.v4.u32");
    let m = g.load_ptx(&bad, &[COPY_KERNEL_NAME]).unwrap_err().to_string();
    assert!(m.starts_with("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX"), "{m}");
    assert!(m.contains("JIT log:") && m.contains("bogus"), "{m}");
    let m = g.load_ptx(COPY_PTX, &["no_such_kernel"]).unwrap_err().to_string();
    assert!(m.contains("no_such_kernel") && m.contains("CUDA_ERROR_NOT_FOUND"), "{m}");
}

#[test]
fn launch_failures_name_the_kernel() {
    let Some(g) = gpu() else { return };
    let module = g.load_ptx(COPY_PTX, &[COPY_KERNEL_NAME]).unwrap();
    let buf = g.alloc_bytes(1 << 12).unwrap();
    // 4096 threads per block is over every GPU's limit.
    let args = [KernelArg::Ptr(&buf), KernelArg::Ptr(&buf), KernelArg::U64(0)];
    let m = g.launch(&module, COPY_KERNEL_NAME, 1, 4096, 0, &args).unwrap_err().to_string();
    assert!(m.starts_with(&format!("cuLaunchKernel('{COPY_KERNEL_NAME}', grid 1, block 4096")), "{m}");
    assert!(m.contains("CUDA_ERROR_"), "{m}");
    let m = g.launch(&module, "missing", 1, 32, 0, &args).unwrap_err().to_string();
    assert!(m.contains("kernel 'missing' was not loaded"), "{m}");
}
