#!/usr/bin/env bash
# Real-world ONNX files nobody here wrote, as npm packages ship them (tests/cli/oracle/npm_models.py:
# silero VAD legacy/v5/v6 with their If trees, openWakeWord's melspectrogram and its tf2onnx embedding
# model, PaddleOCR v4 det/rec, v2 cls and v3 rec), each at one or two input shapes: ONNX Runtime (npm
# onnxruntime-node in <repo>/cache/node) runs the model with every If replaced by the branch it takes and
# every node output made a graph output; perfpred's `inspect --json` must have every one of those node
# outputs, shaped the same, and predict must run. The packages are fetched with `npm pack` (the package
# alone, without its onnxruntime-web dependency) into <repo>/cache/npm_models (git-ignored), with ONNX
# Runtime's shapes of each model (oracle/ort_node.sh, ort_shapes).
# Usage: bash test_onnx_oracle_npm.sh PERFPRED_BINARY REPO_ROOT [MODEL...]   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
shift 2
PY=/usr/bin/python3
"$PY" -c "import onnx" 2>/dev/null || { echo "skip: $PY lacks onnx"; exit 77; }
. "$ROOT/tests/cli/oracle/ort_node.sh"
MODELS_PY="$ROOT/tests/cli/oracle/npm_models.py"
PKGS="$ROOT/cache/npm_models"
mkdir -p "$PKGS"
while IFS= read -r spec; do
  dir="$PKGS/$(echo "${spec%@*}" | sed 's|^@||; s|/|_|g')"
  [ -d "$dir/package" ] && continue
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  tgz=$(cd "$dir.tmp" && timeout 600 npm pack --silent "$spec" 2>"$PKGS/npm.log" | tail -1)
  if [ -z "$tgz" ] || [ ! -f "$dir.tmp/$tgz" ]; then
    rm -rf "$dir.tmp"
    echo "skip: npm pack $spec failed (registry unreachable?), see $PKGS/npm.log"; exit 77
  fi
  tar xzf "$dir.tmp/$tgz" -C "$dir.tmp" && rm "$dir.tmp/$tgz" && mv "$dir.tmp" "$dir" ||
    { echo "FAIL: could not unpack $spec"; exit 1; }
done < <("$PY" "$MODELS_PY" --packages)
OUT="$PKGS/oracle"
models=("$@")
[ ${#models[@]} -gt 0 ] || mapfile -t models < <("$PY" "$MODELS_PY" --list)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
for m in "${models[@]}"; do
  if [ ! -f "$OUT/$m.all.onnx" ] &&
     ! ORT_NODE_PATH="$NODE_DIR/node_modules" "$PY" "$MODELS_PY" --prepare "$m" --pkgs "$PKGS" --out "$OUT" 2>"$TMP/err"; then
    echo "FAIL: $m: prepare: $(cat "$TMP/err")"; fail=1; continue
  fi
  mapfile -t args <"$OUT/$m.args"
  if ! ort_shapes "$OUT/$m.all.onnx" "$OUT/$m.feeds.json" "$OUT/$m.ort.json" >"$TMP/ort.json" 2>"$TMP/err"; then
    echo "FAIL: $m: onnxruntime: $(cat "$TMP/err")"; fail=1; continue
  fi
  if ! "$BIN" inspect "${args[@]}" --json >"$TMP/pp.json" 2>"$TMP/err"; then
    echo "FAIL: $m: perfpred inspect: $(cat "$TMP/err")"; fail=1; continue
  fi
  "$PY" "$ROOT/tests/cli/oracle/compare.py" "$TMP/pp.json" "$TMP/ort.json" "$m" || fail=1
  if ! "$BIN" predict "${args[@]}" --gpu a100-sxm4-40gb --json >"$TMP/pred.json" 2>"$TMP/err"; then
    echo "FAIL: $m: perfpred predict: $(cat "$TMP/err")"; fail=1
  fi
done
exit $fail
