#!/usr/bin/env bash
# tools/eval_analytical.py's run settings: a row's launch_queue column becomes --launch-queue (HELP's rows), and the
# what-if --launch-queue N overrides it on every PyTorch row or (scope marked) only on rows that set one; a TensorRT
# row never takes it. No ../shared needed.
# Usage: bash test_eval_analytical_settings.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, else fail)
set -u
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
$PY - "$ROOT/tools" <<'EOF' || exit 1
import sys
sys.path.insert(0, sys.argv[1])
import eval_analytical as ea
help_row = {"mode": "inference", "runtime": "pytorch", "grad_mode": "1", "launch_queue": "1"}
plain = {"mode": "inference", "runtime": "pytorch"}
trt = {"mode": "inference", "runtime": "tensorrt"}
assert ea.run_settings(help_row) == ["--grad-mode", "--launch-queue", "1"], ea.run_settings(help_row)
assert "--launch-queue" not in ea.run_settings(plain) and "--launch-queue" not in ea.run_settings(dict(plain, launch_queue="0"))
assert ea.with_queue(help_row, None, "pytorch") is help_row
q = lambda r, n, s: ea.run_settings(ea.with_queue(r, n, s))
assert q(plain, 4, "pytorch")[-2:] == ["--launch-queue", "4"], q(plain, 4, "pytorch")
assert "--launch-queue" not in q(plain, 4, "marked")
assert q(help_row, 2, "marked")[-2:] == ["--launch-queue", "2"]
assert "--launch-queue" not in q(trt, 4, "pytorch")
assert help_row["launch_queue"] == "1", "the row itself was changed"
print("ok")
EOF
