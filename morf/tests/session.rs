//! The `Session` of the facade: errors, pipelines, user passes, and the devices.

use morf::{Device, Error, Inputs, Session};

const ADD: &str = "func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {\n  %z = mtensor.add %x, %y : tensor<4xf32>\n  func.return %z : tensor<4xf32>\n}\n";

fn inputs() -> Inputs {
    Inputs::new().array("x", vec![4], vec![1.0, 2.0, 3.0, 4.0]).array("y", vec![4], vec![0.5; 4])
}

#[test]
fn parse_errors_are_located_diagnostics() {
    let mut s = Session::new();
    let bad = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %z = mtensor.nope %x : tensor<4xf32>\n  func.return %z : tensor<4xf32>\n}\n";
    match s.parse("bad.mlir", bad) {
        Err(Error::Diagnostic(d)) => assert!(d.starts_with("bad.mlir:2:"), "{d}"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn unknown_pipeline_is_an_engine_error() {
    let mut s = Session::new();
    let m = s.parse("add.mlir", ADD).unwrap();
    let err = s.run_pipeline(m, "no-such-pipeline").unwrap_err();
    assert!(matches!(err, Error::Engine(_)), "{err:?}");
    assert!(err.to_string().contains("no pipeline named 'no-such-pipeline'"), "{err}");
}

#[test]
fn textual_and_named_pipelines_then_ptx_and_both_devices() {
    let mut s = Session::new();
    let m = s.parse("add.mlir", ADD).unwrap();
    let before = s.print(m);
    let interp = s.run(m, Device::Interp, &inputs()).unwrap();
    assert_eq!(interp.array(0), Some(&(vec![4], vec![1.5, 2.5, 3.5, 4.5])));
    assert_eq!(interp.launches, 0);
    let sim = s.run_checked(m, Device::Sim, &inputs()).unwrap();
    assert_eq!(sim.array(0), interp.array(0));
    assert!(sim.all_ok() && sim.checks.len() == 1 && !sim.kernels.is_empty());
    assert_eq!(s.print(m), before, "run leaves the module as written");

    s.run_pipeline(m, "builtin.module(canonicalize,cse)").unwrap();
    s.run_pipeline(m, "gpu").unwrap();
    assert!(s.emit_ptx(m).unwrap().contains(".entry"));
    let lowered = s.run(m, Device::Sim, &inputs()).unwrap();
    assert_eq!(lowered.array(0), interp.array(0));
}

#[test]
fn user_passes_and_pipelines() {
    use morf::ir::pass::PassResult;
    use morf::ir::{Context, OpId};

    /// Tags the module with a unit attribute.
    struct Tag;
    impl morf::Pass for Tag {
        fn name(&self) -> &'static str {
            "test-tag"
        }
        fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
            let a = ctx.unit_attr();
            ctx.set_attr(op, "test.tagged", a);
            Ok(())
        }
    }
    let mut s = Session::new();
    s.register_pass(morf::PassInfo {
        name: "test-tag",
        description: "tags the module",
        options: &[],
        create: |_| Ok(Box::new(Tag)),
    });
    s.register_pipeline(morf::NamedPipeline {
        name: "tag-then-cse",
        description: "test-tag, then cse",
        text: "builtin.module(test-tag,cse)",
    });
    let m = s.parse("add.mlir", ADD).unwrap();
    s.run_pipeline(m, "tag-then-cse").unwrap();
    assert!(s.print(m).contains("test.tagged"), "{}", s.print(m));
}

#[test]
fn gpu_without_a_driver_is_an_error() {
    let mut s = Session::new();
    let m = s.parse("add.mlir", ADD).unwrap();
    match s.run(m, Device::Gpu, &inputs()) {
        Ok(out) => assert_eq!(out.array(0).unwrap().1, vec![1.5, 2.5, 3.5, 4.5]),
        Err(e) => assert!(matches!(e, Error::Engine(morf::engine::EngineError::NoGpu(_))), "{e:?}"),
    }
}

#[test]
fn run_lowers_with_the_sessions_own_pipelines() {
    use morf::ir::pass::PassResult;
    use morf::ir::{Context, OpId};

    /// Turns every `mtensor.add` into `mtensor.sub` (so the result shows it ran).
    struct AddToSub;
    impl morf::Pass for AddToSub {
        fn name(&self) -> &'static str {
            "test-add-to-sub"
        }
        fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult {
            let adds: Vec<OpId> =
                ctx.walk_collect(op).into_iter().filter(|&o| ctx.op_name(o) == "mtensor.add").collect();
            for a in adds {
                let (x, y) = (ctx.operand(a, 0), ctx.operand(a, 1));
                let ty = ctx.value_type(ctx.result(a, 0));
                let loc = ctx.op_loc(a);
                let st = morf::ir::OperationState::new("mtensor.sub", loc).operands(&[x, y]).results(&[ty]);
                let sub = ctx.create_op(st);
                ctx.insert_op_before(a, sub);
                let r = ctx.result(sub, 0);
                ctx.replace_all_uses_with(ctx.result(a, 0), r);
                ctx.erase_op(a);
            }
            Ok(())
        }
    }
    let mut s = Session::new();
    s.register_pass(morf::PassInfo {
        name: "test-add-to-sub",
        description: "mtensor.add becomes mtensor.sub",
        options: &[],
        create: |_| Ok(Box::new(AddToSub)),
    });
    s.register_pipeline(morf::NamedPipeline {
        name: "my-gpu",
        description: "test-add-to-sub, then the gpu pipeline",
        text: "builtin.module(test-add-to-sub,lower-tensor-to-loop,canonicalize,cse,lower-loop-to-gpu)",
    });
    s.set_engine_options(morf::engine::EngineOptions { pipeline: "my-gpu".into(), ..Default::default() });
    let m = s.parse("add.mlir", ADD).unwrap();
    let out = s.run(m, Device::Sim, &inputs()).unwrap();
    assert_eq!(out.array(0), Some(&(vec![4], vec![0.5, 1.5, 2.5, 3.5])), "the session's pass ran in the lowering");
    assert!(!out.kernels.is_empty());
}
