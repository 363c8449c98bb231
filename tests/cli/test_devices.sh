#!/usr/bin/env bash
# End-to-end test of `perfpred devices`: list, show, MIG/power-mode ids, spec files, bad ids (exit 2).
# Usage: bash test_devices.sh PERFPRED_BINARY REPO_ROOT
set -u
bin=${1:?perfpred binary}
root=${2:?repository root}
export PERFPRED_DATA_DIR="$root/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" devices >"$tmp/list.txt" || fail "devices exited $?"
for id in a100-sxm4-40gb h200-sxm-141gb jetson-nano titan-v p4 v100-pcie-32gb a40; do
  grep -q "^$id " "$tmp/list.txt" || fail "devices does not list $id"
done
grep -q "7 MIG" "$tmp/list.txt" || fail "no MIG column"
grep -q "2 modes" "$tmp/list.txt" || fail "no power-mode column"

"$bin" devices --json >"$tmp/list.json" || fail "devices --json exited $?"
python3 - "$tmp/list.json" <<'PY' || fail "devices --json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1
ids = {x["id"] for x in d["devices"]}
assert len(ids) >= 33 and "jetson-agx-orin-64gb" in ids, ids
a = next(x for x in d["devices"] if x["id"] == "a100-sxm4-40gb")
assert "a100-sxm4-40gb:3g.20gb" in a["derived_ids"] and a["sm_count"] == 108
PY

"$bin" devices show a100-sxm4-40gb:3g.20gb >"$tmp/show.txt" || fail "show MIG exited $?"
grep -q "sm_count *42" "$tmp/show.txt" || fail "MIG slice SM count"
grep -q "Assumptions" "$tmp/show.txt" || fail "show lists no assumptions"
"$bin" devices show t4 >"$tmp/t4.txt" || fail "show t4"
grep -q "Sources" "$tmp/t4.txt" || fail "show t4 has no sources"
"$bin" devices show jetson-nano@5w --json >"$tmp/nano.json" || fail "show power mode --json"
python3 - "$tmp/nano.json" <<'PY' || fail "show --json content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["id"] == "jetson-nano@5w" and d["tdp_w"] == 5 and d["boost_clock_mhz"] == 640, d
PY
"$bin" devices show a30 --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert len(d['mig_profiles'])==5 and 'a30:4g.24gb' in d['derived_ids']" \
  || fail "show a30 --json lacks mig_profiles"
"$bin" devices show "$root/data/examples/hypothetical-gpu.json" >"$tmp/spec.txt" || fail "show spec file"
grep -q "spec:hypothetical-gpu" "$tmp/spec.txt" || fail "spec id"

"$bin" devices show a100-sxm-40gb 2>"$tmp/err.txt"; rc=$?
[ "$rc" -eq 2 ] || fail "bad id exited $rc, expected 2"
grep -q "a100-sxm4-40gb" "$tmp/err.txt" || fail "bad id error does not suggest a100-sxm4-40gb: $(cat "$tmp/err.txt")"
echo '{"sm_count": 0, "boost_clock_mhz": 1500, "fp32_lanes_per_sm": 128, "mem_bandwidth_gbps": 900, "memory_gb": 24}' >"$tmp/bad.json"
"$bin" devices show "$tmp/bad.json" 2>"$tmp/err2.txt"; rc=$?
[ "$rc" -eq 2 ] || fail "bad spec exited $rc, expected 2"
grep -q "sm_count" "$tmp/err2.txt" || fail "bad spec error does not name sm_count"
echo "devices: ok"
