// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  %a = "x.op"() : () -> f32
  "x.use"(%a) : (f32) -> ()
  // expected-error@+1 {{use of value '%a' expects different type than prior uses: 'i32' vs 'f32'}}
  "x.use"(%a) : (i32) -> ()
  func.return
}

// -----

func.func @f() {
  // Two forward uses disagree.
  "x.use"(%b) : (f32) -> ()
  // expected-error@+1 {{use of value '%b' expects different type than prior uses: 'i32' vs 'f32'}}
  "x.use"(%b) : (i32) -> ()
  %b = "x.op"() : () -> f32
  func.return
}

// -----

func.func @f() {
  // A forward use disagrees with the definition.
  // expected-error@+1 {{use of value '%c' expects different type than its definition: 'i32' vs 'f32'}}
  "x.use"(%c) : (i32) -> ()
  // expected-note@+1 {{defined here}}
  %c = "x.op"() : () -> f32
  func.return
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{use of value '%x' expects different type than prior uses: 'tensor<?xf32>' vs 'tensor<4xf32>'}}
  func.return %x : tensor<?xf32>
}
