// Pipelines: --pass-pipeline text, shorthand pass flags in command-line order, named
// pipelines, --dump-pass-pipeline, and errors in pipeline text.
// RUN: morf-opt %s --dump-pass-pipeline --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=8},cse),dce)' 2>&1 >/dev/null | FileCheck --check-prefix=DUMP %s
// RUN: morf-opt %s --dump-pass-pipeline --cse --canonicalize='max-iterations=4 test-convergence' --dce 2>&1 >/dev/null | FileCheck --check-prefix=FLAGS %s
// RUN: morf-opt %s --dump-pass-pipeline --pass-pipeline='cse, dce' 2>&1 >/dev/null | FileCheck --check-prefix=BARE %s
// RUN: morf-opt %s --pass-pipeline='builtin.module(func.func(cse))' | FileCheck --check-prefix=CSE %s
// RUN: not morf-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck --check-prefix=PAREN %s
// RUN: not morf-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck --check-prefix=UNKNOWN %s
// RUN: not morf-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=8)' 2>&1 | FileCheck --check-prefix=BRACE %s
// RUN: not morf-opt %s --pass-pipeline='builtin.module(canonicalize{bogus=1})' 2>&1 | FileCheck --check-prefix=OPTION %s
// RUN: not morf-opt %s --pass-pipeline='builtin.module(cse)' --dce 2>&1 | FileCheck --check-prefix=BOTH %s
// RUN: not morf-opt %s --pipeline=no-such-pipeline 2>&1 | FileCheck --check-prefix=NAMED %s

// DUMP: builtin.module(func.func(canonicalize{fold=true max-iterations=8 test-convergence=false},cse),dce)
// FLAGS: builtin.module(cse,canonicalize{fold=true max-iterations=4 test-convergence=true},dce)
// BARE: builtin.module(cse,dce)
// CSE-LABEL: func.func @f
// CSE-COUNT-1: mtensor.add
// CSE-NOT: mtensor.add
// PAREN: morf-opt: error: invalid pass pipeline 'builtin.module(cse': expected ')' at column 19 of the pipeline
// UNKNOWN: morf-opt: error: invalid pass pipeline '{{.*}}': 'no-such-pass' does not refer to a registered pass
// BRACE: morf-opt: error: invalid pass pipeline '{{.*}}': unterminated '{' in the options of 'canonicalize'
// OPTION: morf-opt: error: invalid pass pipeline '{{.*}}': pass 'canonicalize' has no option 'bogus' (options: max-iterations, test-convergence, fold)
// BOTH: morf-opt: error: --pass-pipeline cannot be combined with pass flags such as --cse
// NAMED: morf-opt: error: unknown pipeline 'no-such-pipeline'

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mtensor.add %a, %a : tensor<4xf32>
  %1 = mtensor.add %a, %a : tensor<4xf32>
  %2 = mtensor.mul %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
