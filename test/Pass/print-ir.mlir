// IR printing instrumentation: dumps go to stderr, the output to stdout.
// RUN: morf-opt %s --cse --dce --print-ir-after-all 2>&1 >/dev/null | FileCheck --check-prefix=AFTER %s
// RUN: morf-opt %s --cse --dce --print-ir-before-all 2>&1 >/dev/null | FileCheck --check-prefix=BEFORE %s
// RUN: morf-opt %s --cse --dce --print-ir-after=dce 2>&1 >/dev/null | FileCheck --check-prefix=ONE %s
// RUN: morf-opt %s --cse --dce --print-ir-before=cse,dce 2>&1 >/dev/null | FileCheck --check-prefix=LIST %s
// RUN: morf-opt %s --cse --cse --print-ir-after-change 2>&1 >/dev/null | FileCheck --check-prefix=CHANGE %s
// RUN: morf-opt %s --cse --print-ir-after-all --print-op-generic 2>&1 >/dev/null | FileCheck --check-prefix=GENERIC %s
// RUN: not morf-opt %s --cse --print-ir-after=no-such-pass 2>&1 | FileCheck --check-prefix=BAD %s
// Nothing fails here, so --print-ir-after-failure prints nothing; verify-each spellings are accepted.
// RUN: morf-opt %s --cse --print-ir-after-failure --verify-each=false 2>&1 >/dev/null | FileCheck --allow-empty --check-prefix=NONE %s
// RUN: morf-opt %s --cse --no-verify-each --print-ir-after-failure 2>&1 >/dev/null | FileCheck --allow-empty --check-prefix=NONE %s
// RUN: morf-opt %s --cse --verify-each 2>&1 >/dev/null | FileCheck --allow-empty --check-prefix=NONE %s

// AFTER: // -----// IR Dump After cse //----- //
// AFTER-NEXT: module {
// AFTER-COUNT-1: mtensor.add
// AFTER: // -----// IR Dump After dce //----- //
// AFTER-NOT: mtensor.exp

// BEFORE: // -----// IR Dump Before cse //----- //
// BEFORE-COUNT-2: mtensor.add
// BEFORE: // -----// IR Dump Before dce //----- //
// BEFORE: mtensor.exp

// ONE-NOT: IR Dump After cse
// ONE: // -----// IR Dump After dce //----- //

// LIST: IR Dump Before cse
// LIST: IR Dump Before dce

// The second cse changes nothing, so only the first one prints.
// CHANGE: IR Dump After cse
// CHANGE-NOT: IR Dump

// GENERIC: "mtensor.add"

// BAD: morf-opt: error: --print-ir-after: 'no-such-pass' does not refer to a registered pass

// NONE-NOT: IR Dump

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.add %a, %a : tensor<4xf32>
  %1 = mtensor.add %a, %a : tensor<4xf32>
  %2 = mtensor.mul %0, %1 : tensor<4xf32>
  %3 = mtensor.exp %2 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
