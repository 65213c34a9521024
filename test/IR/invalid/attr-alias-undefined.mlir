// RUN: morf-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error@+1 {{undefined attribute alias '#map'}}
"x.op"() {a = #map} : () -> ()
