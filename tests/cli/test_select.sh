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
