#!/usr/bin/env bash
# perfpred select: ranking, rejected devices with the broken constraint, prices, exit codes.
set -u
bin=$1
root=$2
model=$root/models/zoo/resnet18.onnx
[ -f "$model" ] || { echo "skip: $model not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" select "$model" --devices t4,a100-sxm4-40gb,jetson-nano,rtx-3090 >"$tmp/out" 2>"$tmp/err" || fail "select: $(cat "$tmp/err")"
for d in t4 a100-sxm4-40gb jetson-nano rtx-3090; do grep -q "$d" "$tmp/out" || fail "select output lacks $d"; done

"$bin" select "$model" --devices t4,a100-sxm4-40gb,jetson-nano --max-latency-ms 20 --json >"$tmp/j"; rc=$?
/usr/bin/python3 - "$tmp/j" $rc <<'PY' || fail "select --json content"
import json, sys
j = json.load(open(sys.argv[1])); rc = int(sys.argv[2])
lat = [c["prediction"]["latency_ms"] for c in j["ranked"]]
assert lat == sorted(lat), lat
assert all(l <= 20 for l in lat)
for c in j["rejected"]:
    assert c["violations"] and any("--max-latency-ms" in v or "fit" in v for v in c["violations"]), c
assert rc == (0 if j["ranked"] else 1), rc
PY

# --all covers the catalog; a power cap rejects the big boards and says so.
"$bin" select "$model" --all --max-power-w 30 >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "select --all exited $rc"
grep -q "Rejected:" "$tmp/out" || fail "no rejected section"
grep -q -- "--max-power-w" "$tmp/out" || fail "power constraint not named"

# Ranges: each candidate carries the latency, energy and power ranges predict gives; the range limits check their
# high ends (a limit just below a device's high end rejects it naming the flag, just above keeps it); the power
# range never reaches above the board's limit.
"$bin" select "$model" --devices t4,a100-sxm4-40gb --batch 8 --json >"$tmp/r.json" || fail "select for ranges"
read -r lat_lo lat_hi pow_hi < <(/usr/bin/python3 - "$tmp/r.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for c in j["ranked"]:
    for k in ("latency_range_ms", "energy_range_mj", "power_range_w"):
        assert k in c, (c["gpu"]["id"], k)
    assert c["latency_range_ms"]["low"] < c["prediction"]["latency_ms"] < c["latency_range_ms"]["high"], c
    assert c["power_range_w"]["high"] <= c["gpu"]["tdp_w"], c["power_range_w"]
    if c["power_range_w"]["high"] == c["gpu"]["tdp_w"]:
        assert c["power_range_w"]["capped_at_power_limit_w"] == c["gpu"]["tdp_w"], c["power_range_w"]
t4 = [c for c in j["ranked"] if c["gpu"]["id"] == "t4"][0]
print(0.99 * t4["latency_range_ms"]["high"], 1.01 * t4["latency_range_ms"]["high"], 0.99 * t4["power_range_w"]["high"])
PY
) || fail "select --json ranges"
"$bin" select "$model" --devices t4 --batch 8 --max-latency-range-high-ms "$lat_lo" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "latency range limit below the T4's high end exited $rc: $(cat "$tmp/out")"
grep -q "latency range high .* (--max-latency-range-high-ms)" "$tmp/out" || fail "range limit not named: $(cat "$tmp/out")"
"$bin" select "$model" --devices t4 --batch 8 --max-latency-range-high-ms "$lat_hi" >"$tmp/out" 2>&1 ||
  fail "latency range limit above the T4's high end: $(cat "$tmp/out")"
grep -q "latency range" "$tmp/out" || fail "no latency range column: $(cat "$tmp/out")"
"$bin" select "$model" --devices t4 --batch 8 --max-power-range-high-w "$pow_hi" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q -- "--max-power-range-high-w" "$tmp/out" || fail "power range limit: rc $rc $(cat "$tmp/out")"
# Without the table there are no ranges, and a range limit is an error naming it.
mkdir -p "$tmp/no-table"
PERFPRED_MODEL_DIR="$tmp/no-table" "$bin" select "$model" --devices t4 --json >"$tmp/n.json" || fail "select without a table"
/usr/bin/python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['ranked'][0]; assert 'latency_range_ms' not in c, c" \
  "$tmp/n.json" || fail "ranges without a table"
PERFPRED_MODEL_DIR="$tmp/no-table" "$bin" select "$model" --devices t4 --max-latency-range-high-ms 30 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no range table" "$tmp/err" || fail "range limit without a table: $(cat "$tmp/err")"

# Cost objective with prices.
cat >"$tmp/prices.json" <<'J'
{"schema_version": 1, "prices_usd_per_hour": {"t4": 0.35, "a100-sxm4-40gb": 3.0}}
J
"$bin" select "$model" --devices t4,a100-sxm4-40gb --objective cost --prices "$tmp/prices.json" >"$tmp/out" 2>&1 \
  || fail "cost objective: $(cat "$tmp/out")"
grep -q '\$' "$tmp/out" || fail "no cost column"

# Bad input: exit 2 with one line naming the problem.
check2() {
  local want=$1; shift
  "$bin" select "$model" "$@" >/dev/null 2>"$tmp/err"; local rc=$?
  [ $rc -eq 2 ] || fail "select $* exited $rc"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "select $*: more than one line: $(cat "$tmp/err")"
  grep -q -- "$want" "$tmp/err" || fail "select $*: message lacks '$want': $(cat "$tmp/err")"
}
check2 "rtx-3090" --devices t4,rtx-3090 --objective cost --prices "$tmp/prices.json"
check2 "no-such" --devices t4,no-such-gpu
check2 "max-latency-ms" --devices t4 --max-latency-ms 0
check2 "max-power-w" --devices t4 --max-power-w -5
check2 "max-latency-range-high-ms -1.000: must be a positive number" --devices t4 --max-latency-range-high-ms -1
check2 "drop --bundle" --devices t4 --max-power-range-high-w 50 --bundle default
check2 "objective" --devices t4 --objective speed
check2 "prices" --devices t4 --objective cost
echo '{"schema_version": 1, "prices_usd_per_hour": {"t4": "cheap"}}' >"$tmp/bad.json"
check2 "t4" --devices t4 --objective cost --prices "$tmp/bad.json"
check2 "devices" 
# A spec file must not pass for a catalog device (it would be listed as that device).
echo '{"base": "a100-sxm4-40gb", "id": "t4"}' >"$tmp/fake-t4.json"
check2 "fake-t4.json: field 'id'" --devices "$tmp/fake-t4.json,t4"
echo '{"base": "a100-sxm4-40gb"}' >"$tmp/mine.json"
"$bin" select "$model" --devices "$tmp/mine.json,t4" >"$tmp/out" 2>"$tmp/err" || fail "spec without id: $(cat "$tmp/err")"
grep -q "spec:mine" "$tmp/out" && grep -q " t4 " "$tmp/out" || fail "spec without id: $(cat "$tmp/out")"
echo "ok"
