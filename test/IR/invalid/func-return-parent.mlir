// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

func.func @f() {
  "x.region"() ({
    // expected-error@+1 {{'func.return' op expects parent op 'func.func'}}
    func.return
  }) : () -> ()
  func.return
}

// -----

// expected-error@+1 {{'func.return' op expects parent op 'func.func'}}
func.return
