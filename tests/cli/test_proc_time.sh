#!/usr/bin/env bash
# tools/proc_time.py, the timer of scripts/eval_learned.sh's speed figures: a child that burns user CPU and reports
# its own (os.times) must be recorded with at least that much, and a wall time no shorter than it, at microsecond
# resolution (the figures of a ~10 ms `perfpred predict` must not round to 0, as /usr/bin/time's did); the child's
# stdout passes through; its exit status is returned (3 stays 3, SIGKILL is 137); a command that does not exist is
# refused by name. No ../shared.
# Usage: bash test_proc_time.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=$(cd "${2:?repository root}" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TOOL="$ROOT/tools/proc_time.py"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$($PY "$TOOL" "$TMP/burn.json" $PY -c "
import os
sum(i * i for i in range(3000000))
print(os.times().user)")
rc=$?
[ "$rc" = 0 ] || bad "a child that exits 0 gave $rc"
case "$out" in [0-9]*) ;; *) bad "the child's stdout did not pass through: '$out'" ;; esac
$PY - "$TMP/burn.json" "$out" <<'EOF' || fail=1
import json, sys
t = json.load(open(sys.argv[1]))
own = float(sys.argv[2])  # the user CPU the child counted itself, before it exited
for k in ("wall_s", "cpu_s", "sys_s", "max_rss_kb"):
    if k not in t:
        sys.exit(f"FAIL: {k} missing from {t}")
if not (own >= 0.05 and t["cpu_s"] >= own - 0.001):
    sys.exit(f"FAIL: the child's {own} s of user CPU recorded as {t['cpu_s']}")
if not t["wall_s"] >= t["cpu_s"] * 0.9:
    sys.exit(f"FAIL: wall {t['wall_s']} shorter than the CPU time {t['cpu_s']}")
if t["max_rss_kb"] <= 0:
    sys.exit(f"FAIL: peak RSS {t['max_rss_kb']}")
EOF

# Short perfpred runs keep figures finer than /usr/bin/time's hundredths (which read a 10 ms predict as 0): over
# three runs, some wall or CPU figure has a digit past the hundredths, and every wall time is above zero.
for i in 1 2 3; do
  "$PY" "$TOOL" "$TMP/predict-$i.json" "$BIN" -q predict "$ROOT/models/zoo/resnet18.onnx" --gpu a100-pcie-40gb \
    --json >/dev/null || bad "perfpred predict under proc_time failed"
done
$PY - "$TMP"/predict-[123].json <<'EOF' || fail=1
import json, sys
runs = [json.load(open(p)) for p in sys.argv[1:]]
figures = [r[k] for r in runs for k in ("wall_s", "cpu_s", "sys_s")]
if not all(r["wall_s"] > 0 for r in runs):
    sys.exit(f"FAIL: a zero wall time: {runs}")
if all(abs(v * 100 - round(v * 100)) < 1e-9 for v in figures):
    sys.exit(f"FAIL: every figure is whole hundredths of a second: {runs}")
EOF

$PY "$TOOL" "$TMP/x.json" sh -c 'exit 3'
rc=$?
[ "$rc" = 3 ] || bad "exit 3 came back as $rc"
[ -s "$TMP/x.json" ] || bad "no figures written for a failing command"
$PY "$TOOL" "$TMP/k.json" sh -c 'kill -9 $$'
rc=$?
[ "$rc" = 137 ] || bad "SIGKILL came back as $rc, not 137"
err=$($PY "$TOOL" "$TMP/n.json" "$TMP/no-such-command" 2>&1)
rc=$?
[ "$rc" != 0 ] || bad "a missing command exited 0"
echo "$err" | grep -q "no-such-command" || bad "a missing command was not named: $err"
[ "$(echo "$err" | wc -l)" = 1 ] || bad "a missing command gave more than one line: $err"

[ "$fail" = 0 ] && echo "ok: proc_time"
exit $fail
