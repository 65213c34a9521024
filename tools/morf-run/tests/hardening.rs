//! morf-run never crashes and never loses data (issue 8): the binary is run on the
//! inputs that used to abort it or destroy files, and must end in a diagnostic and exit
//! code 1 (or succeed), with no panic and no old result touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const TWO_RESULTS: &str = r#"
func.func @two(%x: tensor<?xf32> {morf.dims = ["N"]}) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = mtensor.neg %x : tensor<?xf32>
  return %x, %y : tensor<?xf32>, tensor<?xf32>
}
"#;

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("hardening-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn morf_run() -> Command {
    Command::new(env!("CARGO_BIN_EXE_morf-run"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name).display().to_string()
}

fn run(args: &[&str]) -> Output {
    morf_run().args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_clean_failure(o: &Output) {
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(o));
    assert!(!stderr(o).contains("panicked"), "{}", stderr(o));
}

fn write_ir(dir: &Path) -> String {
    let p = dir.join("two.mlir");
    std::fs::write(&p, TWO_RESULTS).unwrap();
    p.display().to_string()
}

#[test]
fn a_failed_write_leaves_the_old_result_set() {
    let d = scratch("staged");
    let ir = write_ir(&d);
    let out = d.join("out");
    let o = run(&[&ir, "--random", "N=8", "--seed", "1", "--output-dir", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let old0 = std::fs::read(out.join("result0.npy")).unwrap();
    // result1.npy cannot be replaced: a folder is in its way.
    std::fs::remove_file(out.join("result1.npy")).unwrap();
    std::fs::create_dir(out.join("result1.npy")).unwrap();
    let o = run(&[&ir, "--random", "N=8", "--seed", "2", "--output-dir", out.to_str().unwrap()]);
    assert_clean_failure(&o);
    let want = format!("morf-run: error: cannot write '{}': ", out.join("result1.npy").display());
    assert!(stderr(&o).starts_with(&want), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("result0.npy")).unwrap(), old0, "result0.npy was replaced");
    // And no temporary file is left.
    let names: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.contains("tmp")), "{names:?}");
}

#[cfg(unix)]
#[test]
fn a_link_named_result0_is_replaced_not_followed() {
    let d = scratch("symlink");
    let ir = write_ir(&d);
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let target = d.join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    std::os::unix::fs::symlink(&target, out.join("result0.npy")).unwrap();
    let o = run(&[&ir, "--random", "N=8", "--output-dir", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    let md = std::fs::symlink_metadata(out.join("result0.npy")).unwrap();
    assert!(md.file_type().is_file());
    assert_eq!(morf_engine::npy::read_npy(&out.join("result0.npy")).unwrap().shape, [8]);
}

#[test]
fn output_errors_are_diagnostics() {
    let d = scratch("stdout");
    let ir = write_ir(&d);
    let out = d.join("out");
    // A full standard output.
    if Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = morf_run()
            .args([&ir, "--random", "N=8", "--output-dir", out.to_str().unwrap()])
            .stdout(full)
            .output()
            .unwrap();
        assert_clean_failure(&o);
        assert!(stderr(&o).contains("cannot write to standard output"), "{}", stderr(&o));
        // A full standard error, with log lines (-v) going there.
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = morf_run()
            .args([&ir, "--random", "N=8", "-v", "--output-dir", out.to_str().unwrap()])
            .stderr(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0));
        // /dev/full as the output folder.
        let o = run(&[&ir, "--random", "N=8", "--output-dir", "/dev/full"]);
        assert_clean_failure(&o);
        assert!(stderr(&o).contains("cannot write '/dev/full/result0.npy'"), "{}", stderr(&o));
    }
    // A reader that went away: exit 1 quietly, or 0 if the text fit in the pipe first.
    let mut child = morf_run()
        .args([&ir, "--random", "N=8", "--output-dir", out.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert!(matches!(o.status.code(), Some(0 | 1)), "{:?} {}", o.status, stderr(&o));
    assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
}

#[test]
fn memory_over_the_limit_is_refused_before_allocating() {
    let d = scratch("memory");
    let rms = example("rmsnorm_bwd.mlir");
    let o = run(&[&rms, "--random", "M=100000,N=10000", "--max-memory", "100M", "--output-dir", d.to_str().unwrap()]);
    assert_clean_failure(&o);
    let e = stderr(&o);
    assert!(e.starts_with("morf-run: error: this run needs about "), "{e}");
    assert!(e.contains("more than the limit of 100.0 MiB (--max-memory)"), "{e}");
    // A small run under a small limit works.
    let o = run(&[&rms, "--random", "M=8,N=8", "--max-memory", "16M", "--output-dir", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[&rms, "--random", "M=8,N=8", "--max-memory", "lots"]);
    assert_clean_failure(&o);
    assert!(stderr(&o).contains("--max-memory: bad size 'lots'"), "{}", stderr(&o));
}

#[test]
fn huge_npy_headers_are_errors() {
    let d = scratch("npy");
    let p = d.join("huge.npy");
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }";
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(&[0; 16]);
    std::fs::write(&p, bytes).unwrap();
    let ir = d.join("id.mlir");
    std::fs::write(&ir, "func.func @id(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {\n  return %x : tensor<?x?xf32>\n}\n")
        .unwrap();
    let o = run(&[ir.to_str().unwrap(), "--input", &format!("x={}", p.display()), "--output-dir", d.to_str().unwrap()]);
    assert_clean_failure(&o);
    assert!(stderr(&o).contains("truncated data: shape [1000000, 1000000]"), "{}", stderr(&o));
}

#[test]
fn a_hidden_driver_is_no_gpu() {
    let d = scratch("nocuda");
    let o = morf_run()
        .args([
            &example("rmsnorm_bwd.mlir"),
            "--device",
            "gpu",
            "--random",
            "M=4,N=8",
            "--output-dir",
            d.to_str().unwrap(),
        ])
        .env(morf_runtime::NO_CUDA_ENV, "1")
        .output()
        .unwrap();
    assert_clean_failure(&o);
    assert_eq!(stderr(&o), "morf-run: error: no GPU: CUDA driver library not found; GPU work skipped\n");
}

#[test]
fn sim_runs_kernels_of_a_tensor_level_file() {
    let d = scratch("sim");
    let o = run(&[
        &example("rmsnorm_bwd.mlir"),
        "--device",
        "sim",
        "--random",
        "M=5,N=40",
        "--check",
        "--output-dir",
        d.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("kernel launch") && text.contains("on the GPU simulator"), "{text}");
    assert!(text.contains("check result0:") && text.contains("check result1:"), "{text}");
}

#[test]
fn unreadable_ir_is_an_error() {
    let o = run(&["/dev/zero", "--max-memory", "2M"]);
    assert_clean_failure(&o);
    assert_eq!(
        stderr(&o),
        "morf-run: error: cannot read /dev/zero: it is larger than 1.0 MiB (half the memory limit, --max-memory)\n"
    );
    let d = scratch("ir");
    let o = run(&[d.to_str().unwrap()]);
    assert_clean_failure(&o);
    assert!(stderr(&o).contains("it is a directory"), "{}", stderr(&o));
    let bad = d.join("bad.mlir");
    std::fs::write(&bad, b"func.func @f() {\xff}").unwrap();
    let o = run(&[bad.to_str().unwrap()]);
    assert_clean_failure(&o);
    assert!(stderr(&o).contains("not UTF-8 text (invalid byte at offset 16)"), "{}", stderr(&o));
}
