#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with the seed corpus (test/**/*.mlir split at `// -----`,
# examples/*.mlir, generated and hand-broken .npy files), then prints how to run a target.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo run --release -q -p morf-fuzz-targets --bin morf-fuzz-corpus -- "$root/fuzz/corpus"
echo "run: cargo +nightly fuzz run parse fuzz/corpus/parse -- -dict=fuzz/mlir.dict -max_total_time=600"
