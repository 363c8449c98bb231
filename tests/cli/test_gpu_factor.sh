#!/usr/bin/env bash
# --gpu-factor on every command that predicts for a machine (predict, sweep, select, mig, diff, report, budget
# check), and perfpred fit-gpu. On a GPU-bound run (squeezenet1_0 at batch 64) G=1.5 lengthens each command's
# latency figure, G=1 is byte-identical to no flag, the JSON echoes `gpu_factor` and the note, the text names the
# factor, and a factor outside 0.25-4 exits 2 with one line naming the flag. fit-gpu: round trip (predict at G with
# a host factor, feed its latency back with the same host factor, get G), its JSON, and one-line exit-2 errors for
# a host-bound run and for measurements no G in range explains; fit-host holds a given --gpu-factor.
# Usage: bash test_gpu_factor.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/squeezenet1_0.onnx"
OTHER="$ROOT/models/zoo/resnet18.onnx"
SMALL="$ROOT/models/zoo/lenet5.onnx"
for m in "$MODEL" "$OTHER" "$SMALL"; do [ -f "$m" ] || { echo "skip: $m missing (run tools/export_zoo.py)"; exit 77; }; done
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

cp "$MODEL" "$TMP/squeezenet.onnx"  # a budget file's model paths are relative to the file
cat >"$TMP/budget.json" <<'EOF'
{"schema_version": 1, "entries": [
  {"name": "squeeze-a100", "model": "squeezenet.onnx", "gpu": "a100-sxm4-40gb", "batch": 64, "limits": {"latency_ms": 1000}}]}
EOF

commands() {
  printf '%s\t' predict predict "$MODEL" --gpu a100-sxm4-40gb --batch 64 --no-meta; echo
  printf '%s\t' select select "$MODEL" --devices a100-sxm4-40gb,a30 --batch 64; echo
  printf '%s\t' mig mig "$MODEL" --gpu a100-sxm4-40gb --batch 64; echo
  printf '%s\t' diff diff "$MODEL" "$OTHER" --gpu a30 --batch 64; echo
  printf '%s\t' budget budget check "$TMP/budget.json" --no-meta; echo
}

# 1. G=1 is the document without the flag, byte for byte; G=1.5 is another one, whose text names the factor.
while IFS=$'\t' read -r -a cmd; do
  name=${cmd[0]}
  args=("${cmd[@]:1}")
  for g in none 1 1.5; do
    extra=()
    [ "$g" = none ] || extra=(--gpu-factor "$g")
    "$BIN" "${args[@]}" --json "${extra[@]}" >"$TMP/$name.$g" 2>"$TMP/err" </dev/null \
      || { echo "FAIL: perfpred ${args[*]} --json ${extra[*]} exited $?: $(cat "$TMP/err")"; fail=1; }
    "$BIN" "${args[@]}" "${extra[@]}" >"$TMP/$name.$g.txt" 2>/dev/null </dev/null
  done
  check cmp -s "$TMP/$name.none" "$TMP/$name.1"
  check cmp -s "$TMP/$name.none.txt" "$TMP/$name.1.txt"
  check grep -q "GPU factor 1.5\|scaled by 1.5 (--gpu-factor" "$TMP/$name.1.5.txt"
  if grep -q "GPU factor\|--gpu-factor" "$TMP/$name.1.txt"; then echo "FAIL: $name text names a GPU factor at G=1"; fail=1; fi
done < <(commands)

# 2. G=1.5 lengthens every latency figure (GPU-bound: by most of 1.5x), the JSON echoes the factor and the note
#    where, and only where, G != 1, and memory does not move.
check $PY - "$TMP" <<'EOF'
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))

def latencies(name, doc):
    if name == "predict":
        return [doc["latency_ms"]]
    if name == "select":
        return [c["prediction"]["latency_ms"] for c in doc["ranked"] + doc["rejected"]]
    if name == "mig":
        return [doc["whole_gpu"]["latency_ms"]] + [p["prediction"]["latency_ms"] for p in doc["profiles"]]
    if name == "diff":
        return [doc["old"]["latency_ms"], doc["new"]["latency_ms"]]
    return [e["prediction"]["latency_ms"] for e in doc["entries"]]

for name in ("predict", "select", "mig", "diff", "budget"):
    base, slow = load(name + ".none"), load(name + ".1.5")
    a, b = latencies(name, base), latencies(name, slow)
    assert len(a) == len(b) and a, (name, a, b)
    for x, y in zip(a, b):
        assert 1.3 * x < y <= 1.5 * x * (1 + 1e-6), (name, x, y)
    assert "gpu_factor" not in base, name
    assert slow["gpu_factor"] == 1.5, (name, slow.get("gpu_factor"))
    assert any("scaled by 1.5 (--gpu-factor" in n for n in slow["notes"]), (name, slow.get("notes"))
p, q = load("predict.none"), load("predict.1.5")
assert q["peak_memory_bytes"] == p["peak_memory_bytes"]
assert abs(q["breakdown"]["kernels_ms"] - 1.5 * p["breakdown"]["kernels_ms"]) < 1e-3 * p["breakdown"]["kernels_ms"]
EOF

