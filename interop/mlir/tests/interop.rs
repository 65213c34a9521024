//! The MLIR bridge end to end, through the `morf` facade: every example exported at the
//! tensor, loop and GPU levels (MLIR's verifier runs inside the export), exported and
//! imported back with the same interpreter results, the hand-written linalg programs of
//! `test/Interop/MLIR` imported, fused and run on the GPU simulator, import errors located
//! and never a panic, and the MLIR PTX path assembled by `ptxas` when one is installed.
//!
//! Needs the cargo feature `mlir` (`cargo test -p morf-mlir --features mlir`).
#![cfg(feature = "mlir")]

use std::path::{Path, PathBuf};

use morf::passes::target::ptx::ptxas::{assemble, find_ptxas};
use morf::{Device, Inputs, Session};
use morf_ir::{Loc, OpId};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An example: its file name, its text and sizes for its named dims.
type Example = (String, String, Vec<(String, usize)>);

/// The examples, with the sizes of their named dims.
fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(repo_root().join("examples"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    paths.sort();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let mut dims: Vec<(String, usize)> = Vec::new();
        for part in text.split("morf.dims = [").skip(1) {
            let list = &part[..part.find(']').unwrap()];
            for name in list.split(',').map(|n| n.trim().trim_matches('"')).filter(|n| !n.is_empty()) {
                if !dims.iter().any(|(d, _)| d == name) {
                    // Odd, different sizes per name (7, 12, 17, ...): a mixed-up dim shows.
                    dims.push((name.to_string(), 7 + 5 * dims.len()));
                }
            }
        }
        out.push((p.file_name().unwrap().to_string_lossy().into_owned(), text, dims));
    }
    out
}

fn random(dims: &[(String, usize)]) -> Inputs {
    let d: Vec<(&str, usize)> = dims.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    Inputs::new().random(&d).seed(11)
}

#[test]
fn is_available() {
    assert!(morf_mlir::is_available());
}

#[test]
fn every_example_exports_at_every_level() {
    for (name, text, _) in examples() {
        for pipeline in [None, Some("fuse"), Some("gpu")] {
            let mut s = Session::new();
            let m = s.parse(&name, &text).unwrap();
            if let Some(p) = pipeline {
                s.run_pipeline(m, p).unwrap();
            }
            let out = morf_mlir::export_mlir(s.context(), m)
                .unwrap_or_else(|d| panic!("{name} ({pipeline:?}): {}", s.context().render(&d)));
            let expect = match pipeline {
                None => "linalg.generic",
                Some("fuse") => "scf.parallel",
                _ => "gpu.launch_func",
            };
            assert!(out.contains(expect), "{name} ({pipeline:?}) has no {expect}:\n{out}");
            assert!(!out.contains("mtensor.") && !out.contains("mloop.") && !out.contains("mgpu."), "{name}:\n{out}");
        }
    }
}

#[test]
fn export_then_import_computes_the_same_on_the_interpreter() {
    for (name, text, dims) in examples() {
        let mut s = Session::new();
        let m = s.parse(&name, &text).unwrap();
        let linalg = morf_mlir::export_mlir(s.context(), m).unwrap();
        let back: OpId = morf_mlir::import_mlir(s.context_mut(), "back.mlir", &linalg, 0)
            .unwrap_or_else(|d| panic!("{name}: {}\n{linalg}", s.context().render(&d)));
        let a = s.run(m, Device::Interp, &random(&dims)).unwrap();
        let b = s.run(back, Device::Interp, &random(&dims)).unwrap();
        assert_eq!(a.arrays.len(), b.arrays.len(), "{name}");
        for (i, (x, y)) in a.arrays.iter().zip(&b.arrays).enumerate() {
            assert_eq!(x.0, y.0, "{name} result {i} shape");
            let same = x.1.iter().zip(&y.1).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()));
            assert!(same, "{name} result {i} differs after the round trip");
        }
        // The round trip keeps the reductions (a mean stays a mean).
        let count = |s: &Session, m: OpId, what: &str| s.print(m).matches(what).count();
        for kind in ["reduce sum", "reduce mean", "reduce max"] {
            assert_eq!(count(&s, m, kind), count(&s, back, kind), "{name}: {kind}");
        }
    }
}

