#!/usr/bin/env bash
# perfpred fit-host: the --host-factor at which predict matches a measured latency. Round trip (predict at
# F, feed its latency back, get F), the latencies it reports against predict's, monotonicity in F that the
# fit relies on, and one-line exit-2 errors where no factor in 0.1-10 matches.
# Usage: bash test_fit_host.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
ZOO="$ROOT/models/zoo"
for m in lenet5 resnet18 squeezenet1_0; do
  [ -f "$ZOO/$m.onnx" ] || { echo "skip: $ZOO/$m.onnx missing (run tools/export_zoo.py)"; exit 77; }
done
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

# 1-3 in one Python run: each case is a model, a GPU and predict's settings.
check $PY - "$BIN" "$ZOO" <<'EOF'
import json, re, subprocess, sys
BIN, ZOO = sys.argv[1], sys.argv[2]

def run(*args):
    r = subprocess.run([BIN, *args], capture_output=True, text=True)
    assert r.returncode == 0, (args, r.returncode, r.stderr)
    return r.stdout

_predicted = {}

def predict(model, gpu, extra, f=None):
    # predict is deterministic (test_predict.sh): each (case, factor) runs once, the grid's 0.5, 1.7 and 4
    # serving the round trips and the text check too.
    key = (model, gpu, tuple(extra), f)
    if key not in _predicted:
        args = ["predict", f"{ZOO}/{model}.onnx", "--gpu", gpu, "--json", "--no-meta", *extra]
        if f is not None:
            args += ["--host-factor", str(f)]
        _predicted[key] = json.loads(run(*args))
    return _predicted[key]

cases = [("lenet5", "a100-sxm4-40gb", []),
         ("resnet18", "a100-sxm4-40gb", ["--mode", "training", "--optimizer", "adam"]),
         ("squeezenet1_0", "t4", ["--runtime", "onnxruntime"]),
         ("lenet5", "jetson-orin-nano-8gb", ["--analytical"]),
         ("resnet18", "l4", ["--batch", "2", "--precision", "fp16"])]
for model, gpu, extra in cases:
    # 1. Monotone: the latency never falls as the host slows (what the bisection relies on).
    grid = [0.1, 0.2, 0.5, 0.8, 1, 1.3, 1.7, 2.5, 4, 7, 10]
    lat = [predict(model, gpu, extra, f)["latency_ms"] for f in grid]
    assert all(b >= a for a, b in zip(lat, lat[1:])), (model, gpu, extra, lat)
    assert lat[-1] > 2 * lat[0], (model, gpu, extra, lat)  # host-bound: the factor is identifiable
    at1 = predict(model, gpu, extra)
    for f in (0.5, 1.7, 4):
        # 2. Round trip: predict at F, fit its latency, get F back within 1%.
        t = predict(model, gpu, extra, f)["latency_ms"]
        j = json.loads(run("fit-host", f"{ZOO}/{model}.onnx", "--gpu", gpu, "--measured-ms", str(t), "--json", *extra))
        assert abs(j["host_factor"] / f - 1) < 0.01, (model, gpu, extra, f, j["host_factor"])
        # 3. What it reports is predict's: the latency at F=1, at the fitted F (= the measurement), the range.
        assert j["latency_ms"]["at_host_factor_1"] == at1["latency_ms"], (j["latency_ms"], at1["latency_ms"])
        # The factor is printed to 4 significant digits; `fitted` is predict's latency at that factor.
        assert abs(j["latency_ms"]["fitted"] / t - 1) < 1e-3, (j["latency_ms"], t)
        assert predict(model, gpu, extra, j["host_factor"])["latency_ms"] == j["latency_ms"]["fitted"]
        assert j["range_ms"]["at_host_factor_0.1"] == lat[0] and j["range_ms"]["at_host_factor_10"] == lat[-1]
        assert j["measured_ms"] == t and j["gpu"] == gpu and j["model"] == model
        assert j["breakdown_at_host_factor_1"]["host_overhead_ms"] == at1["breakdown"]["host_overhead_ms"]
        assert j["model_bundle"] == at1["model_bundle"]
    # Text: the factor, and both latencies.
    out = run("fit-host", f"{ZOO}/{model}.onnx", "--gpu", gpu, "--measured-ms", str(predict(model, gpu, extra, 1.7)["latency_ms"]), *extra)
    # Printed to 4 significant digits: 1.7 back within 1% (where the host is hidden for part of the range, the
    # latency is flat enough that the last digit moves), the same factor in the command it suggests and in the
    # latency line.
    m = re.search(r"host factor  ([0-9.]+)  \(predict --host-factor ([0-9.]+) matches", out)
    assert m and m.group(1) == m.group(2) and abs(float(m.group(1)) / 1.7 - 1) < 0.01, out
    assert "at host factor 1 (" in out and f"at host factor {m.group(1)}\n" in out, out
