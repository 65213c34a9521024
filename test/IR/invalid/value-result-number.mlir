// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

%r:2 = "x.op"() : () -> (f32, f32)
// expected-error@+1 {{result number 2 out of range for '%r'}}
"x.use"(%r#2) : (f32) -> ()

// -----

func.func @f() {
  // expected-error@+1 {{result number out of range for '%r'}}
  "x.use"(%r#5) : (f32) -> ()
  %r:2 = "x.op"() : () -> (f32, f32)
  func.return
}
