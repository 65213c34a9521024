// Found by the `fuse` fuzz target (also `gpu`, `gpu-unfused`, `interp`); fixed in 30a0d08
// (lower-tensor-to-loop now rejects such tensors with a located error). It was:
// `morf-opt THIS --pipeline=fuse` exits 0 and prints `!mloop.buffer<i32>`, which the
// parser (and so every later tool) rejects:
//   error: '!mloop.buffer' element type must be f16, bf16, f32, f64 or i1, got 'i32'
// lower-tensor-to-loop (passes/src/conversion/tensor_to_loop.rs:202, `buffer_type`) turns
// any tensor into a buffer without checking the element type; it should fail with a
// diagnostic on tensors of other element types.
// test/fuzz/tests/mutation.rs (fixed_regressions_pass) runs it through the `fuse` target.
func.func @c(%a: tensor<i32>) {
  return
}
