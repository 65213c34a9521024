//! The embedding API of `docs/engine.md`: a small mtensor program compiled by
//! [`Engine::compile`] for the interpreter and for the GPU simulator, bound from in-memory
//! arrays, `.npy` files and generated values, run, read and checked.

use morf_engine::{npy, Device, Engine, EngineError, EngineOptions, Inputs};

const SCALE_ADD: &str = r#"
func.func @scale_add(%x: tensor<?x4xf32> {morf.dims = ["M", "N"]}, %w: tensor<4xf32> {morf.dims = ["N"]}) -> tensor<?x4xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x4xf32>
  %wb = mtensor.broadcast %w dims [1] sizes(%m) : tensor<4xf32> -> tensor<?x4xf32>
  %y = mtensor.mul %x, %wb : tensor<?x4xf32>
  %z = mtensor.add %y, %x : tensor<?x4xf32>
  func.return %z : tensor<?x4xf32>
}
"#;

fn expected(x: &[f64], w: &[f64]) -> Vec<f64> {
    x.iter().enumerate().map(|(i, v)| v * w[i % 4] + v).collect()
}

#[test]
fn interp_and_sim_agree_with_the_arithmetic() {
    let x: Vec<f64> = (0..12).map(|i| i as f64 * 0.5 - 2.0).collect();
    let w = vec![1.0, -1.0, 0.25, 2.0];
    for device in [Device::Interp, Device::Sim] {
        let mut ctx = morf_engine::new_context(false);
        let module = morf_engine::load_module(&mut ctx, "scale_add.mlir", SCALE_ADD).unwrap();
        let engine = Engine::new(device, EngineOptions::default()).unwrap();
        let compiled = engine.compile(&mut ctx, module, Some("scale_add")).unwrap();
        assert_eq!(compiled.kernels().is_empty(), device == Device::Interp, "{device:?}");
        assert_eq!(compiled.ptx().is_some(), device == Device::Sim, "{device:?}");
        let inputs = Inputs::new().array("x", vec![3, 4], x.clone()).array_f32("w", vec![4], &[1.0, -1.0, 0.25, 2.0]);
        let args = compiled.bind(&inputs).unwrap();
        assert!(args.warnings.is_empty(), "{:?}", args.warnings);
        let out = compiled.run(&args).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out.array(0).unwrap(), (vec![3, 4], expected(&x, &w)), "{device:?}");
        assert_eq!(out.launches > 0, device == Device::Sim, "{device:?}");
        let checks = compiled.check(&args, &out).unwrap();
        assert!(checks.len() == 1 && checks[0].ok(), "{device:?}: {checks:?}");
    }
}

#[test]
fn the_callers_module_is_left_as_written() {
    let mut ctx = morf_engine::new_context(false);
    let module = morf_engine::load_module(&mut ctx, "scale_add.mlir", SCALE_ADD).unwrap();
    let before = morf_ir::print_op(&ctx, module, &Default::default());
    let engine = Engine::new(Device::Sim, EngineOptions::default()).unwrap();
    let compiled = engine.compile(&mut ctx, module, None).unwrap();
    assert_ne!(compiled.function(), compiled.reference_function());
    drop(compiled);
    assert_eq!(morf_ir::print_op(&ctx, module, &Default::default()), before);
}

#[test]
fn files_generated_values_and_written_results() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("embed-files");
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.npy");
    npy::write_npy(&w, &[4], npy::NpyDtype::F32, &[2.0, 2.0, 2.0, 2.0]).unwrap();
    let mut ctx = morf_engine::new_context(false);
    let module = morf_engine::load_module(&mut ctx, "scale_add.mlir", SCALE_ADD).unwrap();
    let engine =
        Engine::new(Device::Sim, EngineOptions { size_hints: Some("M=5,N=4".into()), ..Default::default() }).unwrap();
    let compiled = engine.compile(&mut ctx, module, None).unwrap();
    let args = compiled.bind(&Inputs::new().file("w", &w).random(&[("M", 5)]).seed(7)).unwrap();
    let out = compiled.run(&args).unwrap();
    let (shape, z) = out.array(0).unwrap();
    assert_eq!(shape, vec![5, 4]);
    let (_, x) = match &args.values[0] {
        morf_ir::interp::RtValue::Tensor { array, .. } => ((), array.data.clone()),
        v => panic!("{v:?}"),
    };
    assert_eq!(z, x.iter().map(|v| (3.0 * v) as f32 as f64).collect::<Vec<_>>());
    let written = out.write(&dir.join("out"), true).unwrap();
    assert_eq!(written[0].to_string().split(" -> ").next(), Some("result0: tensor<?x4xf32> [5, 4]"));
    assert_eq!(npy::read_npy(&written[0].path).unwrap().shape, vec![5, 4]);
}

