#!/usr/bin/env bash
# tools/profile_torch_kernels.py without a GPU: a torch.profiler trace fixture (two steps of an AMP conv block:
# three reorders around an sm90 fprop, BatchNorm forward and backward, ReLU, a data gradient, the SGD foreach
# update and a memset) must give each kind's time per step and each kernel's launching ATen op; --compare must
# put perfpred's prediction beside it (convolution and reorder time together); bad input must say what is wrong.
# Usage: bash test_profile_torch_kernels.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT
TOOL="$ROOT/tools/profile_torch_kernels.py"
TRACE="$ROOT/tests/data/torch_profile/resnet_block_amp_trace.json"
fail() { echo "FAIL: $*"; exit 1; }

$PY "$TOOL" --trace "$TRACE" --config resnet18,training,fp16,128,nchw --steps 2 --out "$TMP/p" >"$TMP/log" 2>&1 \
  || { cat "$TMP/log"; fail "parsing the trace fixture exited non-zero"; }
$PY - "$TMP/p" <<'PYEOF' || fail "summary or kernel rows wrong"
import csv, json, os, sys
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))["resnet18-training-fp16-b128-nchw"]
# Two steps: per step the reorders 40 + 2 + 38 us, the fprop 120 and dgrad 140, BN 200 forward + 300 backward.
want = {"reorder": 0.08, "conv": 0.26, "batchnorm": 0.5, "elementwise": 0.03, "optimizer": 0.025, "memset": 0.005}
assert s["by_kind_ms"] == want, s["by_kind_ms"]
assert abs(s["gpu_ms_per_step"] - 0.9) < 1e-9 and s["kernels_per_step"] == 10, s
assert s["by_op_ms"]["aten::cudnn_batch_norm_backward"] == 0.3, s["by_op_ms"]
assert (s["model"], s["mode"], s["precision"], s["batch"], s["layout"]) == ("resnet18", "training", "fp16", 128, "nchw")
rows = list(csv.DictReader(open(os.path.join(d, "kernels.csv"))))
assert len(rows) == 20, len(rows)
bn = [r for r in rows if r["kind"] == "batchnorm" and r["op"] == "aten::cudnn_batch_norm_backward"]
assert len(bn) == 2 and bn[0]["grid"] == "64x1x1" and bn[0]["block"] == "512x1x1", bn
assert all(r["op"] == "aten::cudnn_convolution" for r in rows if r["kind"] == "reorder"), rows
PYEOF

# Kineto builds whose kernel events carry no External id: the op comes through the launch's correlation.
$PY - "$TRACE" "$TMP/noext.json" <<'PYEOF' || fail "could not write the trace variant"
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel":
        e["args"].pop("External id")
json.dump(t, open(sys.argv[2], "w"))
PYEOF
$PY "$TOOL" --trace "$TMP/noext.json" --config resnet18,training,fp16,128,nchw --steps 2 --out "$TMP/q" >/dev/null 2>&1 \
  || fail "parsing the trace without kernel External ids exited non-zero"
$PY -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); assert a==b, (a, b)' \
  "$TMP/p/summary.json" "$TMP/q/summary.json" || fail "ops not found through the launch correlation"

# The same configuration again replaces its rows instead of adding to them.
$PY "$TOOL" --trace "$TRACE" --config resnet18,training,fp16,128,nchw --steps 2 --out "$TMP/p" >/dev/null 2>&1 \
  || fail "re-parsing exited non-zero"
[ "$(($(wc -l <"$TMP/p/kernels.csv") - 1))" = 20 ] || fail "a configuration parsed twice kept both copies"

# perfpred's prediction beside the measurement (the binary from the build under test).
$PY "$TOOL" --compare "$TMP/p" --perfpred "$BIN" --gpu h200-sxm-141gb >"$TMP/cmp" 2>"$TMP/cmperr" \
  || { cat "$TMP/cmperr"; fail "--compare exited non-zero"; }
grep -q "^| conv | 0.340 | " "$TMP/cmp" || { cat "$TMP/cmp"; fail "conv row should hold conv + reorder time (0.340 ms)"; }
grep -q "^| batchnorm | 0.500 | " "$TMP/cmp" || { cat "$TMP/cmp"; fail "no batchnorm row"; }
[ -s "$TMP/p/compare.md" ] || fail "compare.md not written"

# ATen's depthwise kernels are a kind of their own, measured and predicted: the data gradient renamed to ATen's
# depthwise filter-gradient kernel and the configuration made MobileNetV2's, whose depthwise layers perfpred's
# prediction must count under "depthwise" (not "conv").
$PY - "$TRACE" "$TMP/dw.json" <<'PYEOF' || fail "could not write the depthwise trace variant"
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel" and e["name"].startswith("sm90_xmma_dgrad"):
        e["name"] = "void at::native::(anonymous namespace)::conv_depthwise2d_grad_weight_kernel<float, unsigned int>(...)"
json.dump(t, open(sys.argv[2], "w"))
PYEOF
$PY "$TOOL" --trace "$TMP/dw.json" --config mobilenet_v2,training,fp32,32,nchw --steps 2 --out "$TMP/d" >/dev/null 2>&1 \
  || fail "parsing the depthwise trace exited non-zero"
$PY -c 'import json,sys; s=json.load(open(sys.argv[1]))["mobilenet_v2-training-fp32-b32-nchw"]["by_kind_ms"]; assert s.get("depthwise") == 0.14 and s["conv"] == 0.12, s' \
  "$TMP/d/summary.json" || fail "the depthwise filter gradient was not its own kind"
$PY "$TOOL" --compare "$TMP/d" --perfpred "$BIN" --gpu h200-sxm-141gb >"$TMP/dcmp" 2>&1 || fail "--compare of the depthwise run failed"
grep -Eq "^\| depthwise \| 0\.140 \| [0-9.]*[1-9][0-9.]* \|" "$TMP/dcmp" \
  || { cat "$TMP/dcmp"; fail "no depthwise row with a predicted time beside the measured 0.140 ms"; }

# Bad input: each refused with a line naming what is wrong.
expect_refused() {  # expect_refused WORDS -- ARGS...
  local words=$1; shift 2
  if $PY "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"; then fail "accepted: $*"; fi
  grep -q "$words" "$TMP/err" || { cat "$TMP/err"; fail "unclear error for $* (want: $words)"; }
}
expect_refused "needs --config" -- --trace "$TRACE" --out "$TMP/x"
expect_refused "BATCH must be an integer" -- --trace "$TRACE" --config resnet18,training,fp16,big,nchw --out "$TMP/x"
expect_refused "layout nchw|nhwc" -- --trace "$TRACE" --config resnet18,training,fp16,8,hwc --out "$TMP/x"
echo '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 2, "args": {}}]}' >"$TMP/cpu.json"
expect_refused "no GPU kernels" -- --trace "$TMP/cpu.json" --config resnet18,inference,fp32,1,nchw --out "$TMP/x"
echo 'not json' >"$TMP/bad.json"
expect_refused "bad.json" -- --trace "$TMP/bad.json" --config resnet18,inference,fp32,1,nchw --out "$TMP/x"
expect_refused "has no summary.json" -- --compare "$TMP/x-none" --gpu h200-sxm-141gb
expect_refused "name the perfpred GPU with --gpu" -- --compare "$TMP/p" --perfpred "$BIN"
expect_refused "steps must be at least 1" -- --trace "$TRACE" --config resnet18,training,fp16,128,nchw --steps 0 --out "$TMP/x"
echo "ok: profile_torch_kernels parses, summarizes, compares and refuses bad input"
