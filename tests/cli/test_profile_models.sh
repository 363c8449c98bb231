#!/usr/bin/env bash
# perfpred profile with a model sweep (whole ONNX models layer by layer) on the simulated backend:
# network rows beside the kernel rows, kill + --resume without duplicate network rows, `perfpred
# train` reading the network dataset, and a missing model named. Usage: test_profile_models.sh PERFPRED_BINARY REPO_ROOT
set -uo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat >"$tmp/models.json" <<'EOF'
{"schema_version": 1, "name": "models-test", "repeats": 5,
 "sweeps": [{"name": "zoo", "kind": "model", "models": ["models/zoo/lenet5.onnx", "models/zoo/resnet18.onnx"],
             "batch": [1, 2], "precision": ["fp32"], "mode": ["inference", "training"]}]}
EOF
"$bin" profile --plan "$tmp/models.json" --dry-run >"$tmp/ids" || fail "dry run"
planned=$(wc -l <"$tmp/ids")
nets=$(grep -c '^network|' "$tmp/ids")
[ "$nets" -eq 8 ] || fail "expected 8 network entries, got $nets"

args=(profile --backend simulated --gpu a100-sxm4-40gb --plan "$tmp/models.json" --out "$tmp/run" --no-progress)
"$bin" "${args[@]}" --simulate-ms-per-entry 10 >/dev/null 2>"$tmp/err1" &
pid=$!
for _ in $(seq 1 1200); do  # until the third network row is written (the machine may be slow)
  [ -f "$tmp/run/networks.csv" ] && [ "$(grep -c '^network|' "$tmp/run/networks.csv")" -ge 3 ] && break
  sleep 0.05
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
n1=$(grep -c '^network|' "$tmp/run/networks.csv" 2>/dev/null || echo 0)
[ "$n1" -ge 1 ] && [ "$n1" -lt "$nets" ] || fail "kill did not land mid-run ($n1 network rows)"

start=$(date +%s.%N)
"$bin" "${args[@]}" --resume >"$tmp/summary.json" 2>"$tmp/err2" || { cat "$tmp/err2"; fail "resume"; }
end=$(date +%s.%N)
python3 - "$tmp/run" "$planned" "$nets" >"$tmp/counts" <<'PY' || fail "rows after resume"
import csv, io, os, re, sys
d, planned, nets = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def rows(name, kind):
    with open(os.path.join(d, name), newline="") as fh:
        text = fh.read()
    assert text.startswith("#perfpred %s-dataset schema_version=1\n" % kind), text[:60]
    return list(csv.DictReader(io.StringIO(text.split("\n", 1)[1])))
k, n = rows("kernels.csv", "kernel"), rows("networks.csv", "network")
ids = [r["id"] for r in k] + [r["id"] for r in n]
assert len(ids) == len(set(ids)), "duplicate ids"
assert len(ids) == planned, (len(ids), planned)
assert len(n) == nets, len(n)
assert all("; node=" in r["notes"] for r in k), "kernel row without its node"
assert any(r["phase"] == "optimizer" and r["op"] == "SGD" for r in k), "no SGD update row"
for r in n:
    assert r["status"] == "ok", (r["id"], r["reason"])
    assert os.path.isfile(os.path.join(d, r["model"])), r["model"]
    seq, layers = float(r["latency_ms"]), float(re.search(r"layer_sum_ms=([0-9.]+)", r["notes"]).group(1))
    assert seq > layers > 0, (seq, layers)
    assert (r["mode"] == "training") == ("optimizer=sgd" in r["notes"]), r["notes"][:200]
print(len(k), len(n))
PY
read -r kernel_rows network_rows <"$tmp/counts"
echo "killed with $n1 of $nets network rows; resume completed $planned entries ($kernel_rows kernel, $network_rows network rows) in $(python3 -c "print(round($end-$start,2))") s"

# perfpred train reads the network dataset (the model path resolves from the CSV's directory).
"$bin" -q train --data "$tmp/run/kernels.csv" --data "$tmp/run/networks.csv" --out "$tmp/bundle.json" \
  --allow-unlicensed-eval --rounds 10 --json >"$tmp/train.json" 2>"$tmp/err3" || { cat "$tmp/err3"; fail "train"; }
python3 - "$tmp/train.json" "$kernel_rows" "$network_rows" "$tmp/bundle.json" <<'PY' || { cat "$tmp/err3"; fail "train used no network rows"; }
import json, sys
t = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[4]))
# Every network row was read: it became a host-overhead sample, or was counted as not host-identifiable
# (GPU-bound: doubling the host cost moves its prediction by less than --host-min-sensitivity).
used = t["rows"] - int(sys.argv[2])
skipped = b["training"]["params"].get("host_rows_not_host_bound", 0)
assert used > 0 and used + skipped == int(sys.argv[3]), (t["rows"], skipped, sys.argv[2:4])
PY
grep -q "not exported" "$tmp/err3" && fail "train could not find the models: $(cat "$tmp/err3")"

# A missing model: exit 2, one line naming the plan, the sweep and the path.
sed 's#models/zoo/lenet5.onnx#models/zoo/no_such.onnx#' "$tmp/models.json" >"$tmp/bad.json"
"$bin" profile --backend simulated --gpu a100-sxm4-40gb --plan "$tmp/bad.json" --out "$tmp/x" 2>"$tmp/err4"
[ $? -eq 2 ] || fail "missing model: expected exit 2"
grep -q "bad.json" "$tmp/err4" && grep -q "zoo" "$tmp/err4" && grep -q "models/zoo/no_such.onnx" "$tmp/err4" \
  || { cat "$tmp/err4"; fail "missing model message"; }
echo PASS
