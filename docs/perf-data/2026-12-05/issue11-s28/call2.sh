# Session 28, call 2 (on an H100: the device lent no H200): the issue's rows with the cost model
# (no cache entry exists for this device) against the committed H200 cache's entries relabelled
# for this device (same architecture, same SM count), and Inductor's default in the same call.
#   OUT=$OUT bash docs/perf-data/2026-12-05/issue11-s28/call2.sh
# Needs ../shared/bench/anchors.py in .device-bin/peers/.
DEADLINE=570 . tools/scripts/device-call.sh
python3 - "$C" /tmp/borrow.json <<'PY'
import json, subprocess, sys
name = subprocess.check_output(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).decode().splitlines()[0].strip()
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    e["device"]["name"] = name
json.dump(d, open(sys.argv[2], "w"), indent=1)
print("relabelled", len(d["entries"]), "entries for", name)
PY
cp /tmp/borrow.json "$OUT/borrow.json"
multi() { # label example cache extra...
  local l=$1 ex=$2 c=$3; shift 3
  [ "$(left)" -lt 60 ] && { echo "$l: skipped (deadline)" >> "$S"; return; }
  timeout 170 "$B/morf-bench" "examples/$ex.mlir" --tuning-cache "$c" --runs 100 --warmup 10 \
    --sizes M=576000,N=384 --sizes M=65536,N=1024 --sizes M=32768,N=4096 --sizes M=16384,N=8192 --sizes M=4096,N=16384 \
    --json "$OUT/json/$l.json" "$@" > "$OUT/logs/$l.txt" 2> "$OUT/logs/$l.log"
  echo "== $l rc=$? t=$(( $(date +%s) - T0 )) $(grep -o 'copy: .*' "$OUT/logs/$l.log" | head -1)" >> "$S"
  grep -E '^\| [0-9]' "$OUT/logs/$l.txt" >> "$S"
  grep -c 'check .*ok' "$OUT/logs/$l.log" | sed "s/^/$l checks ok: /" >> "$S"
}
peers() { # op
  [ "$(left)" -lt 100 ] && { echo "peers $1: skipped (deadline)" >> "$S"; return; }
  local sh=576000x384:bf16,65536x1024:bf16,32768x4096:bf16,16384x8192:bf16,4096x16384:bf16
  (cd .device-bin/peers && OUT=$OUT ONLY_INDUCTOR=1 SHAPES=$sh timeout 110 python3 anchors.py "$1") > "$OUT/logs/peers-$1.txt" 2>&1
  echo "== Inductor default $1 rc=$? t=$(( $(date +%s) - T0 ))" >> "$S"
  grep -E "copy bandwidth|inductor" "$OUT/logs/peers-$1.txt" | grep -v kernels >> "$S"
}
multi rms-model rmsnorm_bwd none --no-check
multi rms-borrow rmsnorm_bwd /tmp/borrow.json
peers rms
multi ln-model layernorm_bwd none --no-check
multi ln-borrow layernorm_bwd /tmp/borrow.json
peers ln
finish