#[test]
fn hand_written_linalg_fuses_and_runs_on_the_simulator() {
    for (file, dims) in
        [("rmsnorm_bwd.linalg.mlir", [("M", 37), ("N", 100)]), ("layernorm_bwd.linalg.mlir", [("M", 29), ("N", 70)])]
    {
        let path = repo_root().join("test/Interop/MLIR").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut s = Session::new();
        let m = morf_mlir::import_mlir(s.context_mut(), file, &text, 0)
            .unwrap_or_else(|d| panic!("{file}: {}", s.context().render(&d)));
        let printed = s.print(m);
        assert!(printed.contains("mtensor.reduce mean"), "{file}: the mean was not recognized:\n{printed}");
        let out = s.run_checked(m, Device::Sim, &Inputs::new().random(&dims).seed(3)).unwrap();
        assert!(out.all_ok(), "{file}: {:?}", out.checks);
        // Row and column reductions fused: one kernel launch.
        assert_eq!(out.launches, 1, "{file}: kernels {:?}", out.kernels);
    }
}

#[test]
fn import_errors_are_located_and_never_panic() {
    let cases = [
        ("func.func @f() {\n  %0 = arith.bogus\n}\n", 2, "custom op 'arith.bogus' is unknown"),
        (
            "func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
",
            3,
            "'linalg.matmul' op is not supported",
        ),
        (
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.exp ins(%e : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
",
            3,
            "reads a 'tensor.empty'",
        ),
        ("", 0, ""),
    ];
    for (text, line, msg) in cases {
        let mut s = Session::new();
        match morf_mlir::import_mlir(s.context_mut(), "bad.mlir", text, 10) {
            Ok(_) => assert!(msg.is_empty(), "expected an error for:\n{text}"),
            Err(d) => {
                assert!(d.message.contains(msg), "{}", d.message);
                match d.loc {
                    Loc::File { line: l, .. } => assert_eq!(l, line + 10, "{}", d.message),
                    Loc::Unknown => panic!("no location: {}", d.message),
                }
            }
        }
    }
}

#[test]
fn mlir_ptx_of_every_example_assembles() {
    let Some(ptxas) = find_ptxas() else {
        eprintln!("ptxas not found, skipping");
        return;
    };
    let dir = std::env::temp_dir().join(format!("morf-mlir-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, _) in examples() {
        // A cluster kernel too where the program's rows take one (the norms): a row split
        // over a cluster of 2 CTAs, with the cluster directives, mapa and remote stores.
        const CLUSTER: &str = "builtin.module(lower-tensor-to-loop,canonicalize,cse,\
            fuse-mixed-reductions{size-hints=M=1000,N=2048},canonicalize,cse,\
            lower-loop-to-gpu{size-hints=M=1000,N=2048 grid=8 cluster=2})";
        let cluster = name.starts_with("rmsnorm") || name.starts_with("layernorm");
        for pipeline in ["gpu", "gpu-unfused", CLUSTER].into_iter().filter(|p| cluster || *p != CLUSTER) {
            let mut s = Session::new();
            let m = s.parse(&name, &text).unwrap();
            s.run_pipeline(m, pipeline).unwrap();
            let ptx = morf_mlir::emit_ptx(s.context(), m, &morf_mlir::PtxOptions::default())
                .unwrap_or_else(|d| panic!("{name} ({pipeline}): {}", s.context().render(&d)));
            assert!(ptx.contains(".target sm_90") && ptx.contains(".entry"), "{name}:\n{ptx}");
            assert!(pipeline != CLUSTER || ptx.contains("mapa.shared::cluster"), "{name}: no cluster kernel");
            let tag = if pipeline == CLUSTER { "cluster" } else { pipeline };
            let file = dir.join(format!("{name}.{tag}.ptx"));
            std::fs::write(&file, &ptx).unwrap();
            let (ok, log) = assemble(&ptxas, &file).unwrap();
            assert!(ok, "{name} ({pipeline}): ptxas failed:\n{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
