#!/usr/bin/env bash
# perfpred inspect end to end: table and JSON output on a zoo model, exit codes of bad input.
# Usage: bash test_inspect.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
bin=$1
root=$2
model=$root/models/zoo/lenet5.onnx
[ -f "$model" ] || { echo "skip: $model missing"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check NAME EXPECTED_RC ACTUAL_RC
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: exit $3, expected $2"
    sed 's/^/  stderr: /' "$tmp/err" | head -5
    fail=1
  else
    echo "ok: $1"
  fi
}

# Table output.
"$bin" inspect "$model" >"$tmp/out" 2>"$tmp/err"; check "table" 0 $?
grep -q "total:" "$tmp/out" || { echo "FAIL: table has no totals line"; fail=1; }
grep -q "Conv" "$tmp/out" || { echo "FAIL: table lists no Conv"; fail=1; }

# JSON output at batch 8: schema fields, shapes, totals equal to the sum of the nodes.
"$bin" inspect "$model" --batch 8 --json >"$tmp/out.json" 2>"$tmp/err"; check "json batch 8" 0 $?
"$py" - "$tmp/out.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
errs = []
for k in ["schema_version", "model", "opset", "producer", "inputs", "nodes", "totals", "warnings"]:
    if k not in j: errs.append("missing key " + k)
if j.get("schema_version") != 1: errs.append("schema_version != 1")
inp = j["inputs"]
if len(inp) != 1 or inp[0]["shape"][0] != 8 or inp[0]["dtype"] != "float32": errs.append("inputs wrong: %r" % inp)
for n in j["nodes"]:
    for k in ["name", "op", "inputs", "outputs", "flops", "params", "bytes_read", "bytes_written", "family"]:
        if k not in n: errs.append("node %s lacks %s" % (n.get("name"), k))
    for o in n["outputs"]:
        if o["shape"] is None or any(d is None for d in o["shape"]): errs.append("unknown shape in " + n["name"])
t = j["totals"]
for k in ["flops", "params", "bytes_read", "bytes_written"]:
    s = sum(n[k] for n in j["nodes"])
    if abs(s - t[k]) > 1e-6 * max(1, abs(s)): errs.append("total %s %r != sum %r" % (k, t[k], s))
if t["flops"] <= 0 or t["params"] <= 0: errs.append("zero totals")
last = j["nodes"][-1]["outputs"][0]["shape"]
if last[0] != 8: errs.append("output batch %r" % last)
print("\n".join("FAIL: json: " + e for e in errs) or "ok: json fields")
sys.exit(1 if errs else 0)
PY

# Batch scales FLOPs linearly for LeNet.
"$bin" inspect "$model" --batch 1 --json >"$tmp/b1.json" 2>"$tmp/err"; check "json batch 1" 0 $?
"$py" -c "
import json,sys
a=json.load(open('$tmp/b1.json'))['totals']['flops']; b=json.load(open('$tmp/out.json'))['totals']['flops']
sys.exit(0 if abs(b-8*a) < 1e-6*b else 1)" || { echo "FAIL: FLOPs do not scale with --batch"; fail=1; }

# --input-shape: a valid override, an unknown input name (lists the valid names), a bad value.
in_name=$("$py" -c "import json;print(json.load(open('$tmp/b1.json'))['inputs'][0]['name'])")
in_shape=$("$py" -c "import json;s=json.load(open('$tmp/b1.json'))['inputs'][0]['shape'];print(','.join(str(d) for d in [4]+s[1:]))")
"$bin" inspect "$model" --input-shape "$in_name=$in_shape" --json >"$tmp/o.json" 2>"$tmp/err"; check "input-shape override" 0 $?
"$py" -c "import json,sys;sys.exit(0 if json.load(open('$tmp/o.json'))['inputs'][0]['shape'][0]==4 else 1)" || { echo "FAIL: override ignored"; fail=1; }
"$bin" inspect "$model" --input-shape nosuch=1,2 >"$tmp/out" 2>"$tmp/err"; check "unknown input name" 2 $?
grep -q "$in_name" "$tmp/err" || { echo "FAIL: error does not list valid inputs"; fail=1; }
"$bin" inspect "$model" --input-shape "$in_name=1,x" >"$tmp/out" 2>"$tmp/err"; check "bad input-shape value" 2 $?
"$bin" inspect "$model" --batch 0 >"$tmp/out" 2>"$tmp/err"; check "batch 0" 2 $?

