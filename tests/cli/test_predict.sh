#!/usr/bin/env bash
# End-to-end test of `perfpred predict`: JSON contract, exit codes, determinism, sanity orderings.
# Usage: bash test_predict.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/resnet18.onnx"
[ -f "$MODEL" ] || { echo "skip: $MODEL missing (run tools/export_zoo.py)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }
expect_exit() {  # expect_exit CODE ARGS...
  local want=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: perfpred $* exited $got, expected $want"; cat "$TMP/err"; fail=1
  elif [ "$want" = 2 ] && [ ! -s "$TMP/err" ]; then
    echo "FAIL: perfpred $* exited 2 without a message"; fail=1
  fi
}

# 1. JSON contract
"$BIN" predict "$MODEL" --gpu gtx-1080ti --json --layers --analytical >"$TMP/a.json" || { echo "FAIL: predict exited $?"; exit 1; }
check $PY - "$TMP/a.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
need = ["schema_version", "model", "gpu", "batch", "precision", "mode", "runtime", "latency_ms",
        "throughput_samples_per_s", "pipelined_throughput_samples_per_s", "energy_mj", "avg_power_w", "peak_memory_bytes", "fits",
        "memory_shortfall_bytes", "breakdown", "memory", "model_bundle", "gpu_seen_in_training", "notes", "layers", "meta"]
missing = [k for k in need if k not in j]
assert not missing, missing
assert j["schema_version"] == 1 and j["gpu"] == "gtx-1080ti" and j["batch"] == 1
assert j["precision"] == "fp32" and j["mode"] == "inference" and j["runtime"] == "pytorch"
for k in ["kernels_ms", "host_overhead_ms", "h2d_ms", "d2h_ms", "optimizer_ms"]:
    assert k in j["breakdown"], k
for k in ["weights_bytes", "activations_bytes", "optimizer_state_bytes", "workspace_bytes", "context_bytes"]:
    assert k in j["memory"], k
assert 0.5 < j["latency_ms"] < 50, j["latency_ms"]
b = j["breakdown"]
s = b["kernels_ms"] + b["host_overhead_ms"] + b["h2d_ms"] + b["d2h_ms"]
assert abs(s - j["latency_ms"]) < 1e-3 * j["latency_ms"] + 1e-5, (s, j["latency_ms"])
assert j["fits"] is True and j["memory_shortfall_bytes"] == 0
assert j["model_bundle"] == "analytical"
assert len(j["layers"]) > 10
for l in j["layers"]:
    assert set(l) >= {"name", "op", "kernels", "time_ms", "flops", "bytes", "bound"}, l
    assert l["bound"] in ("compute", "memory", "launch")
EOF

# 2. Determinism: byte-identical without meta
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --batch 8 --mode training --optimizer adam --json --layers --no-meta >"$TMP/d1.json"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --batch 8 --mode training --optimizer adam --json --layers --no-meta >"$TMP/d2.json"
check cmp -s "$TMP/d1.json" "$TMP/d2.json"
check $PY -c "import json,sys; j=json.load(open(sys.argv[1])); assert 'meta' not in j; assert j['breakdown']['optimizer_ms']>0" "$TMP/d1.json"

# 3. Exit codes: bad gpu, bad batch, missing file, bad enum -> 2
expect_exit 2 predict "$MODEL" --gpu no-such-gpu
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --batch 0
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --batch -4
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --batch abc
expect_exit 2 predict "$TMP/missing.onnx" --gpu gtx-1080ti
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --precision fp8
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --runtime tensorrt --mode training
expect_exit 2 predict "$MODEL"

# 4. Does not fit: exit 0, fits false, shortfall
"$BIN" predict "$MODEL" --gpu jetson-nano --batch 512 --mode training --optimizer adam --json --no-meta >"$TMP/oom.json"
check test $? = 0
check $PY -c "import json,sys; j=json.load(open(sys.argv[1])); assert j['fits'] is False and j['memory_shortfall_bytes']>0" "$TMP/oom.json"

# 5. Orderings through the CLI: fp16 on tensor cores, MIG slice, Jetson copies, batch
lat() { "$BIN" predict "$MODEL" --json --no-meta "$@" | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])"; }
less() { $PY -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$1" "$2"; }
check less "$(lat --gpu a100-sxm4-40gb --batch 64 --precision fp16)" "$(lat --gpu a100-sxm4-40gb --batch 64)"
check less "$(lat --gpu a100-sxm4-40gb --batch 64)" "$(lat --gpu a100-sxm4-40gb:1g.5gb --batch 64)"
check less "$(lat --gpu gtx-1080ti --batch 8)" "$(lat --gpu gtx-1080ti --batch 64)"
# --input-shape decides the batch (throughput per sample of the batch that runs); --batch against it is exit 2
check $PY -c "
import json,subprocess,sys
j=json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','t4','--json','--no-meta','--input-shape','input=4,3,224,224']))
assert j['batch']==4, j['batch']
assert abs(j['throughput_samples_per_s'] - 4e3/j['latency_ms']) < 1e-5*j['throughput_samples_per_s'], j  # both printed to 6 significant digits" "$BIN" "$MODEL"
# pipelined throughput: batches back to back, the next batch's copy overlapping this one's work; equal to
# batch / latency without copies
check $PY -c "
import json,subprocess,sys
def run(*a): return json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','t4','--json','--no-meta','--batch','32',*a]))
j=run(); b=j['breakdown']
period=max(j['latency_ms']-b['h2d_ms']-b['d2h_ms'], b['h2d_ms'], b['d2h_ms'])
assert b['h2d_ms'] > 0 and j['pipelined_throughput_samples_per_s'] > j['throughput_samples_per_s'], j
assert abs(j['pipelined_throughput_samples_per_s'] - 32e3/period) < 1e-4*j['pipelined_throughput_samples_per_s'], (period, j)
n=run('--no-copies')
assert n['pipelined_throughput_samples_per_s'] == n['throughput_samples_per_s'], n" "$BIN" "$MODEL"
# pageable copies: the CPU stages them, so the input copy takes longer and nothing else moves; with --no-copies
# there is nothing to stage, and the pair is refused by name
check $PY -c "
import json,subprocess,sys
def run(*a): return json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','t4','--json','--no-meta','--batch','32',*a]))
p, q = run(), run('--pageable-copies')
assert q['breakdown']['h2d_ms'] > 1.5 * p['breakdown']['h2d_ms'], (p['breakdown'], q['breakdown'])
assert q['breakdown']['kernels_ms'] == p['breakdown']['kernels_ms'], (p['breakdown'], q['breakdown'])
assert q['latency_ms'] > p['latency_ms']" "$BIN" "$MODEL"
expect_exit 2 predict "$MODEL" --gpu t4 --pageable-copies --no-copies
check grep -q "pageable-copies prices the copies that --no-copies leaves out" "$TMP/err"
expect_exit 2 predict "$MODEL" --gpu t4 --batch 8 --input-shape input=4,3,224,224
check grep -q "disagree" "$TMP/err"
# the shipped bundle, where a repository has it: batch ordering too (it once predicted batch 8 slower)
if [ -f "$ROOT/models/perfpred-default.json" ]; then
  check less "$(PERFPRED_MODEL_DIR="$ROOT/models" lat --gpu gtx-1080ti --batch 8 --model default)" \
    "$(PERFPRED_MODEL_DIR="$ROOT/models" lat --gpu gtx-1080ti --batch 64 --model default)"
fi
check less "$(lat --gpu t4 --runtime tensorrt)" "$(lat --gpu t4)"
check $PY -c "
import json,subprocess,sys
j=json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','jetson-nano','--json','--no-meta','--runtime','tensorrt']))
assert j['breakdown']['h2d_ms']==0 and j['breakdown']['d2h_ms']==0" "$BIN" "$MODEL"

# 6. Spec file GPU and the readable summary
cat >"$TMP/gpu.json" <<'EOF'
{"sm_count": 40, "boost_clock_mhz": 1500, "fp32_lanes_per_sm": 128, "mem_bandwidth_gbps": 600, "memory_gb": 12}
EOF
"$BIN" predict "$MODEL" --gpu "$TMP/gpu.json" --layers >"$TMP/text" 2>"$TMP/err"
check test $? = 0
check grep -q "latency" "$TMP/text"
check grep -q "bound" "$TMP/text"

# 7. --host-factor: a slower host CPU lengthens a host-bound prediction (batch 1 eager, training) and
# leaves the kernels alone; the JSON and the notes say so; out-of-range values are refused.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','a100-sxm4-40gb','--json','--no-meta','--mode','training']+list(a)))
base, slow = run(), run('--host-factor','2')
assert 'host_factor' not in base and slow['host_factor'] == 2, (base.get('host_factor'), slow.get('host_factor'))
assert slow['latency_ms'] > 1.3 * base['latency_ms'], (base['latency_ms'], slow['latency_ms'])
assert abs(slow['breakdown']['kernels_ms'] - base['breakdown']['kernels_ms']) < 1e-9
assert any('--host-factor' in n for n in slow['notes'])
fast = run('--host-factor','0.5')
assert fast['latency_ms'] < base['latency_ms']" "$BIN" "$MODEL"
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --host-factor 0
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --host-factor 11
expect_exit 2 predict "$MODEL" --gpu gtx-1080ti --host-factor nan
check grep -q -- "--host-factor" "$TMP/err"

# 8. --no-tf32 (torch.backends.cudnn.allow_tf32 = False): FP32 convolutions on FP32 math. On an A100 the
# conv kernels get slower and the TF32 note goes; a GPU without TF32 (V100) does not move; the JSON echoes
# it; any precision but fp32 is refused with the flag named.
check $PY -c "
import json,subprocess,sys
run=lambda g,*a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu',g,'--json','--no-meta','--batch','32']+list(a)))
tf, no = run('a100-sxm4-40gb'), run('a100-sxm4-40gb','--no-tf32')
assert no['breakdown']['kernels_ms'] > 1.5 * tf['breakdown']['kernels_ms'], (tf['breakdown'], no['breakdown'])
assert no.get('allow_tf32') is False and 'allow_tf32' not in tf
assert any('TF32' in n for n in tf['notes']) and not any('TF32' in n for n in no['notes']), (tf['notes'], no['notes'])
v, vn = run('v100-sxm2-16gb'), run('v100-sxm2-16gb','--no-tf32')
assert v['latency_ms'] == vn['latency_ms']" "$BIN" "$ROOT/models/zoo/resnet18.onnx"
expect_exit 2 predict "$MODEL" --gpu a100-sxm4-40gb --no-tf32 --precision fp16
check grep -q -- "--no-tf32" "$TMP/err"

# 9. --cuda-graphs: the iteration replayed as a captured CUDA graph. ResNet-18 at batch 1 in eager PyTorch is
# host-bound; replayed, it runs at its kernels' pace (same kernels, far less host time). The JSON echoes the
# flag only when given, the text header names it, and the decision commands take it too.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','a100-sxm4-40gb','--json','--no-meta']+list(a)))
e, g = run(), run('--cuda-graphs')
assert g['breakdown']['kernels_ms'] == e['breakdown']['kernels_ms'], (e['breakdown'], g['breakdown'])
assert g['breakdown']['host_overhead_ms'] < 0.2 * e['breakdown']['host_overhead_ms'], (e['breakdown'], g['breakdown'])
assert g['latency_ms'] < 0.6 * e['latency_ms'], (e['latency_ms'], g['latency_ms'])
assert g.get('cuda_graphs') is True and 'cuda_graphs' not in e
m=json.loads(subprocess.check_output([sys.argv[1],'mig',sys.argv[2],'--gpu','a100-sxm4-40gb','--json','--cuda-graphs']))
assert m.get('cuda_graphs') is True, m.keys()" "$BIN" "$MODEL"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --cuda-graphs >"$TMP/g.txt"
check grep -q "CUDA graphs" "$TMP/g.txt"
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --cuda-graphs --out "$TMP/g.html" >/dev/null
check grep -q "CUDA graphs (replayed" "$TMP/g.html"

# 9b. --grad-mode: inference called without torch.no_grad() records autograd, so each forward op's dispatch
# costs more (the default is served inference under no_grad): same kernels, more host time; echoed only when
# given; refused for training (it always records) and for runtimes without autograd.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','a100-sxm4-40gb','--json','--no-meta']+list(a)))
n, g = run(), run('--grad-mode')
assert g['breakdown']['kernels_ms'] == n['breakdown']['kernels_ms'], (n['breakdown'], g['breakdown'])
assert g['breakdown']['host_overhead_ms'] > 1.1 * n['breakdown']['host_overhead_ms'], (n['breakdown'], g['breakdown'])
assert g.get('grad_mode') is True and 'grad_mode' not in n
s=json.loads(subprocess.check_output([sys.argv[1],'select',sys.argv[2],'--devices','t4','--json','--grad-mode']))
assert s.get('grad_mode') is True, s.keys()" "$BIN" "$MODEL"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --grad-mode >"$TMP/gm.txt"
check grep -q "grad mode" "$TMP/gm.txt"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --grad-mode --mode training >/dev/null 2>"$TMP/err"
check test $? -eq 2
check grep -q "a training step always records autograd" "$TMP/err"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --grad-mode --runtime tensorrt >/dev/null 2>"$TMP/err"
check test $? -eq 2
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/e.html" >/dev/null
if grep -q "CUDA graphs" "$TMP/e.html"; then echo "FAIL: report names CUDA graphs without the flag"; fail=1; fi

# 9c. --launch-queue N: the host issues a kernel only once the one N launches earlier has finished (a harness
# that synchronises per layer): never faster than no limit, the same kernels, echoed only when given (predict and
# the decision commands), named in the text header; a negative or non-numeric count is an input error.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','gtx-1080ti','--batch','16','--json','--no-meta']+list(a)))
n, q = run(), run('--launch-queue','1')
assert q['breakdown']['kernels_ms'] == n['breakdown']['kernels_ms'], (n['breakdown'], q['breakdown'])
assert q['latency_ms'] > n['latency_ms'], (n['latency_ms'], q['latency_ms'])
assert q.get('launch_queue') == 1 and 'launch_queue' not in n and 'launch_queue' not in run('--launch-queue','0')
s=json.loads(subprocess.check_output([sys.argv[1],'select',sys.argv[2],'--devices','t4','--json','--launch-queue','2']))
assert s.get('launch_queue') == 2, s.keys()" "$BIN" "$MODEL"
"$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --launch-queue 1 >"$TMP/lq.txt"
check grep -q "launch queue 1" "$TMP/lq.txt"
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --launch-queue 1 --out "$TMP/lq.html" >/dev/null
check grep -q "launch queue 1 (the host waits" "$TMP/lq.html"
for bad in -1 65537 two; do
  "$BIN" predict "$MODEL" --gpu a100-sxm4-40gb --launch-queue "$bad" >/dev/null 2>"$TMP/err"
  check test $? -eq 2
  check grep -q -- "--launch-queue" "$TMP/err"
done

# 10. --attention: PyTorch eager runs a transformer's MatMul -> Softmax -> MatMul as one fused
# scaled_dot_product_attention by default (sdpa); math runs the exported nodes. On ViT-B/16 the fused model
# issues fewer ops and kernels, the JSON echoes only math, a bad value names the option, and the decision
# commands take it too.
VIT="$ROOT/models/zoo/vit_b_16.onnx"
if [ -f "$VIT" ]; then
  check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','h100-sxm5-80gb','--json','--no-meta','--layers','--batch','8','--precision','fp16']+list(a)))
f, m = run(), run('--attention', 'math')
assert 'attention' not in f and m.get('attention') == 'math', (f.keys(), m.get('attention'))
assert len(f['layers']) < len(m['layers']) - 2 * 12, (len(f['layers']), len(m['layers']))
assert any('Softmax' in l['op'] and 'MatMul' in l['op'] for l in f['layers'])
assert f['latency_ms'] < m['latency_ms'], (f['latency_ms'], m['latency_ms'])
assert any('scaled_dot_product_attention' in n for n in f['notes'])
s=json.loads(subprocess.check_output([sys.argv[1],'sweep',sys.argv[2],'--base-gpu','h100-sxm5-80gb','--vary','sm_count=66:132:66','--json','--attention','math']))
assert s.get('attention') == 'math', s.keys()" "$BIN" "$VIT"
  expect_exit 2 predict "$VIT" --gpu h100-sxm5-80gb --attention flash
  check grep -q -- "--attention" "$TMP/err"
  "$BIN" predict "$VIT" --gpu h100-sxm5-80gb --attention math >"$TMP/m.txt"
  check grep -q "attention as written" "$TMP/m.txt"
fi

# 11. --param-updates: a PyTorch eager training step updates parameters as PyTorch >= 2.0 does by default
# (foreach: no gradient kernels, a few multi-tensor optimizer kernels); loop is PyTorch 1.x (zero_grad zeroes each
# .grad, per-tensor optimizer kernels), slower where the host bounds the step. The JSON echoes only loop, the
# text header says so, a bad value names the option, and the decision commands take it too.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','h100-sxm5-80gb','--json','--no-meta','--layers','--mode','training','--optimizer','momentum','--no-copies']+list(a)))
f, l = run(), run('--param-updates', 'loop')
assert 'param_updates' not in f and l.get('param_updates') == 'loop', (f.keys(), l.get('param_updates'))
names = lambda p: [x['name'] for x in p['layers']]
assert 'gradients' not in names(f) and 'gradients' in names(l), names(f)[-3:]
kernels = lambda p, n: sum(x['kernels'] for x in p['layers'] if x['name'] == n)
assert kernels(f, 'optimizer') < kernels(l, 'optimizer') / 10, (kernels(f, 'optimizer'), kernels(l, 'optimizer'))
assert f['latency_ms'] < l['latency_ms'], (f['latency_ms'], l['latency_ms'])
s=json.loads(subprocess.check_output([sys.argv[1],'sweep',sys.argv[2],'--base-gpu','h100-sxm5-80gb','--vary','sm_count=66:132:66','--json','--mode','training','--param-updates','loop']))
assert s.get('param_updates') == 'loop', s.keys()" "$BIN" "$MODEL"
expect_exit 2 predict "$MODEL" --gpu h100-sxm5-80gb --mode training --param-updates fused
check grep -q -- "--param-updates" "$TMP/err"
"$BIN" predict "$MODEL" --gpu h100-sxm5-80gb --mode training --param-updates loop >"$TMP/l.txt"
check grep -q "per-tensor parameter updates" "$TMP/l.txt"

# 12. --mixed-precision: fp16 training is AMP by default (torch.autocast casts each conv/GEMM weight per step, a
# GradScaler); half is model.half(). Only half is echoed; a bad value names the option.
check $PY -c "
import json,subprocess,sys
run=lambda *a: json.loads(subprocess.check_output([sys.argv[1],'predict',sys.argv[2],'--gpu','h100-sxm5-80gb','--json','--no-meta','--layers','--mode','training','--precision','fp16','--no-copies']+list(a)))
a, h = run(), run('--mixed-precision', 'half')
assert 'mixed_precision' not in a and h.get('mixed_precision') == 'half', (a.keys(), h.get('mixed_precision'))
casts = lambda p: sum(x['kernels'] for x in p['layers'] if x['name'] == 'autocast')
assert casts(a) == 2 * 22 and casts(h) == 0, (casts(a), casts(h))  # ResNet-18: 20 conv weights, the fc's and its bias
assert a['latency_ms'] > h['latency_ms'] and a['peak_memory_bytes'] > h['peak_memory_bytes']" "$BIN" "$MODEL"
expect_exit 2 predict "$MODEL" --gpu h100-sxm5-80gb --mode training --precision fp16 --mixed-precision O2
check grep -q -- "--mixed-precision" "$TMP/err"
"$BIN" select "$MODEL" --devices a100-sxm4-40gb,l4 --mode training --precision fp16 --mixed-precision half >"$TMP/s.txt"
check grep -q "half model" "$TMP/s.txt"

exit $fail
