// RUN: morf-opt %s --split-input-file --verify-diagnostics

func.func @add_types(%a: tensor<4xf32>, %b: tensor<5xf32>) {
  // expected-error@+1 {{'mtensor.add' op requires the same type for all operands and results}}
  %0 = "mtensor.add"(%a, %b) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @exp_int(%a: tensor<4xi32>) {
  // expected-error@+1 {{'mtensor.exp' op operand #0 ('input') must be a ranked tensor of floats, got 'tensor<4xi32>'}}
  %0 = mtensor.exp %a : tensor<4xi32>
  return
}

// -----

func.func @add_int(%a: tensor<4xi32>) {
  // expected-error@+1 {{'mtensor.add' op operand #0 ('lhs') must be a ranked tensor of floats, got 'tensor<4xi32>'}}
  %0 = mtensor.add %a, %a : tensor<4xi32>
  return
}

// -----

func.func @add_arity(%a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.add' op expects 2 operands, but got 1}}
  %0 = "mtensor.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error@+1 {{'mtensor.constant' op result type 'tensor<5xf32>' does not match the type of 'value' ('tensor<4xf32>')}}
  %0 = "mtensor.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<5xf32>
  return
}

// -----

func.func @cmp_predicate(%a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.cmp' op attribute 'predicate' must be a comparison predicate (eq, ne, lt, le, gt, ge), got "xx"}}
  %0 = "mtensor.cmp"(%a, %a) {predicate = "xx"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @cmp_result(%a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.cmp' op result must be an i1 tensor of the operand shape, got 'tensor<4xf32>'}}
  %0 = "mtensor.cmp"(%a, %a) {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_cond(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.select' op condition must be a tensor of i1 elements, got 'tensor<4xf32>'}}
  %0 = mtensor.select %c, %a, %a : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @select_shape(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.select' op condition shape [3] does not match value shape [4]}}
  %0 = mtensor.select %c, %a, %a : tensor<3xi1>, tensor<4xf32>
  return
}

// -----

func.func @convert_int(%a: tensor<4xi32>) {
  // expected-error@+1 {{'mtensor.convert' op operand #0 ('input') must be a ranked tensor of floats, got 'tensor<4xi32>'}}
  %0 = mtensor.convert %a : tensor<4xi32> to tensor<4xf32>
  return
}

// -----

func.func @dim_range(%a: tensor<4xf32>) {
  // expected-error@+1 {{'mtensor.dim' op dim index 1 is out of range for rank 1}}
  %0 = mtensor.dim %a, 1 : tensor<4xf32>
  return
}

// -----

func.func @broadcast_sizes(%a: tensor<?xf32>) {
  // expected-error@+1 {{'mtensor.broadcast' op expects 1 size operand, one per dynamic result dim, but got 0}}
  %0 = mtensor.broadcast %a dims [1] : tensor<?xf32> -> tensor<4x?xf32>
  return
}

// -----

func.func @broadcast_size(%a: tensor<3xf32>) {
  // expected-error@+1 {{'mtensor.broadcast' op operand dim 0 (size 3) cannot broadcast to result dim 1 (size 4)}}
  %0 = mtensor.broadcast %a dims [1] : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_order(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.broadcast' op broadcast dims [1, 0] must be strictly increasing}}
  %0 = mtensor.broadcast %a dims [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.broadcast' op expects one entry in 'dims' per operand dim (2), but got 1}}
  %0 = mtensor.broadcast %a dims [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_range(%a: tensor<?x?xf32>) {
  // expected-error@+1 {{'mtensor.reduce' op reduction dim 2 is out of range for rank 2}}
  %0 = mtensor.reduce sum %a dims [2] : tensor<?x?xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reduce_order(%a: tensor<?x?xf32>) {
  // expected-error@+1 {{'mtensor.reduce' op reduction dims [1, 0] must be strictly increasing}}
  %0 = mtensor.reduce sum %a dims [1, 0] : tensor<?x?xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_empty(%a: tensor<?x?xf32>) {
  // expected-error@+1 {{'mtensor.reduce' op expects at least one reduction dim}}
  %0 = mtensor.reduce sum %a dims [] : tensor<?x?xf32> -> tensor<?x?xf32>
  return
}

// -----

func.func @reduce_result(%a: tensor<?x?xf32>) {
  // expected-error@+1 {{'mtensor.reduce' op result type 'tensor<?xf32>' does not match the reduced type, which has shape [?, 1] and element type 'f32'}}
  %0 = mtensor.reduce sum %a dims [1] keepdim : tensor<?x?xf32> -> tensor<?xf32>
  return
}

// -----

func.func @reduce_kind(%a: tensor<?x?xf32>) {
  // expected-error@+1 {{'mtensor.reduce' op attribute 'kind' must be a reduction kind (sum, mean, max, min, prod), got "avg"}}
  %0 = "mtensor.reduce"(%a) {kind = "avg", dims = [1]} : (tensor<?x?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @transpose_perm(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.transpose' op 'perm' [0, 0] is not a permutation of the 2 operand dims}}
  %0 = mtensor.transpose %a perm [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_shape(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.transpose' op result shape [2, 3] does not match the permuted operand shape [3, 2]}}
  %0 = mtensor.transpose %a perm [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.reshape' op operand has 6 elements but the result has 5}}
  %0 = mtensor.reshape %a : tensor<2x3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @reshape_elem(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{'mtensor.reshape' op operand and result element types differ ('f32' vs 'f16')}}
  %0 = mtensor.reshape %a : tensor<2x3xf32> -> tensor<6xf16>
  return
}

// -----

func.func @collapse_shape(%a: tensor<?x4x8xf32>) {
  // expected-error@+1 {{'mtensor.collapse_shape' op result shape [4, 8] does not match the collapsed operand shape [?, 8]}}
  %0 = mtensor.collapse_shape %a [[0, 1], [2]] : tensor<?x4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @collapse_reassociation(%a: tensor<2x4x8xf32>) {
  // expected-error@+1 {{'mtensor.collapse_shape' op 'reassociation' must split dims 0..3 into non-empty groups of consecutive dims, in order}}
  %0 = mtensor.collapse_shape %a [[0, 2], [1]] : tensor<2x4x8xf32> -> tensor<16x4xf32>
  return
}

// -----

func.func @expand_product(%a: tensor<2x8xf32>) {
  // expected-error@+1 {{'mtensor.expand_shape' op result dims [0, 1] of group 0 hold 6 elements, but operand dim 0 has size 2}}
  %0 = mtensor.expand_shape %a [[0, 1], [2]] : tensor<2x8xf32> -> tensor<2x3x8xf32>
  return
}

// -----

func.func @expand_sizes(%a: tensor<?x8xf32>) {
  // expected-error@+1 {{'mtensor.expand_shape' op expects 1 size operand, one per dynamic result dim, but got 0}}
  %0 = mtensor.expand_shape %a [[0, 1], [2]] : tensor<?x8xf32> -> tensor<?x4x8xf32>
  return
}
