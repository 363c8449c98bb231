#!/usr/bin/env bash
# scripts/ci-example/: the copyable CI script passes on the example budgets, fails (exit 1, JUnit
# failure) when a limit is tightened, and reports a broken budget file with exit 2.
set -u
bin=$1
root=$2
ex=$root/scripts/ci-example
[ -f "$root/models/zoo/resnet18.onnx" ] || { echo "skip: zoo models not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$tmp" && PERFPRED=$bin PERFPRED_VERDICT=$tmp/verdict.json "$ex/check_budgets.sh") >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "example budgets exited $rc: $(cat "$tmp/out")"
[ -s "$tmp/perfpred-budgets.xml" ] || fail "no JUnit file in the working directory"
grep -q "every performance budget is met" "$tmp/out" || fail "no success line"
/usr/bin/python3 -c "
import json, xml.etree.ElementTree as ET
v = json.load(open('$tmp/verdict.json')); assert v['passed'] and 'meta' not in v
r = ET.parse('$tmp/perfpred-budgets.xml').getroot(); assert r.get('failures') == '0', r.attrib
" || fail "verdict or JUnit content"

# The same budgets with one limit tightened, copied elsewhere (model paths stay valid via absolute paths).
/usr/bin/python3 - "$ex/budgets.json" "$tmp/tight.json" "$ex" <<'PY'
import json, os, sys
b = json.load(open(sys.argv[1]))
for e in b["entries"]:
    e["model"] = os.path.normpath(os.path.join(sys.argv[3], e["model"]))
b["entries"][0]["limits"]["latency_ms"] = 1e-6
json.dump(b, open(sys.argv[2], "w"), indent=2)
PY
(cd "$tmp" && PERFPRED=$bin PERFPRED_JUNIT=$tmp/tight.xml "$ex/check_budgets.sh" "$tmp/tight.json") >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "tightened budget exited $rc"
grep -q "^FAIL" "$tmp/out" || fail "no FAIL line"
/usr/bin/python3 -c "
import xml.etree.ElementTree as ET
r = ET.parse('$tmp/tight.xml').getroot(); assert r.get('failures') == '1', r.attrib
" || fail "JUnit does not show the failure"

echo '{"schema_version": 1}' >"$tmp/broken.json"
(cd "$tmp" && PERFPRED=$bin "$ex/check_budgets.sh" "$tmp/broken.json") >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "broken budget file exited $rc"
echo "ok"
