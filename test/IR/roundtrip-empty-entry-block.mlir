// An empty entry block followed by another block keeps its label when printed, so the
// round trip keeps both blocks (found by the roundtrip fuzz target: the printer left the
// label out and the reparsed region had one block).
// RUN: morf-opt %s --allow-unregistered-dialect | morf-opt --allow-unregistered-dialect | FileCheck %s
// RUN: morf-opt %s --allow-unregistered-dialect --print-op-generic | morf-opt --allow-unregistered-dialect | FileCheck %s

// CHECK:      "x.region"() ({
// CHECK-NEXT: ^bb0:
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: }) : () -> ()
"x.region"() ({
^bb0:
^bb7:
}) : () -> ()

// CHECK:      "x.region"() ({
// CHECK-NEXT:   "x.op"() : () -> ()
// CHECK-NEXT: ^bb1:
// CHECK-NEXT: }) : () -> ()
"x.region"() ({
  "x.op"() : () -> ()
^bb3:
}) : () -> ()