#[test]
fn binding_errors_name_the_argument() {
    let mut ctx = morf_engine::new_context(false);
    let module = morf_engine::load_module(&mut ctx, "scale_add.mlir", SCALE_ADD).unwrap();
    let engine = Engine::new(Device::Interp, EngineOptions::default()).unwrap();
    let compiled = engine.compile(&mut ctx, module, None).unwrap();
    let e = compiled.bind(&Inputs::new().array("x", vec![3, 5], vec![0.0; 15])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument %x: dimension 1 of tensor<?x4xf32> is 4, got shape [3, 5] from the in-memory array"
    );
    let e = compiled.bind(&Inputs::new().array("w", vec![4], vec![0.0; 3])).unwrap_err();
    assert!(matches!(e, EngineError::Argument { .. }), "{e}");
    // Values that f32 cannot hold are rounded, with a warning.
    let args =
        compiled.bind(&Inputs::new().array("x", vec![1, 4], vec![0.1; 4]).array("w", vec![4], vec![1.0; 4])).unwrap();
    assert!(args.warnings[0].contains("not f32-representable"), "{:?}", args.warnings);
}

#[test]
fn ir_errors_stay_diagnostics() {
    let mut ctx = morf_engine::new_context(false);
    let e = morf_engine::load_module(&mut ctx, "bad.mlir", "func.func @f() {\n  %x = mtensor.nope\n}\n").unwrap_err();
    match e {
        EngineError::Diagnostic(d) => assert!(d.starts_with("bad.mlir:2:"), "{d}"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn a_given_tuning_cache_picks_the_schedule() {
    use morf_engine::tuning::{program_hash, DeviceKey, TuningCache, TuningEntry, TuningSource};
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir")).unwrap();
    let mut ctx = morf_engine::new_context(false);
    let module = morf_engine::load_module(&mut ctx, "rmsnorm_bwd.mlir", &text).unwrap();
    let mut cache = TuningCache::default();
    cache.insert(TuningEntry {
        program: program_hash(&ctx, module),
        function: "rmsnorm_bwd".into(),
        pipeline: "gpu".into(),
        bucket: "M~2^6,N=384".into(),
        device: DeviceKey::default_target(),
        options: [("lower-loop-to-gpu".to_string(), "threads=512".to_string())].into(),
        evidence: None,
    });
    let options = |tuning| EngineOptions { size_hints: Some("M=100,N=384".into()), tuning, ..Default::default() };
    let tuned = Engine::new(Device::Sim, options(TuningSource::Cache(std::sync::Arc::new(cache)))).unwrap();
    let compiled = tuned.compile(&mut ctx, module, None).unwrap();
    assert!(compiled.ptx().unwrap().contains(".maxntid 512, 1, 1"));
    // The simulator runs the tuned program and agrees with the interpreter.
    let args = compiled.bind(&Inputs::new().random(&[("M", 100), ("N", 384)])).unwrap();
    let out = compiled.run(&args).unwrap();
    assert!(compiled.check(&args, &out).unwrap().iter().all(|c| c.ok()));
    // The built-in cache is for GPUs only: the simulator keeps the heuristics' schedule.
    let plain = Engine::new(Device::Sim, options(TuningSource::Builtin)).unwrap();
    let p = plain.compile(&mut ctx, module, None).unwrap();
    assert!(!p.ptx().unwrap().contains(".maxntid 512, 1, 1"));
}

#[test]
fn another_backends_ptx_must_match_the_lowering() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir")).unwrap();
    let lower =
        || morf_engine::compile::lower_for_gpu("r.mlir", &text, None, false, "gpu", Some("M=64,N=384")).unwrap();
    let ours = lower().ptx.clone();
    let entries = morf_engine::compile::ptx_entries(&ours);
    assert!(!entries.is_empty() && entries.iter().all(|(_, p)| *p > 0), "{entries:?}");
    // The same kernels (another backend's register names and bodies): accepted.
    let theirs = ours.replace("%rd", "%r_d");
    assert_eq!(lower().with_ptx(theirs.clone(), "x.ptx").unwrap().ptx, theirs);
    // A kernel missing or a parameter fewer: refused, naming both sides.
    let renamed = ours.replacen(&entries[0].0, "other_k0", 2);
    let e = lower().with_ptx(renamed, "x.ptx").err().unwrap().to_string();
    assert!(e.starts_with("x.ptx does not match this lowering: its kernels are [") && e.contains("other_k0"), "{e}");
    let fewer = ours.replacen(".param .u64", ".reg .u64", 1);
    assert!(lower().with_ptx(fewer, "x.ptx").is_err());
    // morf's own PTX of another schedule (same kernels and parameters, other launches):
    // refused by its lowering stamp.
    let other = morf_engine::compile::lower_for_gpu(
        "r.mlir",
        &text,
        None,
        false,
        "builtin.module(lower-tensor-to-loop,fuse-mixed-reductions,lower-loop-to-gpu{threads=512})",
        Some("M=64,N=384"),
    )
    .unwrap()
    .ptx;
    assert_eq!(morf_engine::compile::ptx_entries(&other), entries);
    let e = lower().with_ptx(other, "x.ptx").err().unwrap().to_string();
    assert!(e.starts_with("x.ptx was emitted from another lowering"), "{e}");
    // Without a stamp (another backend's PTX) only the entries are checked.
    let unstamped: String = ours.lines().filter(|l| !l.starts_with("// morf.lowering")).collect::<Vec<_>>().join("\n");
    assert!(lower().with_ptx(unstamped, "x.ptx").is_ok());
}
