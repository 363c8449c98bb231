# Sourced by the ONNX Runtime oracle tests: sets NODE_DIR to <repo>/cache/node with npm's onnxruntime-node
# installed there, or exits 77 (skip) when node/npm are missing or the registry is unreachable. The install
# runs under a lock: ctest -j starts both oracle tests at once on a fresh clone, and two npm installs into
# one folder corrupt it.
command -v node >/dev/null && command -v npm >/dev/null || { echo "skip: node/npm not installed"; exit 77; }
NODE_DIR="$ROOT/cache/node"
mkdir -p "$NODE_DIR"
(
  flock 9
  [ -d "$NODE_DIR/node_modules/onnxruntime-node" ] ||
    (cd "$NODE_DIR" && timeout 600 npm install --ignore-scripts --no-audit --no-fund onnxruntime-node >npm.log 2>&1)
) 9>"$NODE_DIR/.install.lock" ||
  { echo "skip: npm install onnxruntime-node failed (registry unreachable?), see $NODE_DIR/npm.log"; exit 77; }