EOF

# 4. No factor in range matches: exit 2, one line saying why (the floor, the ceiling) and naming the flag.
M="$ZOO/lenet5.onnx"
expect_error() {  # expect_error PATTERN ARGS...
  local pat=$1; shift
  "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL: perfpred $* exited $rc, expected 2"; fail=1; return; fi
  if [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "$pat" "$TMP/err"; then
    echo "FAIL: perfpred $*: expected one line with '$pat', got: $(cat "$TMP/err")"; fail=1
  fi
  [ -s "$TMP/out" ] && { echo "FAIL: perfpred $* printed a result: $(cat "$TMP/out")"; fail=1; }
  return 0
}
floor=$("$BIN" predict "$M" --gpu a100-sxm4-40gb --json --no-meta | $PY -c "import json,sys; b=json.load(sys.stdin)['breakdown']; print(b['kernels_ms']+b['h2d_ms']+b['d2h_ms'])")
low=$($PY -c "print($floor / 2)")
expect_error "--measured-ms $low: below the kernel-only floor of" fit-host "$M" --gpu a100-sxm4-40gb --measured-ms "$low"
check grep -q "kernels 0.1" "$TMP/err"
ceiling=$("$BIN" predict "$M" --gpu a100-sxm4-40gb --json --no-meta --host-factor 10 | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])")
high=$($PY -c "print($ceiling * 1.5)")
expect_error "slower than predicted at the largest host factor" fit-host "$M" --gpu a100-sxm4-40gb --measured-ms "$high"
# Between the kernel-only floor and the prediction at 0.1: a host more than 10x faster.
at01=$("$BIN" predict "$M" --gpu a100-sxm4-40gb --json --no-meta --host-factor 0.1 | $PY -c "import json,sys; print(json.load(sys.stdin)['latency_ms'])")
mid=$($PY -c "print(($floor + $at01) / 2)")
expect_error "faster than predicted at the smallest host factor" fit-host "$M" --gpu a100-sxm4-40gb --measured-ms "$mid"
for t in 0 -1 nan inf; do
  expect_error "--measured-ms $t: the measured latency must be a positive number" fit-host "$M" --gpu a100-sxm4-40gb --measured-ms "$t"
done
expect_error "measured-ms" fit-host "$M" --gpu a100-sxm4-40gb
expect_error "no-such-gpu" fit-host "$M" --gpu no-such-gpu --measured-ms 1
expect_error "no such model file" fit-host "$TMP/none.onnx" --gpu a100-sxm4-40gb --measured-ms 1
# The ends of the range fit.
"$BIN" fit-host "$M" --gpu a100-sxm4-40gb --measured-ms "$ceiling" --json >"$TMP/j" 2>"$TMP/err"
check test $? = 0
check $PY -c "import json,sys; j=json.load(open(sys.argv[1])); assert abs(j['host_factor'] - 10) < 0.01, j" "$TMP/j"

exit $fail
