//! Without a CUDA driver, morf-bench parses and verifies its input, then prints
//! "skipped" and exits 0, so scripts and CI can call it anywhere.

use std::process::Command;

#[test]
fn skips_without_cuda() {
    if morf_runtime::cuda_available() {
        eprintln!("a CUDA driver is present; this test covers machines without one");
        return;
    }
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir");
    let out = Command::new(env!("CARGO_BIN_EXE_morf-bench"))
        .args([file, "--sizes", "M=64,N=32", "--runs", "3"])
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), "morf-bench: skipped: CUDA driver library not found; GPU work skipped");
}

#[test]
fn bad_input_fails_even_without_cuda() {
    let out = Command::new(env!("CARGO_BIN_EXE_morf-bench"))
        .args(["/no/such/file.mlir", "--sizes", "M=64"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("morf-bench: error: cannot read /no/such/file.mlir"));
}

#[test]
fn stdout_write_errors_fail() {
    if morf_runtime::cuda_available() {
        eprintln!("a CUDA driver is present; this test covers machines without one");
        return;
    }
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir");
    let out = Command::new(env!("CARGO_BIN_EXE_morf-bench"))
        .args([file, "--sizes", "M=64,N=32"])
        .stdout(full)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("morf-bench: error: cannot write output"));
}
