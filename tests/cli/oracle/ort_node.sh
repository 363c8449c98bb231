# Sourced by the ONNX Runtime oracle tests: defines ort_shapes (below) and sets NODE_DIR to
# <repo>/cache/node with npm's onnxruntime-node installed there, or exits 77 (skip) when node/npm are
# missing or the registry is unreachable. The install runs under a lock: ctest -j starts both oracle tests
# at once on a fresh clone, and two npm installs into one folder corrupt it.
command -v node >/dev/null && command -v npm >/dev/null || { echo "skip: node/npm not installed"; exit 77; }
NODE_DIR="$ROOT/cache/node"
mkdir -p "$NODE_DIR"
(
  flock 9
  [ -d "$NODE_DIR/node_modules/onnxruntime-node" ] ||
    (cd "$NODE_DIR" && timeout 600 npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >npm.log 2>&1)
) 9>"$NODE_DIR/.install.lock" ||
  { echo "skip: npm install onnxruntime-node failed (registry unreachable?), see $NODE_DIR/npm.log"; exit 77; }

# ort_shapes ALL.onnx FEEDS.json CACHED.json: what ort_shapes.js prints for ALL.onnx on FEEDS.json, also
# kept in CACHED.json. ONNX Runtime's shapes depend on nothing perfpred builds, so CACHED.json is reused
# while it is newer than the model, the feeds, ort_shapes.js and the installed onnxruntime-node: the
# sanitizer pass of CI (and any rerun) checks perfpred against the shapes the first pass had ONNX Runtime
# compute instead of computing them again (about 45 s of test_onnx_oracle and 30 s of its npm twin).
ort_shapes() {
  local model=$1 feeds=$2 cached=$3 dep fresh=0
  if [ -s "$cached" ]; then
    fresh=1
    for dep in "$model" "$feeds" "$ROOT/tests/cli/oracle/ort_shapes.js" "$NODE_DIR/node_modules/onnxruntime-node/package.json"; do
      [ "$cached" -nt "$dep" ] || fresh=0
    done
  fi
  if [ "$fresh" = 0 ]; then
    NODE_PATH="$NODE_DIR/node_modules" node "$ROOT/tests/cli/oracle/ort_shapes.js" "$model" "$feeds" >"$cached.$$.tmp" ||
      { rm -f "$cached.$$.tmp"; return 1; }
    mv "$cached.$$.tmp" "$cached"
  fi
  cat "$cached"
}