# 3. budget check: a latency limit the model's own prediction meets and a GPU 4x slower does not; report.
check $PY - "$TMP/budget.json" "$TMP/predict.none" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
b["entries"][0]["limits"]["latency_ms"] = 2 * json.load(open(sys.argv[2]))["latency_ms"]
json.dump(b, open(sys.argv[1], "w"))
EOF
"$BIN" budget check "$TMP/budget.json" >"$TMP/out" 2>&1
check test $? = 0
"$BIN" budget check "$TMP/budget.json" --gpu-factor 4 >"$TMP/out" 2>&1
check test $? = 1
check grep -q "note: kernel times scaled by 4 (--gpu-factor" "$TMP/out"
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --batch 64 --out "$TMP/r.none.html" >/dev/null 2>&1
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --batch 64 --out "$TMP/r.1.html" --gpu-factor 1 >/dev/null 2>&1
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --batch 64 --out "$TMP/r.2.html" --gpu-factor 2 >/dev/null 2>&1
check cmp -s "$TMP/r.none.html" "$TMP/r.1.html"
check grep -q "GPU factor 2" "$TMP/r.2.html"
check $PY "$ROOT/tests/cli/report_slower.py" a100-sxm4-40gb "$TMP/r.none.html" "$TMP/r.2.html" 1.5

# 4. Out of range, not a number: exit 2, one line naming the flag, on every command.
for v in 0 0.2 5 nan -1; do
  while IFS=$'\t' read -r -a cmd; do
    "$BIN" "${cmd[@]:1}" --gpu-factor "$v" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "--gpu-factor $v: must be between 0.25 and 4" "$TMP/err"; then
      echo "FAIL: perfpred ${cmd[*]:1} --gpu-factor $v: exit $rc, $(cat "$TMP/err")"; fail=1
    fi
  done < <(commands)
done

# 5. fit-gpu: a prediction at G = 1.37 (host factor 1.6 held) fits back to 1.37, in text and JSON.
L=$("$BIN" predict "$MODEL" --gpu a30 --batch 64 --gpu-factor 1.37 --host-factor 1.6 --json \
    | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])")
"$BIN" fit-gpu "$MODEL" --gpu a30 --batch 64 --host-factor 1.6 --measured-ms "$L" >"$TMP/fit.txt" 2>"$TMP/err"
check test $? = 0
check grep -q "^GPU factor   1.37  (predict --gpu-factor 1.37 matches the measurement)" "$TMP/fit.txt"
check grep -q "host factor 1.6), predictor" "$TMP/fit.txt"
"$BIN" fit-gpu "$MODEL" --gpu a30 --batch 64 --host-factor 1.6 --measured-ms "$L" --json >"$TMP/fit.json" 2>"$TMP/err"
check $PY - "$TMP/fit.json" "$L" <<'EOF'
import json, sys
j, L = json.load(open(sys.argv[1])), float(sys.argv[2])
assert j["gpu_factor"] == 1.37 and j["host_factor"] == 1.6, j
assert abs(j["latency_ms"]["fitted"] - L) < 1e-3 * L, j["latency_ms"]
assert j["range_ms"]["at_gpu_factor_0.25"] < j["latency_ms"]["at_gpu_factor_1"] < j["range_ms"]["at_gpu_factor_4"], j
assert set(j["breakdown_at_gpu_factor_1"]) == {"kernels_ms", "host_overhead_ms", "h2d_ms", "d2h_ms"}, j
EOF

# 6. fit-gpu refuses: a host-bound run (lenet5 at batch 1), a measurement faster than G = 0.25 allows, one
#    slower than G = 4 explains; one line each, exit 2.
refused() {  # refused PATTERN ARGS...
  local pat=$1; shift
  "$BIN" fit-gpu "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "$pat" "$TMP/err"; then
    echo "FAIL: fit-gpu $*: exit $rc, expected 2 with '$pat': $(cat "$TMP/err")"; fail=1
  fi
}
SL=$("$BIN" predict "$SMALL" --gpu a30 --json | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])")
refused "bound by the host here" "$SMALL" --gpu a30 --measured-ms "$SL"
refused "faster than predicted at the smallest GPU factor" "$MODEL" --gpu a30 --batch 64 --measured-ms 0.01
refused "slower than predicted at the largest GPU factor" "$MODEL" --gpu a30 --batch 64 --measured-ms 100000
refused "--host-factor 20: must be between" "$MODEL" --gpu a30 --batch 64 --measured-ms "$L" --host-factor 20

# 7. fit-host holds a given --gpu-factor: the fit is the one at which predict with both factors matches.
H=$("$BIN" predict "$SMALL" --gpu a30 --host-factor 2.5 --gpu-factor 1.2 --json \
    | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])")
"$BIN" fit-host "$SMALL" --gpu a30 --gpu-factor 1.2 --measured-ms "$H" --json >"$TMP/fh.json" 2>"$TMP/err"
check test $? = 0
check $PY -c "import json,sys; j=json.load(open('$TMP/fh.json')); assert j['host_factor']==2.5 and j['gpu_factor']==1.2, j"

exit $fail
