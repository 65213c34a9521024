//! A large run through the library entry point: RMSNorm backward at 4096 x 4096 with
//! generated inputs, to show that the interpreter handles a realistic size (and how
//! long it takes). About 16.8M elements per tensor; slow in debug builds, so it runs
//! only in release (`cargo test -p morf-engine --release`) or when asked (`--ignored`).

use std::path::PathBuf;
use std::time::Instant;

#[test]
#[cfg_attr(debug_assertions, ignore = "slow in debug builds; run with --release")]
fn rmsnorm_bwd_4096x4096_random() {
    let example = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/rmsnorm_bwd.mlir");
    let text = std::fs::read_to_string(&example).expect("examples/rmsnorm_bwd.mlir");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("morf-run-large");
    let opts = morf_engine::RunOptions {
        random: Some(vec![("M".into(), 4096), ("N".into(), 4096)]),
        output_dir: out.clone(),
        ..Default::default()
    };
    let t0 = Instant::now();
    let report =
        morf_engine::run_source(&example.display().to_string(), &text, &opts).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "rmsnorm_bwd 4096x4096: interpreter {:.2} s, total {:.2} s",
        report.run_time.as_secs_f64(),
        t0.elapsed().as_secs_f64()
    );
    assert_eq!(report.results.len(), 2);
    assert_eq!(report.results[0].shape, vec![4096, 4096]);
    assert_eq!(report.results[1].shape, vec![4096]);
    let dw = morf_engine::npy::read_npy(&out.join("result1.npy")).expect("result1.npy");
    assert!(dw.data.iter().all(|v| v.is_finite()), "dw has non-finite values");
    assert!(dw.data.iter().any(|v| *v != 0.0), "dw is all zeros");
}
