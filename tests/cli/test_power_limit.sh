#!/usr/bin/env bash
# A power limit on a desktop/datacenter GPU (`--gpu ID@<W>w`, as `nvidia-smi -pl W`): predict runs the
# card at the clock the limit sustains and caps its power at the limit (ResNet-50 training on a V100 PCIe at
# 150 W is slower and draws at most 150 W), the limit reaches every command that takes a GPU (select,
# sweep's base, a spec file), the TDP itself changes nothing, and a limit outside (idle, TDP] or a suffix that
# is not one exits 2 with one line naming the id and the range.
# Usage: bash test_power_limit.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/resnet50.onnx"
[ -f "$MODEL" ] || { echo "skip: zoo models missing (run tools/export_zoo.py)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }
P=("$BIN" -q predict "$MODEL" --batch 64 --mode training --json --no-meta --analytical)

# 1. Slower and capped at the limit; the TDP as a limit is the prediction without one.
"${P[@]}" --gpu v100-pcie-32gb >"$TMP/tdp.json" || { echo "FAIL: predict at the TDP"; fail=1; }
"${P[@]}" --gpu v100-pcie-32gb@150w >"$TMP/150.json" || { echo "FAIL: predict at 150 W"; fail=1; }
"${P[@]}" --gpu v100-pcie-32gb@250w >"$TMP/250.json" || { echo "FAIL: predict at 250 W"; fail=1; }
check "$PY" - "$TMP" <<'PYEOF'
import json, sys
d = sys.argv[1]
tdp, low, top = (json.load(open(f"{d}/{n}.json")) for n in ("tdp", "150", "250"))
assert low["latency_ms"] > 1.05 * tdp["latency_ms"], (low["latency_ms"], tdp["latency_ms"])
assert low["avg_power_w"] <= 150 + 1e-9 < tdp["avg_power_w"], (low["avg_power_w"], tdp["avg_power_w"])
assert any("power-limited (150 W)" in n for n in low["notes"]), low["notes"]
for k in ("latency_ms", "energy_mj", "avg_power_w"):
    assert top[k] == tdp[k], (k, top[k], tdp[k])
PYEOF

# 2. Other commands take the limited GPU as --gpu / --devices does; a spec file takes a limit too.
"$BIN" -q select "$MODEL" --devices v100-pcie-32gb,v100-pcie-32gb@150w --json >"$TMP/select.json" \
  || { echo "FAIL: select with a limited GPU"; fail=1; }
check grep -q '"v100-pcie-32gb@150w"' "$TMP/select.json"
echo '{"schema_version": 1, "base": "a40", "id": "my-a40"}' >"$TMP/my-a40.json"
"${P[@]}" --gpu "$TMP/my-a40.json@150w" >"$TMP/spec150.json" || { echo "FAIL: spec file at 150 W"; fail=1; }
"${P[@]}" --gpu a40@150w >"$TMP/a40-150.json" || { echo "FAIL: a40 at 150 W"; fail=1; }
check "$PY" -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); assert a['latency_ms']==b['latency_ms'] and a['avg_power_w']<=150" \
  "$TMP/spec150.json" "$TMP/a40-150.json"

# 3. Errors: exit 2, one line, naming the id and the allowed range.
expect_error() {  # ID TEXT
  "${P[@]}" --gpu "$1" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: --gpu $1 exited $rc, want 2"; fail=1; }
  [ "$(wc -l <"$TMP/err")" = 1 ] || { echo "FAIL: --gpu $1: not one line:"; cat "$TMP/err"; fail=1; }
  grep -qF -- "$2" "$TMP/err" || { echo "FAIL: --gpu $1: no '$2' in:"; cat "$TMP/err"; fail=1; }
}
expect_error v100-pcie-32gb@300w "'v100-pcie-32gb@300w': power limit 300 W is outside v100-pcie-32gb's range (22.5, 250] W"
expect_error v100-pcie-32gb@10w "(22.5, 250] W"
expect_error v100-pcie-32gb@fast "v100-pcie-32gb@<W>w with W in (22.5, 250] W"
expect_error "$TMP/my-a40.json@301w" "(27, 300] W"
expect_error jetson-nano@7w "jetson-nano@5w"

exit $fail
