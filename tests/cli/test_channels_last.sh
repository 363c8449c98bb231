#!/usr/bin/env bash
# --channels-last (the model and input in torch.channels_last): cuDNN's FP16/BF16 tensor-core convolutions of
# NCHW tensors reorder them to NHWC and back (three kernels per convolution, costed by default); with the flag
# they read and write the tensors as they are. On an A100 at FP16 a conv net gets faster on every command that
# predicts (predict, sweep, select, mig, diff, budget check), the JSON echoes `"channels_last": true` only with
# the flag and the text headers say "channels_last"; at FP32 (TF32 kernels read NCHW) only the eval-mode BatchNorms
# move, a little and never up (cuDNN's NHWC kernels instead of its NCHW one, a latency-bound block per plane). TensorRT
# and a bare cuDNN call pick their own layouts: exit 2 with one line naming the flag. budget check reads a
# per-entry `channels_last` field (a boolean).
# Usage: bash test_channels_last.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
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
cat >"$TMP/budget-field.json" <<'EOF'
{"schema_version": 1, "entries": [
  {"name": "a100", "model": "resnet18.onnx", "gpu": "a100-sxm4-40gb", "batch": 64, "precision": "fp16",
   "channels_last": true, "limits": {"latency_ms": 100}}]}
EOF
sed 's/"channels_last": true, //' "$TMP/budget-field.json" >"$TMP/budget.json"
sed 's/"channels_last": true/"channels_last": "yes"/' "$TMP/budget-field.json" >"$TMP/budget-bad.json"

# Each command's arguments (tab-separated), FP16 at batch 64 where the convolutions dominate.
commands() {
  printf '%s\t' predict predict "$MODEL" --gpu a100-sxm4-40gb --batch 64 --no-copies; echo
  printf '%s\t' sweep sweep "$MODEL" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54 --batch 64; echo
  printf '%s\t' select select "$MODEL" --devices a100-sxm4-40gb --batch 64; echo
  printf '%s\t' mig mig "$MODEL" --gpu a100-sxm4-40gb --batch 64; echo
  printf '%s\t' diff diff "$MODEL" "$OTHER" --gpu a100-sxm4-40gb --batch 64; echo
}

# 1. JSON and text of each command at FP16 and FP32, with and without the flag.
while IFS=$'\t' read -r -a cmd; do
  name=${cmd[0]}
  args=("${cmd[@]:1}")
  for p in fp16 fp32; do
    for f in nchw nhwc; do
      extra=(--precision "$p")
      [ "$f" = nhwc ] && extra+=(--channels-last)
      "$BIN" "${args[@]}" --json "${extra[@]}" >"$TMP/$name.$p.$f" 2>"$TMP/err" </dev/null ||
        { echo "FAIL: perfpred ${args[*]} --json ${extra[*]}: $(cat "$TMP/err")"; fail=1; }
      "$BIN" "${args[@]}" "${extra[@]}" >"$TMP/$name.$p.$f.txt" 2>/dev/null </dev/null
    done
  done
  check grep -q ", channels_last" "$TMP/$name.fp16.nhwc.txt"
  if grep -q ", channels_last" "$TMP/$name.fp16.nchw.txt"; then echo "FAIL: $name text says channels_last without the flag"; fail=1; fi
done < <(commands)
"$BIN" budget check "$TMP/budget.json" --json --no-meta >"$TMP/budget.fp16.nchw" 2>"$TMP/err"
check test $? = 0
"$BIN" budget check "$TMP/budget-field.json" --json --no-meta >"$TMP/budget.fp16.nhwc" 2>"$TMP/err"
check test $? = 0

# 2. FP16 latencies fall with the flag, FP32 ones at most by their BatchNorms; the echo is there only with the flag.
check $PY - "$TMP" <<'EOF'
import json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))

def latencies(name, doc):
    if name == "predict":
        return [doc["latency_ms"]]
    if name == "sweep":
        return [p["latency_ms"] for p in doc["points"]]
    if name == "select":
        return [c["prediction"]["latency_ms"] for c in doc["ranked"] + doc["rejected"]]
    if name == "mig":
        return [doc["whole_gpu"]["latency_ms"]] + [p["prediction"]["latency_ms"] for p in doc["profiles"]]
    if name == "diff":
        return [doc["old"]["latency_ms"], doc["new"]["latency_ms"]]
    if name == "budget":
        return [e["prediction"]["latency_ms"] for e in doc["entries"]]

for name in ("predict", "sweep", "select", "mig", "diff", "budget"):
    precisions = ("fp16",) if name == "budget" else ("fp16", "fp32")
    for p in precisions:
        a, b = load(f"{name}.{p}.nchw"), load(f"{name}.{p}.nhwc")
        x, y = latencies(name, a), latencies(name, b)
        assert len(x) == len(y) and x, (name, p, x, y)
        for u, v in zip(x, y):
            if p == "fp16":
                assert v < 0.97 * u, (name, p, u, v)  # ResNet-18's convolutions at batch 64 lose their reorders
            else:
                # TF32 kernels read NCHW: only cuDNN's eval-mode BatchNorm moves (its NHWC kernels are DRAM-bound,
                # its NCHW one walks a latency-bound block per plane), a few percent of ResNet-18 at batch 64.
                assert 0.9 * u <= v <= u, (name, p, u, v)
        if name == "budget":
            assert "channels_last" not in a["entries"][0] and b["entries"][0]["channels_last"] is True, name
        else:
            assert "channels_last" not in a, (name, p)
            assert b["channels_last"] is True, (name, p)
EOF

# 3. report: the header says so.
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --precision fp16 --out "$TMP/r.html" --channels-last >/dev/null 2>&1
check grep -q "channels_last (NHWC: no cuDNN reorders)" "$TMP/r.html"

# 4. TensorRT and a bare cuDNN call: exit 2, one line naming the flag; a budget field that is not a boolean too.
expect_refused() {  # expect_refused GREP ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL: perfpred $* exited $rc, expected 2"; fail=1; return; fi
  if [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "$want" "$TMP/err"; then
    echo "FAIL: perfpred $*: expected one line with '$want', got: $(cat "$TMP/err")"; fail=1
  fi
}
for rt in tensorrt cudnn; do
  expect_refused "--channels-last is PyTorch's memory format" predict "$MODEL" --gpu a100-sxm4-40gb --precision fp16 \
    --runtime "$rt" --channels-last
  expect_refused "--runtime $rt picks its own layouts" select "$MODEL" --devices a100-sxm4-40gb --precision fp16 \
    --runtime "$rt" --channels-last
done
expect_refused "field 'channels_last' must be true or false" budget check "$TMP/budget-bad.json"

[ $fail -eq 0 ] && echo "channels_last: ok"
exit $fail
