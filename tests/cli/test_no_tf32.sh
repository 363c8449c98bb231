#!/usr/bin/env bash
# --no-tf32 (torch.backends.cudnn.allow_tf32 = False) on every command that predicts besides predict and
# fit-host (sweep, select, mig, diff, report, budget check), as predict takes it: on an A100 a conv net's
# FP32 convolutions leave the TF32 tensor cores, so each command's latency figures grow; a GPU without
# TF32 (V100) does not move; the JSON echoes `"allow_tf32": false` only with the flag, text headers say
# "no TF32"; a precision other than fp32 is exit 2 with one line naming the flag. budget check also reads
# a per-entry `allow_tf32` field (a boolean; false only at fp32).
# Usage: bash test_no_tf32.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/resnet18.onnx"
OTHER="$ROOT/models/zoo/squeezenet1_0.onnx"
[ -f "$MODEL" ] && [ -f "$OTHER" ] || { echo "skip: zoo models missing (run tools/export_zoo.py)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

cp "$MODEL" "$TMP/resnet18.onnx"  # a budget file's model paths are relative to the file
budget() {  # budget FILE EXTRA-ENTRY-FIELDS: one resnet18 entry on an A100 and one on a V100
  cat >"$1" <<EOF
{"schema_version": 1, "entries": [
  {"name": "a100", "model": "resnet18.onnx", "gpu": "a100-sxm4-40gb", "batch": 32$2, "limits": {"latency_ms": 6}},
  {"name": "v100", "model": "resnet18.onnx", "gpu": "v100-sxm2-16gb", "batch": 32$2, "limits": {"latency_ms": 100}}]}
EOF
}
budget "$TMP/budget.json" ""
budget "$TMP/budget-field.json" ', "allow_tf32": false'
budget "$TMP/budget-true.json" ', "allow_tf32": true'

# Each command's arguments (one per line: name, then the arguments, tab-separated), at batch 32 where
# the convolutions dominate.
commands() {
  printf '%s\t' sweep sweep "$MODEL" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54 --batch 32; echo
  printf '%s\t' select select "$MODEL" --devices a100-sxm4-40gb,v100-sxm2-16gb --batch 32; echo
  printf '%s\t' mig mig "$MODEL" --gpu a100-sxm4-40gb --batch 32; echo
  printf '%s\t' diff diff "$MODEL" "$OTHER" --gpu a100-sxm4-40gb --batch 32; echo
  printf '%s\t' budget budget check "$TMP/budget.json" --no-meta; echo
}

# 1. Each command's JSON and text, with and without the flag. budget passes without it and fails with
#    it (the A100 entry's 6 ms limit holds only on TF32 tensor cores).
while IFS=$'\t' read -r -a cmd; do
  name=${cmd[0]}
  args=("${cmd[@]:1}")
  for f in tf32 no; do
    extra=()
    [ "$f" = no ] && extra=(--no-tf32)
    "$BIN" "${args[@]}" --json "${extra[@]}" >"$TMP/$name.$f" 2>"$TMP/err" </dev/null
    rc=$?
    want=0
    [ "$name" = budget ] && [ "$f" = no ] && want=1
    [ $rc -eq $want ] || { echo "FAIL: perfpred ${args[*]} --json ${extra[*]} exited $rc, expected $want: $(cat "$TMP/err")"; fail=1; }
    "$BIN" "${args[@]}" "${extra[@]}" >"$TMP/$name.$f.txt" 2>/dev/null </dev/null
  done
  # The text header names it where it is off, and only there (budget's text has no settings header).
  if [ "$name" != budget ]; then
    check grep -q ", no TF32" "$TMP/$name.no.txt"
    if grep -q "no TF32" "$TMP/$name.tf32.txt"; then echo "FAIL: $name text says no TF32 without the flag"; fail=1; fi
  fi
done < <(commands)
"$BIN" budget check "$TMP/budget-field.json" --json --no-meta >"$TMP/budget.field" 2>"$TMP/err"
check test $? = 1
"$BIN" budget check "$TMP/budget-true.json" --json --no-meta >"$TMP/budget.true" 2>"$TMP/err"
check test $? = 0

# 2. Every A100 latency figure grows, V100 ones stay, the echo is there only with the flag; budget's
#    per-entry field is the flag, and `"allow_tf32": true` is the default.
check $PY - "$TMP" <<'EOF'
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))

