//! Reserving SMs (`Gpu::reserve_sms`): the SM count follows the reservation, work runs and
//! frees beside it, and the SMs come back. One test in its own binary: a reservation holds
//! SMs of the whole context, which other tests of the same process would share. Runs only
//! where a CUDA device is present.

use morf_runtime::{Gpu, RuntimeError, COPY_KERNEL_NAME, COPY_PTX};

#[test]
fn reserved_sms_leave_the_others_working() {
    let g = match Gpu::new(0) {
        Ok(g) => g,
        Err(RuntimeError::NoCuda(_)) => return eprintln!("skipping: no CUDA driver"),
        Err(e) => return eprintln!("skipping: {e}"),
    };
    let total = g.total_sm_count().unwrap();
    assert_eq!(g.sm_count().unwrap(), total);
    // Nothing to reserve, or nothing left: refused before any launch.
    for bad in [0, total] {
        let m = g.reserve_sms(bad).unwrap_err().to_string();
        assert!(m.contains(&format!("cannot reserve {bad} of the device's {total} SMs")), "{m}");
    }
    let k = total / 3;
    let r = g.reserve_sms(k).unwrap();
    assert_eq!((r.sms(), g.reserved_sms(), g.sm_count().unwrap()), (k, k, total - k));
    assert!(g.reserve_sms(1).unwrap_err().to_string().contains("reserved already"));
    // A copy on the SMs left, checked; its buffers and module dropped (held back) meanwhile.
    let module = g.load_ptx(COPY_PTX, &[COPY_KERNEL_NAME]).unwrap();
    let data: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    let src = g.upload(&data).unwrap();
    let dst = g.alloc_bytes(data.len()).unwrap();
    g.copy_with_kernel(&module, &src, &dst).unwrap();
    g.synchronize().unwrap();
    assert!(g.download(&dst).unwrap() == data);
    drop((src, dst, module));
    let bw = g.measure_copy_bandwidth(64 << 20, 2, 5).unwrap();
    assert!(bw.tb_per_s() > 0.0);
    r.release().unwrap();
    assert_eq!((g.reserved_sms(), g.sm_count().unwrap()), (0, total));
    // The context synchronizes again as a whole.
    g.synchronize().unwrap();
}
