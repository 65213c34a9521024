// RUN: morf-opt %s --split-input-file --verify-diagnostics

// Rank 17; the limit is 16.
// expected-error@+1 {{rank is too large (at most 16)}}
func.func @f(%a: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) {
  func.return
}
