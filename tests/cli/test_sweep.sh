#!/usr/bin/env bash
# perfpred sweep: grid expansion, CSV/JSON, monotone trends, measured rate, exit codes.
set -u
bin=$1
root=$2
model=$root/models/zoo/resnet18.onnx
[ -f "$model" ] || { echo "skip: $model not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Monotone trends are a property of the analytical model (a learned bundle need not be monotone).
"$bin" sweep "$model" --analytical --base-gpu a100-sxm4-40gb --vary sm_count=40:160:20 --vary mem_bandwidth_gbps=500:3000:500 --csv \
  >"$tmp/s.csv" 2>"$tmp/err" || fail "sweep csv: $(cat "$tmp/err")"
grep -q "points/s" "$tmp/err" || fail "no measured rate on stderr"
/usr/bin/python3 - "$tmp/s.csv" <<'PY' || fail "sweep csv content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 7 * 6, len(rows)
assert rows[0]["sm_count"] == "40" and rows[0]["mem_bandwidth_gbps"] == "500"
assert rows[1]["mem_bandwidth_gbps"] == "1000"  # last axis fastest
assert all(r["peak_memory_bytes"].isdigit() for r in rows), rows[0]["peak_memory_bytes"]  # whole bytes, as predict
# For each SM count, more bandwidth is never slower; for each bandwidth, more SMs never slower.
by = {(float(r["sm_count"]), float(r["mem_bandwidth_gbps"])): float(r["latency_ms"]) for r in rows}
sms = sorted({k[0] for k in by}); bws = sorted({k[1] for k in by})
for s in sms:
    l = [by[(s, b)] for b in bws]
    assert all(l[i + 1] <= l[i] * (1 + 1e-9) for i in range(len(l) - 1)), (s, l)
for b in bws:
    l = [by[(s, b)] for s in sms]
    assert all(l[i + 1] <= l[i] * (1 + 1e-9) for i in range(len(l) - 1)), (b, l)
assert by[(160, 3000)] < by[(40, 500)]
PY

# A big grid: thousands of points per second.
"$bin" sweep "$model" --analytical --base-gpu t4 --vary sm_count=10:200:2 --vary boost_clock_mhz=600:2400:100 --json >"$tmp/j" 2>"$tmp/err" \
  || fail "big sweep"
/usr/bin/python3 - "$tmp/j" <<'PY' || fail "sweep json"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["points"]) == 96 * 19, len(j["points"])
print("sweep rate: %.0f points/s over %d points" % (j["points_per_second"], len(j["points"])))
assert j["points_per_second"] > 1000, j["points_per_second"]
PY

for args in "--vary warp_size=1:2:1" "--vary sm_count=40:20:10" "--vary sm_count=40:80:0" "--vary sm_count=0:80:10" \
            "--vary sm_count" "--vary sm_count=10:1000000:1 --vary memory_gb=1:1000:1"; do
  # shellcheck disable=SC2086
  "$bin" sweep "$model" --base-gpu t4 $args >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "sweep $args exited $rc"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "sweep $args: $(cat "$tmp/err")"
done
"$bin" sweep "$model" --base-gpu nope --vary sm_count=10:20:10 >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown base gpu"
# The default cap is 100,000 points (a 1,000,000-point sweep ran for minutes unasked): past it the sweep is refused
# at once, naming the flag that raises the cap.
"$bin" sweep "$model" --base-gpu t4 --vary sm_count=1:100001:1 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "a 100,001-point sweep exited $rc"
grep -q "exceeds 100000 points.*raise --max-points" "$tmp/err" || fail "over the default cap: $(cat "$tmp/err")"
"$bin" sweep "$model" --base-gpu t4 --vary sm_count=1:2:1 --max-points 1 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "exceeds 1 points" "$tmp/err" || fail "--max-points 1 ($rc): $(cat "$tmp/err")"

# Grid points go through spec-file validation: idle power above TDP is exit 2 naming field and value,
# before any output; a lower TDP alone keeps the idle share, so no point draws above its TDP.
"$bin" sweep "$model" --base-gpu a100-sxm4-40gb --vary idle_power_w=100:500:100 --csv >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "idle_power_w above tdp_w exited $rc"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "idle above tdp: $(cat "$tmp/err")"
grep -q "idle_power_w=500" "$tmp/err" && grep -q "'tdp_w'" "$tmp/err" || fail "idle above tdp message: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "idle above tdp printed rows"
"$bin" sweep "$model" --analytical --base-gpu a100-sxm4-40gb --vary tdp_w=10:400:30 --csv >"$tmp/p.csv" 2>"$tmp/err" \
  || fail "tdp sweep: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/p.csv" <<'PY' || fail "power above the swept tdp_w"
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    assert 0 < float(r["avg_power_w"]) <= float(r["tdp_w"]) * (1 + 1e-9), r
PY
echo "ok"
