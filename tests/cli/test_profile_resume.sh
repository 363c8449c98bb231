#!/usr/bin/env bash
# Kill a simulated profile run (SIGKILL mid-way, then SIGINT), resume it, and check that no row
# is lost or duplicated and the files parse. Usage: test_profile_resume.sh PERFPRED_BINARY REPO_ROOT
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
args=(profile --backend simulated --gpu h100-sxm5-80gb --plan quick --out "$tmp/run" --no-progress)
planned=$("$bin" profile --plan quick --dry-run | wc -l)

wait_rows() {  # wait_rows N: until kernels.csv holds more than N lines (the machine may be slow)
  for _ in $(seq 1 600); do
    [ -f "$tmp/run/kernels.csv" ] && [ "$(wc -l <"$tmp/run/kernels.csv")" -gt "$1" ] && return 0
    sleep 0.05
  done
  return 1
}

check() {  # check EXPECT_COMPLETE: ids unique, every row parses, count
  python3 - "$tmp/run" "$planned" "$1" <<'PY'
import csv, io, sys, os
d, planned, complete = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
ids = []
for f, kind in (("kernels.csv", "kernel"), ("microbench.csv", "kernel"), ("networks.csv", "network")):
    p = os.path.join(d, f)
    if not os.path.exists(p):
        continue
    with open(p, newline="") as fh:
        text = fh.read()
    assert text.startswith("#perfpred %s-dataset schema_version=1\n" % kind), text[:60]
    body = text.split("\n", 1)[1]
    if not body.endswith("\n"):  # a row torn by SIGKILL: readers skip it
        body = body[: body.rfind("\n") + 1]
    rows = list(csv.DictReader(io.StringIO(body)))
    ids += [r["id"] for r in rows]
assert len(ids) == len(set(ids)), "duplicate ids"
if complete:
    assert len(ids) == planned, (len(ids), planned)
else:
    assert 0 < len(ids) < planned, len(ids)
print(len(ids))
PY
}

"$bin" "${args[@]}" --simulate-ms-per-entry 5 >/dev/null 2>"$tmp/err1" &
pid=$!
wait_rows 60 || fail "no rows after 30 s"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
n1=$(check 0) || fail "after SIGKILL"
# The CLI reads a file with a torn last line (warning) before resuming.
"$bin" dataset info "$tmp/run/kernels.csv" >/dev/null 2>&1 || fail "info after SIGKILL"

"$bin" "${args[@]}" --simulate-ms-per-entry 5 --resume >/dev/null 2>"$tmp/err2" &
pid=$!
wait_rows $((n1 + 60)) || fail "resume wrote no rows"
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] || { cat "$tmp/err2"; fail "SIGINT exit code $rc, expected 130"; }
grep -q -- "--resume" "$tmp/err2" || { cat "$tmp/err2"; fail "no --resume hint after SIGINT"; }
n2=$(check 0) || fail "after SIGINT"
[ "$n2" -gt "$n1" ] || fail "resume made no progress ($n1 -> $n2)"

"$bin" "${args[@]}" --resume >"$tmp/summary.json" 2>"$tmp/err3" || { cat "$tmp/err3"; fail "final resume"; }
n3=$(check 1) || fail "after the final resume"
python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['complete'] and s['already_done']==$n2, s" "$tmp/summary.json" \
  || fail "summary after resume"
# Another plan or shard into the same folder is refused: one sidecar describes one run.
if "$bin" profile --backend simulated --gpu h100-sxm5-80gb --plan full --out "$tmp/run" --no-progress --resume \
    >/dev/null 2>"$tmp/err4"; then
  fail "--resume with another plan was accepted"
fi
grep -q "another plan" "$tmp/err4" || { cat "$tmp/err4"; fail "no message naming the plan mismatch"; }
if "$bin" "${args[@]}" --resume --shard 1/2 >/dev/null 2>"$tmp/err5"; then fail "--resume with another shard was accepted"; fi
grep -q "holds shard 0/1" "$tmp/err5" || { cat "$tmp/err5"; fail "no message naming the shard mismatch"; }
echo "killed at $n1 rows, interrupted at $n2, completed with $n3 of $planned: no loss, no duplicate"
echo PASS
