#!/usr/bin/env bash
# Which example shapes two builds of morf-opt schedule differently: before timing a change,
# the shapes it moves (and that it moves nothing else).
#
#   bash tools/scripts/schedule_diff.sh OLD_MORF_OPT NEW_MORF_OPT [PIPELINE] [SHAPE...]
#
# Runs `--pipeline PIPELINE` (default `gpu`) over every example of examples/ at each shape
# (default: a spread of 22 shapes; `K=64` is added for two_norms_shared_weight and `B=64`
# put first for reduce3d) with both binaries, and prints `DIFF example shape` for each pair
# of lowered modules that differ, with the schedule-report lines that differ under it. Run it
# from the repository root. Exit code 0 either way; 1 when a binary is missing.
set -u
old=${1:?usage: schedule_diff.sh OLD NEW [PIPELINE] [SHAPE...]}
new=${2:?usage: schedule_diff.sh OLD NEW [PIPELINE] [SHAPE...]}
pipeline=${3:-gpu}
shift $(( $# < 3 ? $# : 3 ))
for b in "$old" "$new"; do
  [ -x "$b" ] || { echo "schedule_diff.sh: $b is not an executable" >&2; exit 1; }
done
shapes=("$@")
if [ ${#shapes[@]} -eq 0 ]; then
  shapes=(M=262144,N=100 M=100003,N=100 M=65536,N=1024 M=16384,N=8192 M=4096,N=16384 M=5120,N=5120
    M=1000,N=1000 M=32768,N=4096 M=65536,N=200 M=576000,N=384 M=32768,N=768 M=33791,N=768
    M=131072,N=256 M=1000000,N=256 M=8388608,N=2 M=8388608,N=3 M=2097152,N=17 M=5120,N=1024
    M=2048,N=4096 M=10000,N=2000 M=1024,N=1024 M=262144,N=64)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ex in examples/*.mlir; do
  name=$(basename "$ex" .mlir)
  for s in "${shapes[@]}"; do
    case $name in
      reduce3d) hints="B=64,$s" ;;
      *) hints="$s,K=64" ;;
    esac
    "$old" "$ex" --pipeline "$pipeline" --size-hints "$hints" --schedule-report -o "$tmp/a.mlir" 2> "$tmp/a.rep"
    "$new" "$ex" --pipeline "$pipeline" --size-hints "$hints" --schedule-report -o "$tmp/b.mlir" 2> "$tmp/b.rep"
    if ! cmp -s "$tmp/a.mlir" "$tmp/b.mlir"; then
      echo "DIFF $name $s"
      diff <(grep "schedule:" "$tmp/a.rep" | sed 's/.*schedule: //') \
        <(grep "schedule:" "$tmp/b.rep" | sed 's/.*schedule: //') | grep '^[<>]'
    fi
  done
done
exit 0
