#!/usr/bin/env bash
# perfpred profile: the simulated quick plan end to end, the one-line failure without a GPU, and
# bad input. Usage: test_profile.sh PERFPRED_BINARY REPO_ROOT
set -uo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. Default backend (cuda) without a GPU: non-zero, exactly one line on stderr, nothing on stdout.
if ! nvidia-smi -L >/dev/null 2>&1; then
  "$bin" profile --plan quick --out "$tmp/nogpu" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -ne 0 ] || fail "profile without a GPU exited 0"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "expected one line on stderr"; }
  grep -qiE "no (usable )?CUDA GPU|not built" "$tmp/err" || { cat "$tmp/err"; fail "message does not say why"; }
  [ ! -s "$tmp/out" ] || fail "stdout not empty"
fi

# 2. The simulated quick plan: every entry becomes one synthetic row, stdout is one JSON summary.
planned=$("$bin" profile --plan quick --dry-run | wc -l)
[ "$planned" -gt 500 ] || fail "quick plan has only $planned entries"
start=$(date +%s.%N)
"$bin" profile --backend simulated --gpu a100-sxm4-40gb --plan quick --out "$tmp/sim" >"$tmp/summary.json" 2>"$tmp/err" \
  || { cat "$tmp/err"; fail "simulated quick plan failed"; }
end=$(date +%s.%N)
python3 - "$tmp/summary.json" "$planned" <<'PY' || fail "summary"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["complete"] and s["written"] == int(sys.argv[2]), s
assert s["gpu_id"] == "a100-sxm4-40gb", s
PY
"$bin" dataset info --json "$tmp/sim/kernels.csv" >"$tmp/k.json" || fail "info kernels"
"$bin" dataset info --json "$tmp/sim/microbench.csv" >"$tmp/m.json" || fail "info microbench"
"$bin" dataset info --json "$tmp/sim/networks.csv" >"$tmp/n.json" || fail "info networks"
python3 - "$tmp/k.json" "$tmp/m.json" "$planned" "$tmp/n.json" <<'PY' || fail "rows"
import json, sys
k, m, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[4]))
assert k["rows"] + m["rows"] + n["rows"] == int(sys.argv[3]), (k["rows"], m["rows"], n["rows"])
assert n["kind"] == "network" and n["rows"] == 6 and n["synthetic_rows"] == 6, n
assert k["synthetic_rows"] == k["rows"] and k["licence"] == "synthetic", k
assert set(k["by_op_family"]) >= {"conv", "gemm", "norm", "elementwise", "pool", "softmax", "rnn"}, k["by_op_family"]
PY
head -1 "$tmp/sim/kernels.csv" | grep -q '^#perfpred kernel-dataset schema_version=1$' || fail "first line"
python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['plan']['name']=='quick' and 'a100-sxm4-40gb' in j['devices']" \
  "$tmp/sim/kernels.csv.meta.json" || fail "sidecar"
echo "simulated quick plan: $planned rows in $(python3 -c "print(round($end-$start,2))") s"

# 3. The simulated rows train a (not-for-shipping) learned bundle.
if "$bin" train --help >/dev/null 2>&1; then
  "$bin" -q train --data "$tmp/sim/kernels.csv" --out "$tmp/bundle.json" --allow-unlicensed-eval --rounds 20 >/dev/null 2>"$tmp/err" \
    || { cat "$tmp/err"; fail "train on simulated rows"; }
  [ -s "$tmp/bundle.json" ] || fail "no bundle"
fi

# 4. Bad input exits 2 with one line naming the problem.
"$bin" profile --backend simulated --gpu a100-sxm4-40gb --plan quick --out "$tmp/sim" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--resume" "$tmp/err" || fail "existing --out without --resume"
"$bin" profile --backend simulated --gpu a100-sxm4-40gb --shard 3/2 --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--shard" "$tmp/err" || fail "bad shard"
"$bin" profile --backend simulated --gpu no-such-gpu --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] || fail "unknown gpu"
"$bin" profile --backend simulated --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--gpu" "$tmp/err" || fail "missing --gpu"
"$bin" profile --backend simulated --gpu t4 --plan "$tmp/none.json" --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] || fail "missing plan"
echo '{"schema_version": 1, "name": "bad", "sweeps": [{"op": "conv", "grid": {"batch": 1}}]}' >"$tmp/bad.json"
"$bin" profile --backend simulated --gpu t4 --plan "$tmp/bad.json" --out "$tmp/x" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad.json" "$tmp/err" || { cat "$tmp/err"; fail "bad plan"; }
echo PASS
