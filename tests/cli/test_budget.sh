#!/usr/bin/env bash
# perfpred budget check: pass/fail exit codes, JUnit XML, deterministic JSON, bad budget files.
set -u
bin=$1
root=$2
zoo=$root/models/zoo
[ -f "$zoo/resnet18.onnx" ] && [ -f "$zoo/lenet5.onnx" ] || { echo "skip: zoo models not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/ci/models" "$tmp/ci/gpus"
cp "$zoo/resnet18.onnx" "$zoo/lenet5.onnx" "$tmp/ci/models/"
# A hypothetical board next to the budget file: a T4 with a quarter of its bandwidth.
echo '{"schema_version": 1, "base": "t4", "mem_bandwidth_gbps": 80}' >"$tmp/ci/gpus/slow-t4.json"

cat >"$tmp/ci/pass.json" <<'J'
{
  "schema_version": 1,
  "entries": [
    {"name": "resnet18-t4", "model": "models/resnet18.onnx", "gpu": "t4", "batch": 8, "precision": "fp16",
     "limits": {"latency_ms": 1000, "peak_memory_fraction": 0.5, "energy_mj": 1000000}},
    {"name": "lenet-orin", "model": "models/lenet5.onnx", "gpu": "jetson-orin-nano-8gb", "batch": 1,
     "limits": {"latency_ms": 500, "min_throughput_samples_per_s": 1, "peak_memory_bytes": 4000000000}},
    {"name": "resnet18-train-a100", "model": "models/resnet18.onnx", "gpu": "a100-sxm4-40gb", "batch": 32,
     "mode": "training", "optimizer": "adam", "limits": {"peak_memory_fraction": 0.9}},
    {"name": "lenet-slow-t4", "model": "models/lenet5.onnx", "gpu": "gpus/slow-t4.json", "limits": {"latency_ms": 1000}}
  ]
}
J
(cd / && "$bin" budget check "$tmp/ci/pass.json" --junit "$tmp/pass.xml") >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "passing budgets exited $rc: $(cat "$tmp/out" "$tmp/err")"
[ "$(grep -c '^PASS' "$tmp/out")" -eq 4 ] || fail "expected 4 PASS lines: $(cat "$tmp/out")"
grep -q "margin" "$tmp/out" || fail "no margin printed"

# A limit that cannot hold: exit 1, the failing entry named, JUnit failure for that limit only.
sed 's/"latency_ms": 1000, "peak_memory_fraction"/"latency_ms": 0.000001, "peak_memory_fraction"/' "$tmp/ci/pass.json" >"$tmp/ci/fail.json"
"$bin" budget check "$tmp/ci/fail.json" --junit "$tmp/fail.xml" >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "exceeded budget exited $rc"
grep -q "^FAIL  resnet18-t4" "$tmp/out" || fail "failing entry not named: $(cat "$tmp/out")"
/usr/bin/python3 - "$tmp/pass.xml" "$tmp/fail.xml" <<'PY' || fail "JUnit XML content"
import sys, xml.etree.ElementTree as ET
for path, want_fail in ((sys.argv[1], 0), (sys.argv[2], 1)):
    root = ET.parse(path).getroot()  # raises on malformed XML
    cases = root.findall(".//testcase")
    assert len(cases) == 3 + 3 + 1 + 1, len(cases)  # one per entry and limit
    fails = [c for c in cases if c.find("failure") is not None]
    assert len(fails) == want_fail, (path, len(fails))
    assert root.get("tests") == str(len(cases)) and root.get("failures") == str(want_fail)
    if want_fail:
        assert fails[0].get("classname") == "perfpred.budget.resnet18-t4" and fails[0].get("name") == "latency_ms"
PY

# Deterministic JSON: byte-identical with --no-meta, from any working directory; meta only without it.
"$bin" budget check "$tmp/ci/pass.json" --json --no-meta >"$tmp/a.json" || fail "json run 1"
(cd "$tmp" && "$bin" budget check ci/pass.json --json --no-meta) >"$tmp/b.json" || fail "json run 2"
sed -i 's#"budget_file": ".*"##' "$tmp/a.json" "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "--no-meta JSON differs between runs: $(diff "$tmp/a.json" "$tmp/b.json" | head)"
grep -q '"meta"' "$tmp/a.json" && fail "--no-meta still prints meta"
"$bin" budget check "$tmp/ci/pass.json" --json >"$tmp/m.json" || fail "json with meta"
grep -q '"generated_at"' "$tmp/m.json" || fail "meta lacks generated_at"
/usr/bin/python3 -c "
import json,sys
a=json.load(open('$tmp/a.json')); m=json.load(open('$tmp/m.json')); m.pop('meta')
assert a==m, 'verdict differs from the meta-less one'
assert a['passed'] is True and a['summary']['entries']==4
" || fail "meta is not separate from the verdict"

# Bad budget files: exit 2, one line naming the entry and field.
check2() {
  local want=$1 doc=$2
  printf '%s' "$doc" >"$tmp/ci/bad.json"
  "$bin" budget check "$tmp/ci/bad.json" >/dev/null 2>"$tmp/err"; local rc=$?
  [ $rc -eq 2 ] || fail "bad budget ($want) exited $rc"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "bad budget ($want): $(cat "$tmp/err")"
  grep -qF -- "$want" "$tmp/err" || fail "bad budget message lacks '$want': $(cat "$tmp/err")"
}
check2 "not valid JSON" '{"schema_version": 1, "entries": ['
check2 "schema_version" '{"entries": []}'
check2 'entries[0] ("a"): limits.latency_ms' '{"schema_version":1,"entries":[{"name":"a","model":"models/lenet5.onnx","gpu":"t4","limits":{"latency_ms":-1}}]}'
check2 "entries[1]" '{"schema_version":1,"entries":[{"name":"a","model":"models/lenet5.onnx","gpu":"t4","limits":{"latency_ms":1}},{"name":"b","model":"models/lenet5.onnx","gpu":"t4","limits":{}}]}'
check2 "entries[0] (\"a\"): field 'model'" '{"schema_version":1,"entries":[{"name":"a","model":"models/none.onnx","gpu":"t4","limits":{"latency_ms":1}}]}'
check2 "entries[0] (\"a\"): field 'gpu'" '{"schema_version":1,"entries":[{"name":"a","model":"models/lenet5.onnx","gpu":"t5","limits":{"latency_ms":1}}]}'
check2 "unknown field 'gpus'" '{"schema_version":1,"entries":[{"name":"a","model":"models/lenet5.onnx","gpus":"t4","limits":{"latency_ms":1}}]}'
# A range's high end (models/latency-intervals.json): ResNet-18 at batch 8 passes a limit 1.1x its prediction
# and fails the same limit on the range's high end (every shipped range's high end is above 1.1x; the power
# range's is held at the board's limit, so its check runs where the prediction is far below it, an A100's 250 W):
# check_range NAME LIMIT RANGE_LIMIT VALUE_FIELD RANGE_FIELD GPU writes $tmp/ci/NAME.json and checks its verdict.
check_range() {
  local name=$1 limit=$2 range_limit=$3 field=$4 range_field=$5 gpu=$6 lim high rc
  read -r lim high <<<"$("$bin" -q predict "$zoo/resnet18.onnx" --gpu "$gpu" --batch 8 --json --no-meta |
    /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(d['$field'] * 1.1, d['$range_field']['high'])")"
  cat >"$tmp/ci/$name.json" <<J
{"schema_version": 1, "entries": [{"name": "r", "model": "models/resnet18.onnx", "gpu": "$gpu", "batch": 8,
  "limits": {"$limit": $lim, "$range_limit": $lim}}]}
J
  "$bin" budget check "$tmp/ci/$name.json" --json --no-meta >"$tmp/$name.out"; rc=$?
  [ $rc -eq 1 ] || fail "$range_limit above the limit exited $rc"
  /usr/bin/python3 - "$tmp/$name.out" "$high" "$limit" "$range_limit" <<'PY' || fail "$range_limit verdict: $(cat "$tmp/$name.out")"
import json, sys
c = json.load(open(sys.argv[1]))["entries"][0]["checks"]
assert [x["limit"] for x in c] == sys.argv[3:5], c
assert c[0]["passed"] and not c[1]["passed"], c
assert abs(c[1]["value"] - float(sys.argv[2])) <= 1e-4 * c[1]["value"], (c[1], sys.argv[2])  # predict rounds to 6 digits
PY
}
check_range range latency_ms latency_range_high_ms latency_ms latency_range_ms t4
check_range erange energy_mj energy_range_high_mj energy_mj energy_range_mj t4
check_range prange avg_power_w power_range_high_w avg_power_w power_range_w a100-pcie-40gb
"$bin" budget check "$tmp/ci/range.json" --bundle default >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "latency_range_high_ms with --bundle exited $rc"
grep -qF 'entries[0] ("r"): limits.latency_range_high_ms: the ranges describe' "$tmp/err" ||
  fail "unclear --bundle error: $(cat "$tmp/err")"
"$bin" budget check "$tmp/none.json" >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing budget file"
"$bin" budget >/dev/null 2>&1; [ $? -eq 2 ] || fail "budget without check"
echo "ok"
