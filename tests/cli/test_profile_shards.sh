#!/usr/bin/env bash
# Shard a plan three ways, merge the shards (plus a duplicate shard) with `perfpred dataset merge`,
# and check the merged dataset. Usage: test_profile_shards.sh PERFPRED_BINARY REPO_ROOT
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat >"$tmp/plan.json" <<'JSON'
{"schema_version": 1, "name": "small", "precisions": ["fp32", "fp16"],
 "sweeps": [{"op": "conv", "phases": ["forward", "backward_data"], "grid": {"batch": [1, 4], "in_channels": 32, "out_channels": 32, "size": 28, "kernel": [1, 3]}},
            {"op": "gemm", "grid": {"m": [64, 512], "n": 256, "k": 256}}]}
JSON
total=$("$bin" profile --plan "$tmp/plan.json" --dry-run | wc -l)
for i in 0 1 2; do
  "$bin" profile --backend simulated --gpu l4 --plan "$tmp/plan.json" --shard $i/3 --out "$tmp/s$i" --no-progress >/dev/null \
    || fail "shard $i"
done
"$bin" dataset merge "$tmp/all.csv" "$tmp/s0/kernels.csv" "$tmp/s1/kernels.csv" "$tmp/s2/kernels.csv" "$tmp/s0/kernels.csv" \
  >"$tmp/merge.json" || fail "merge"
python3 - "$tmp/merge.json" "$total" <<'PY' || fail "merge counts"
import json, sys
m = json.load(open(sys.argv[1]))
t = int(sys.argv[2])
assert m["rows_out"] == t and m["duplicates"] == m["rows_in"] - t and m["conflicting_duplicates"] == 0, m
PY
"$bin" dataset info "$tmp/all.csv" >"$tmp/info.txt" || fail "info"
grep -q "kernel dataset, schema_version 1, $total rows" "$tmp/info.txt" || { cat "$tmp/info.txt"; fail "info text"; }
grep -q "l4: $total" "$tmp/info.txt" || fail "info gpu"
[ -f "$tmp/all.csv.meta.json" ] || fail "merged sidecar"
"$bin" dataset merge "$tmp/all.csv" "$tmp/s0/kernels.csv" 2>/dev/null
[ $? -eq 2 ] || fail "merge over an existing file must be refused"
"$bin" dataset info "$tmp/nothing.csv" 2>/dev/null
[ $? -eq 2 ] || fail "info of a missing file"
echo PASS
