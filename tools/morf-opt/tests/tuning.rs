//! `morf-opt --tuning-cache`: a cache entry for the program, its shape bucket and the device
//! replaces `--pipeline gpu` by its tuned form (with the bucket's hints); without one the
//! cost model decides, and says so; a bad cache is a located error before any input is read.

use std::path::PathBuf;
use std::process::Command;

use morf_engine::tuning::{program_hash, DeviceKey, TuningCache, TuningEntry};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/rmsnorm_bwd.mlir")
}

fn hash() -> String {
    let text = std::fs::read_to_string(example()).unwrap();
    let mut ctx = morf_engine::new_context(false);
    let m = morf_engine::load_module(&mut ctx, "x.mlir", &text).unwrap();
    program_hash(&ctx, m)
}

fn opt(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_morf-opt")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn cache_file(dir: &std::path::Path, device: &str, bucket: &str) -> PathBuf {
    let mut c = TuningCache::default();
    c.insert(TuningEntry {
        program: hash(),
        function: "rmsnorm_bwd".into(),
        pipeline: "gpu".into(),
        bucket: bucket.into(),
        device: DeviceKey { name: device.into(), sms: 132, driver: "13000".into() },
        options: [("lower-loop-to-gpu".to_string(), "threads=512 rows-in-flight=1 min-ctas=none".to_string())].into(),
        evidence: None,
    });
    let p = dir.join("cache.json");
    c.save(&p).unwrap();
    p
}

#[test]
fn tuned_entry_replaces_the_pipeline() {
    let dir = std::env::temp_dir().join(format!("morf-opt-tuning-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cache = cache_file(&dir, "NVIDIA H200", "M~2^19,N=384");
    let ex = example();
    let ex = ex.to_str().unwrap();
    let c = cache.to_str().unwrap();
    // Two sizes of one bucket give the same program, compiled with the bucket's hints.
    let (rc, a, err) =
        opt(&[ex, "--pipeline=gpu", "--size-hints", "M=576000,N=384", "--tuning-cache", c, "--emit=ptx"]);
    assert_eq!(rc, 0, "{err}");
    assert!(
        err.contains("tuned schedule for bucket M~2^19,N=384 on NVIDIA H200: lower-loop-to-gpu{threads=512"),
        "{err}"
    );
    assert!(a.contains(".maxntid 512, 1, 1") && !a.contains(".minnctapersm"), "{a}");
    let (_, b, _) = opt(&[ex, "--pipeline=gpu", "--size-hints", "M=1000003,N=384", "--tuning-cache", c, "--emit=ptx"]);
    assert_eq!(a, b);
    // The schedule report shows the tuned schedule.
    let (rc, _, err) = opt(&[
        ex,
        "--pipeline=gpu",
        "--size-hints",
        "M=576000,N=384",
        "--tuning-cache",
        c,
        "--schedule-report",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(err.contains("row_fused threads=512"), "{err}");
    // Another bucket, another device: the cost model decides, and the note says why.
    let (rc, _, err) =
        opt(&[ex, "--pipeline=gpu", "--size-hints", "M=65536,N=384", "--tuning-cache", c, "-o", "/dev/null"]);
    assert_eq!(rc, 0);
    assert!(err.contains("no tuning entry for program") && err.contains("bucket M~2^16,N=384"), "{err}");
    let (_, _, err) = opt(&[
        ex,
        "--pipeline=gpu",
        "--size-hints",
        "M=576000,N=384",
        "--tuning-cache",
        c,
        "--tuning-device=NVIDIA A100:108",
        "-o",
        "/dev/null",
    ]);
    assert!(err.contains("no tuning entry") && err.contains("NVIDIA A100 (108 SMs)"), "{err}");
    // Without --tuning-cache nothing is consulted.
    let (_, plain, err) = opt(&[ex, "--pipeline=gpu", "--size-hints", "M=576000,N=384", "--emit=ptx"]);
    assert!(!err.contains("tuning") && plain != a, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_caches_are_errors() {
    let dir = std::env::temp_dir().join(format!("morf-opt-tuning-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ex = example();
    let ex = ex.to_str().unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"version\": 1,\n  \"entries\": [\n    {\"program\": 5}]}\n").unwrap();
    let (rc, out, err) = opt(&[ex, "--pipeline=gpu", "--tuning-cache", bad.to_str().unwrap()]);
    assert_eq!(rc, 1);
    assert!(out.is_empty());
    assert!(err.contains("bad.json:3:17: error: invalid tuning cache"), "{err}");
    let (rc, _, err) = opt(&[ex, "--tuning-cache", "/no/such/cache.json"]);
    assert_eq!(rc, 1);
    assert!(err.contains("cannot read tuning cache /no/such/cache.json"), "{err}");
    let (rc, _, err) = opt(&[ex, "--tuning-device", "X:1"]);
    assert_eq!(rc, 1);
    assert!(err.contains("--tuning-device needs --tuning-cache"), "{err}");
    let (rc, _, err) = opt(&[ex, "--tuning-cache"]);
    assert_eq!(rc, 1);
    assert!(err.contains("--tuning-cache needs a value"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
