// The tutorial's commands (docs/tutorial.md, every `$` line of its console blocks) run with the
// tools under test; a command with `--device gpu` only where a GPU is present.
// RUN: env MORF_LIT=1 python3 %S/../../tools/scripts/run_tutorial.py %S/../../docs/tutorial.md | FileCheck %s
// CHECK: ran: morf-run docs/tutorial/sumsq.mlir --device interp
// CHECK: ran: morf-opt docs/tutorial/sumsq.mlir --pipeline=fuse {{.*}}--fusion-report
// CHECK: ran: morf-opt docs/tutorial/sumsq.mlir --pipeline=gpu {{.*}}--schedule-report
// CHECK: ran: morf-run docs/tutorial/sumsq.mlir --device sim --check
// CHECK: ok: {{[0-9]+}} commands
