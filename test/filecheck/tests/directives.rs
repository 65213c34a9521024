//! Pass/fail tests for each directive, run through the command-line entry
//! point, plus a differential test against LLVM's FileCheck when installed.

mod cases;

use std::io::Write;
use std::process::{Command, Stdio};

use cases::CASES;

fn run_ours(check: &str, input: &str, args: &[&str]) -> i32 {
    let dir = std::env::temp_dir().join(format!("morf-fc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cf = dir.join(format!("c{}.txt", rand_name()));
    let inf = dir.join(format!("i{}.txt", rand_name()));
    std::fs::write(&cf, check).unwrap();
    std::fs::write(&inf, input).unwrap();
    let mut a = vec!["morf-filecheck".to_string(), cf.display().to_string()];
    a.push(format!("--input-file={}", inf.display()));
    a.extend(args.iter().map(|s| s.to_string()));
    a.push("--dump-input=never".into());
    morf_filecheck::main_with_args(a)
}

fn rand_name() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn table() {
    let mut bad = Vec::new();
    for c in CASES {
        let got = run_ours(c.check, c.input, c.args);
        if got != c.expect {
            bad.push(format!("{}: expected {}, got {}", c.name, c.expect, got));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

const LLVM: &str = "/usr/lib/llvm-22/bin/FileCheck";

fn run_llvm(check: &str, input: &str, args: &[&str]) -> i32 {
    let dir = std::env::temp_dir().join(format!("morf-fc-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cf = dir.join(format!("c{}.txt", rand_name()));
    std::fs::write(&cf, check).unwrap();
    let mut child = Command::new(LLVM)
        .arg(&cf)
        .args(args)
        .arg("--dump-input=never")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).ok(); // LLVM may exit before reading stdin
    child.wait().unwrap().code().unwrap_or(-1)
}

/// Runs every case through LLVM FileCheck too and requires the same exit
/// code. Skipped (passes trivially) when LLVM 22's FileCheck is absent.
#[test]
fn same_verdict_as_llvm() {
    if !std::path::Path::new(LLVM).exists() {
        eprintln!("skipping: {LLVM} not installed");
        return;
    }
    let mut bad = Vec::new();
    for c in CASES {
        let ours = run_ours(c.check, c.input, c.args);
        let llvm = run_llvm(c.check, c.input, c.args);
        if ours != llvm {
            bad.push(format!("{}: llvm {}, ours {}", c.name, llvm, ours));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn library_api_and_message() {
    let opts = morf_filecheck::Options::default();
    assert!(morf_filecheck::check("t.mlir", "// CHECK: foo\n", "<stdin>", "x foo\n", &opts).is_ok());
    let err =
        morf_filecheck::check("t.mlir", "// CHECK: a\n// CHECK-NEXT: b\n", "<stdin>", "a\nx\nb\n", &opts).unwrap_err();
    assert_eq!(err.exit_code, 1);
    let msg = err.to_string();
    assert!(msg.contains("t.mlir:2:16: error: CHECK-NEXT: is not on the line after the previous match"), "{msg}");
    let err = morf_filecheck::check("t.mlir", "// CHECK: zzz\n", "<stdin>", "abc\n", &opts).unwrap_err();
    assert!(err.to_string().contains("t.mlir:1:11: error: CHECK: expected string not found in input"), "{err}");
    assert!(err.to_string().contains("<stdin>:1:1: note: scanning from here"), "{err}");
}
