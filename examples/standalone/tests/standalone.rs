//! The standalone dialect and pass through morf's embedding API.

use morf::{Device, Session};

fn session() -> Session {
    let mut s = Session::new();
    morf_standalone::register(s.context_mut());
    s.register_pass(morf_standalone::expand_square_info());
    s
}

#[test]
fn op_round_trips_and_runs_on_the_interpreter() {
    let mut s = session();
    let module = s.parse("sq.mlir", morf_standalone::EXAMPLE).unwrap();
    let printed = s.print(module);
    assert!(printed.contains("standalone.square %x : tensor<?x8xf32>"), "{printed}");
    let again = s.parse("again.mlir", &printed).unwrap();
    assert_eq!(s.print(again), printed);
    let out = s
        .run(
            module,
            Device::Interp,
            &morf::Inputs::new().array("x", vec![1, 8], vec![3.0; 8]).array("y", vec![1, 8], vec![1.0; 8]),
        )
        .unwrap();
    assert_eq!(out.array(0), Some(&(vec![1, 8], vec![10.0; 8])));
}

#[test]
fn verifier_rejects_f64() {
    let mut s = session();
    let text = "func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {\n  %s = standalone.square %x : tensor<4xf64>\n  func.return %s : tensor<4xf64>\n}\n";
    let err = s.parse("bad.mlir", text).unwrap_err().to_string();
    assert!(err.contains("bad.mlir:2:") && err.contains("operand must be a tensor of f32"), "{err}");
}

#[test]
fn pass_expands_squares() {
    let mut s = session();
    let module = s.parse("sq.mlir", morf_standalone::EXAMPLE).unwrap();
    s.run_pipeline(module, "builtin.module(standalone-expand-square)").unwrap();
    let printed = s.print(module);
    assert!(!printed.contains("standalone.square"), "{printed}");
    assert!(printed.contains("mtensor.mul %x, %x : tensor<?x8xf32>"), "{printed}");
}

#[test]
fn simulator_agrees_with_the_interpreter() {
    let (ptx, diff) = morf_standalone::run_example(16).unwrap();
    assert!(ptx.contains(".entry"), "{ptx}");
    assert!(diff <= 1e-6, "{diff}");
}