def latencies(name, doc):  # (gpu id, latency) of every prediction in the document
    if name == "sweep":
        return [("a100-sxm4-40gb", p["latency_ms"]) for p in doc["points"]]
    if name == "select":
        return [(c["gpu"]["id"], c["prediction"]["latency_ms"]) for c in doc["ranked"] + doc["rejected"]]
    if name == "mig":
        return [("a100-sxm4-40gb", doc["whole_gpu"]["latency_ms"])] + \
               [("a100-sxm4-40gb", p["prediction"]["latency_ms"]) for p in doc["profiles"]]
    if name == "diff":
        return [("a100-sxm4-40gb", doc["old"]["latency_ms"]), ("a100-sxm4-40gb", doc["new"]["latency_ms"])]
    if name == "budget":
        return [(e["gpu_id"], e["prediction"]["latency_ms"]) for e in doc["entries"]]

for name in ("sweep", "select", "mig", "diff", "budget"):
    base, no = load(name + ".tf32"), load(name + ".no")
    a, b = latencies(name, base), latencies(name, no)
    assert len(a) == len(b) and a, (name, a, b)
    assert any(g == "a100-sxm4-40gb" for g, _ in a), name
    for (g, x), (h, y) in zip(a, b):
        assert g == h, (name, g, h)
        if g == "a100-sxm4-40gb":
            assert y > 1.2 * x, (name, g, x, y)  # FP32 math is several times TF32's peak on an A100
        else:
            assert y == x, (name, g, x, y)  # no TF32 on a V100: nothing to turn off
    if name == "budget":
        assert all("allow_tf32" not in e for e in base["entries"]), name
        assert all(e["allow_tf32"] is False for e in no["entries"]), name
        assert not no["passed"] and base["passed"], name
    else:
        assert "allow_tf32" not in base, (name, base.get("allow_tf32"))
        assert no["allow_tf32"] is False, (name, no.get("allow_tf32"))
assert load("budget.field") == load("budget.no"), "allow_tf32: false in the file is --no-tf32"
assert load("budget.true") == load("budget.tf32"), "allow_tf32: true is the default"
EOF

# 3. report: the device table's latency grows and the header says so.
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --batch 32 --out "$TMP/r.tf32.html" >/dev/null 2>&1
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --batch 32 --out "$TMP/r.no.html" --no-tf32 >/dev/null 2>&1
check grep -q "no TF32 (allow_tf32 = False)" "$TMP/r.no.html"
if grep -q "no TF32" "$TMP/r.tf32.html"; then echo "FAIL: report says no TF32 without the flag"; fail=1; fi
check $PY "$ROOT/tests/cli/report_slower.py" a100-sxm4-40gb "$TMP/r.tf32.html" "$TMP/r.no.html" 1.2

# 4. A precision other than fp32: exit 2, one line naming the flag, on every command; nothing written.
expect_refused() {  # expect_refused GREP ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL: perfpred $* exited $rc, expected 2"; fail=1; return; fi
  if [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "$want" "$TMP/err"; then
    echo "FAIL: perfpred $*: expected one line with '$want', got: $(cat "$TMP/err")"; fail=1
  fi
}
for p in fp16 tf32 int8; do
  while IFS=$'\t' read -r -a cmd; do
    [ "${cmd[0]}" = budget ] && continue
    expect_refused "--no-tf32 applies to --precision fp32 only (it was $p)" "${cmd[@]:1}" --precision "$p" --no-tf32
  done < <(commands)
  expect_refused "--no-tf32 applies to --precision fp32 only" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/bad.html" \
    --precision "$p" --no-tf32
done
check test ! -e "$TMP/bad.html"
# budget: the flag on a file with an fp16 entry names the entry; the field must be a boolean, and false
# only at fp32.
cat >"$TMP/mixed.json" <<'EOF'
{"schema_version": 1, "entries": [
  {"name": "fp32", "model": "resnet18.onnx", "gpu": "a100-sxm4-40gb", "limits": {"latency_ms": 100}},
  {"name": "half", "model": "resnet18.onnx", "gpu": "a100-sxm4-40gb", "precision": "fp16", "limits": {"latency_ms": 100}}]}
EOF
expect_refused 'entries\[1\] ("half"): --no-tf32 applies to fp32 entries only (this one is fp16)' \
  budget check "$TMP/mixed.json" --no-tf32
check "$BIN" -q budget check "$TMP/mixed.json" --no-meta >/dev/null
budget "$TMP/bad-type.json" ', "allow_tf32": "no"'
expect_refused "entries\[0\] (\"a100\"): field 'allow_tf32' must be true or false (got \"no\")" budget check "$TMP/bad-type.json"
budget "$TMP/bad-prec.json" ', "precision": "bf16", "allow_tf32": false'
expect_refused "entries\[0\] (\"a100\"): field 'allow_tf32': false applies to precision fp32 only (it is bf16)" \
  budget check "$TMP/bad-prec.json"

exit $fail
