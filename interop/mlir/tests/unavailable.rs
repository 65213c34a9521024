//! Without the cargo feature `mlir` the crate links no MLIR: it says so, and every entry
//! point returns the same clear error.
#![cfg(not(feature = "mlir"))]

#[test]
fn every_entry_point_reports_that_mlir_is_missing() {
    assert!(!morf_mlir::is_available());
    let mut ctx = morf_ir::Context::new();
    morf_tensor::register(&mut ctx);
    let m = morf_ir::parse_source(&mut ctx, "f.mlir", "func.func @f() {\n  return\n}\n", 0).unwrap();
    let e = morf_mlir::export_mlir(&ctx, m).unwrap_err();
    assert_eq!(e.message, morf_mlir::UNAVAILABLE);
    let e = morf_mlir::import_mlir(&mut ctx, "f.mlir", "module {}", 0).unwrap_err();
    assert_eq!(e.message, morf_mlir::UNAVAILABLE);
    let e = morf_mlir::emit_ptx(&ctx, m, &morf_mlir::PtxOptions::default()).unwrap_err();
    assert_eq!(e.message, morf_mlir::UNAVAILABLE);
}
