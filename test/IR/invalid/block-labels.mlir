// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

"x.region"() ({
// expected-note@+1 {{previously defined here}}
^bb0:
  "x.br"() : () -> ()
// expected-error@+1 {{redefinition of block '^bb0'}}
^bb0:
  "x.br"() : () -> ()
}) : () -> ()

// -----

func.func @f(%a: f32) {
// expected-error@+1 {{invalid block name in region with named arguments}}
^bb0(%b: f32):
  func.return
}

// -----

"x.region"() ({
^bb0:
  "x.br"() : () -> ()
// expected-error@+1 {{expected ':', found string}}
^bb1 "x.br"() : () -> ()
}) : () -> ()
