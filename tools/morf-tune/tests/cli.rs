//! morf-tune's command line without a GPU: bad input is an error (exit 1) before any GPU
//! work, and a machine without CUDA is "skipped" (exit 0) with the cache left as it was.

use std::process::Command;

fn tune(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_morf-tune")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn errors_and_skips() {
    let dir = std::env::temp_dir().join(format!("morf-tune-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir");
    let cache = dir.join("c.json");
    let c = cache.to_str().unwrap();

    let (rc, _, err) = tune(&[ex, "--sizes", "M=8,N=4", "--knobs", "warp", "--cache", c]);
    assert_eq!(rc, 1);
    assert!(err.contains("no knob named 'warp'"), "{err}");
    // --no-recipes is a switch: a value is a command-line error.
    let (rc, _, err) = tune(&[ex, "--sizes", "M=8,N=4", "--no-recipes=yes", "--cache", c]);
    assert_eq!(rc, 1);
    assert!(err.contains("unexpected value 'yes' for '--no-recipes'"), "{err}");
    let (rc, _, err) = tune(&["/no/such.mlir", "--sizes", "M=8", "--cache", c]);
    assert_eq!(rc, 1);
    assert!(err.contains("cannot read /no/such.mlir"), "{err}");
    let (rc, _, err) = tune(&[ex]);
    assert_eq!(rc, 1, "{err}");
    std::fs::write(&cache, "{\"version\": 2, \"entries\": []}").unwrap();
    let (rc, _, err) = tune(&[ex, "--sizes", "M=8,N=4", "--cache", c]);
    assert_eq!(rc, 1);
    assert!(err.contains("c.json:1:2: error: tuning cache version 2 is not supported"), "{err}");
    assert_eq!(std::fs::read_to_string(&cache).unwrap(), "{\"version\": 2, \"entries\": []}");
    // --warm-start reads the same cache first: a malformed one is the same located error.
    let (rc, _, err) = tune(&[ex, "--sizes", "M=8,N=4", "--warm-start", "--knobs", "partials", "--cache", c]);
    assert_eq!(rc, 1);
    assert!(err.contains("c.json:1:2: error: tuning cache version 2 is not supported"), "{err}");
    if !morf_runtime::cuda_available() {
        std::fs::remove_file(&cache).unwrap();
        let (rc, out, err) = tune(&[ex, "--sizes", "M=8,N=4", "--cache", c]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.starts_with("morf-tune: skipped: "), "{out}");
        let (rc, out, err) = tune(&[ex, "--sizes", "M=8,N=4", "--warm-start", "--knobs", "partials", "--cache", c]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.starts_with("morf-tune: skipped: "), "{out}");
        let (rc, out, err) = tune(&[ex, "--sizes", "M=8,N=4", "--no-recipes", "--cache", c]);
        assert_eq!(rc, 0, "{err}");
        assert!(out.starts_with("morf-tune: skipped: "), "{out}");
        assert!(!cache.exists(), "a skipped run writes no cache");
    }
    std::fs::remove_dir_all(&dir).ok();
}