# Bad files: each a one-line error naming the file, exit 2.
: >"$tmp/empty.onnx"
echo "definitely not a protobuf" >"$tmp/text.onnx"
head -c 300 "$model" >"$tmp/trunc.onnx"
for f in "$tmp/empty.onnx" "$tmp/text.onnx" "$tmp/trunc.onnx" "$tmp/missing.onnx"; do
  "$bin" inspect "$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check "bad file $(basename "$f")" 2 $rc
  grep -q "$(basename "$f")" "$tmp/err" || { echo "FAIL: error does not name $f"; fail=1; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { echo "FAIL: error for $f is not one line"; fail=1; }
done

# Models built with the onnx Python package: cyclic graph, unknown op, external data.
if "$py" -c "import onnx" 2>/dev/null; then
  "$py" - "$tmp" <<'PY'
import sys, onnx
from onnx import helper, TensorProto as TP
d = sys.argv[1]
x = helper.make_tensor_value_info("x", TP.FLOAT, ["N", 4])
y = helper.make_tensor_value_info("y", TP.FLOAT, None)
def save(nodes, name, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", [x], [y], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("custom", 1)])
    onnx.save(m, d + "/" + name)
save([helper.make_node("Add", ["x", "c"], ["a"], name="cyc_add"), helper.make_node("Relu", ["a"], ["c"], name="cyc_relu"),
      helper.make_node("Relu", ["c"], ["y"], name="out")], "cyclic.onnx")
save([helper.make_node("Frobnicate", ["x"], ["y"], name="mystery", domain="custom")], "unknown.onnx")
w = TP()
w.name = "w"
w.data_type = TP.FLOAT
w.dims.extend([4, 4])
w.data_location = TP.EXTERNAL
for k, v in [("location", "/nonexistent/perfpred/weights.bin"), ("offset", "0"), ("length", "64")]:
    e = w.external_data.add(); e.key = k; e.value = v
save([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "external.onnx", [w])
PY
  "$bin" inspect "$tmp/cyclic.onnx" >"$tmp/out" 2>"$tmp/err"; check "cyclic graph" 2 $?
  grep -q "cyc_" "$tmp/err" || { echo "FAIL: cycle error names no node"; fail=1; }
  "$bin" inspect "$tmp/unknown.onnx" >"$tmp/out" 2>"$tmp/err"; check "unknown op" 2 $?
  grep -Eq "mystery \((custom\.)?Frobnicate\)" "$tmp/err" || { echo "FAIL: unknown-op error does not list 'mystery (Frobnicate)'"; fail=1; }
  "$bin" inspect "$tmp/unknown.onnx" --allow-unknown --json >"$tmp/u.json" 2>"$tmp/err"; check "unknown op allowed" 0 $?
  "$py" -c "
import json,sys
n=json.load(open('$tmp/u.json'))['nodes'][0]
sys.exit(0 if n.get('warnings') and n['op']=='Frobnicate' else 1)" || { echo "FAIL: allowed unknown op is not flagged"; fail=1; }
  "$bin" inspect "$tmp/external.onnx" --json >"$tmp/e.json" 2>"$tmp/err"; check "external data not opened" 0 $?
  "$py" -c "
import json,sys
j=json.load(open('$tmp/e.json'))
sys.exit(0 if j['nodes'][0]['outputs'][0]['shape']==[1,4] and j['totals']['params']==16 else 1)" || { echo "FAIL: external-data model shapes/params"; fail=1; }
else
  echo "note: python3 onnx missing, cyclic/unknown/external cases not run"
fi

exit $fail
