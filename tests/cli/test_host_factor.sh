#!/usr/bin/env bash
# --host-factor on every command that predicts for a machine (sweep, select, mig, diff, report, budget
# check), as predict takes it: on a host-bound model (lenet5 at batch 1, eager) F=2 lengthens each
# command's latency figure, F=1 is byte-identical to no flag, the JSON echoes `host_factor` and predict's
# note, the text names the factor, and a factor outside 0.1-10 exits 2 with one line naming the flag.
# Usage: bash test_host_factor.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
MODEL="$ROOT/models/zoo/lenet5.onnx"
OTHER="$ROOT/models/zoo/squeezenet1_0.onnx"
[ -f "$MODEL" ] && [ -f "$OTHER" ] || { echo "skip: zoo models missing (run tools/export_zoo.py)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
check() { if ! "$@"; then echo "FAIL: $*"; fail=1; fi; }

cp "$MODEL" "$TMP/lenet5.onnx"  # a budget file's model paths are relative to the file
cat >"$TMP/budget.json" <<'EOF'
{"schema_version": 1, "entries": [
  {"name": "lenet-a100", "model": "lenet5.onnx", "gpu": "a100-sxm4-40gb", "limits": {"latency_ms": 1.0}}]}
EOF

# Each command's arguments (one per line: name, then the arguments, tab-separated).
commands() {
  printf '%s\t' sweep sweep "$MODEL" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54; echo
  printf '%s\t' select select "$MODEL" --devices a100-sxm4-40gb,a30; echo
  printf '%s\t' mig mig "$MODEL" --gpu a100-sxm4-40gb; echo
  printf '%s\t' diff diff "$MODEL" "$OTHER" --gpu a30; echo
  printf '%s\t' budget budget check "$TMP/budget.json" --no-meta; echo
}

# 1. F=1 is the prediction without the flag, byte for byte (sweep: its CSV; its JSON carries the run time),
#    in JSON and in text (less the sweep's run time); F=2 is another document.
while IFS=$'\t' read -r -a cmd; do
  name=${cmd[0]}
  args=("${cmd[@]:1}")
  fmt=--json
  [ "$name" = sweep ] && fmt=--csv
  for f in none 1 2; do
    extra=()
    [ "$f" = none ] || extra=(--host-factor "$f")
    "$BIN" "${args[@]}" $fmt "${extra[@]}" >"$TMP/$name.$f" 2>"$TMP/err" </dev/null
    rc=$?
    # budget exits 1 at F=2 (the limit is exceeded, section 3); mig, select and diff exit 0.
    if [ $rc -ne 0 ] && ! { [ "$name" = budget ] && [ "$f" = 2 ] && [ $rc -eq 1 ]; }; then
      echo "FAIL: perfpred ${args[*]} $fmt ${extra[*]} exited $rc: $(cat "$TMP/err")"; fail=1
    fi
    # (The sweep's text ends with its run time.)
    "$BIN" "${args[@]}" "${extra[@]}" 2>/dev/null </dev/null | grep -v "points in .* s (" >"$TMP/$name.$f.txt"
  done
  check cmp -s "$TMP/$name.none" "$TMP/$name.1"
  check cmp -s "$TMP/$name.none.txt" "$TMP/$name.1.txt"
  if cmp -s "$TMP/$name.none" "$TMP/$name.2"; then echo "FAIL: $name --host-factor 2 changed nothing"; fail=1; fi
  # The text names the factor where it is not 1, and only there (budget: a note under the verdicts).
  check grep -q "host factor 2\|scaled by 2 (--host-factor)" "$TMP/$name.2.txt"
  if grep -q "host factor\|--host-factor" "$TMP/$name.1.txt"; then echo "FAIL: $name text names a host factor at F=1"; fail=1; fi
done < <(commands)
"$BIN" sweep "$MODEL" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54 --json >"$TMP/sweep.json" 2>/dev/null
"$BIN" sweep "$MODEL" --base-gpu a100-sxm4-40gb --vary sm_count=54:108:54 --json --host-factor 2 >"$TMP/sweep.2.json" 2>/dev/null

# 2. F=2 lengthens every latency figure of each document (a host-bound model: most of it is host
#    overhead), and the JSON echoes the factor and predict's note where, and only where, F != 1.
check $PY - "$TMP" <<'EOF'
import csv, json, os, sys
d = sys.argv[1]
load = lambda n: json.load(open(os.path.join(d, n)))

def latencies(name, doc):
    if name == "sweep":
        return [p["latency_ms"] for p in doc["points"]]
    if name == "select":
        return [c["prediction"]["latency_ms"] for c in doc["ranked"] + doc["rejected"]]
    if name == "mig":
        return [doc["whole_gpu"]["latency_ms"]] + [p["prediction"]["latency_ms"] for p in doc["profiles"]]
    if name == "diff":
        return [doc["old"]["latency_ms"], doc["new"]["latency_ms"]]
    if name == "budget":
        return [e["prediction"]["latency_ms"] for e in doc["entries"]]

docs = {n: (load(n + ".none"), load(n + ".2")) for n in ("select", "mig", "diff", "budget")}
docs["sweep"] = (load("sweep.json"), load("sweep.2.json"))
for name, (base, slow) in docs.items():
    a, b = latencies(name, base), latencies(name, slow)
    assert len(a) == len(b) and a, (name, a, b)
    for x, y in zip(a, b):
        assert y > 1.5 * x, (name, x, y)  # lenet5 at batch 1 is host-bound: F=2 nearly doubles it
    assert "host_factor" not in base and "notes" not in base, (name, base.get("host_factor"), base.get("notes"))
    assert slow["host_factor"] == 2, (name, slow.get("host_factor"))
    assert any("--host-factor" in n and "scaled by 2" in n for n in slow["notes"]), (name, slow.get("notes"))
    # Only host costs move: memory stays.
    if name == "diff":
        assert slow["old"]["peak_memory_bytes"] == base["old"]["peak_memory_bytes"]
# The sweep CSV at F=2: the same grid, every latency longer.
rows = lambda n: list(csv.DictReader(open(os.path.join(d, n))))
a, b = rows("sweep.none"), rows("sweep.2")
assert [r["sm_count"] for r in a] == [r["sm_count"] for r in b]
assert all(float(y["latency_ms"]) > 1.5 * float(x["latency_ms"]) for x, y in zip(a, b))
EOF

# 3. budget check: a latency limit the reference machine meets and a host twice as slow does not.
"$BIN" budget check "$TMP/budget.json" >"$TMP/out" 2>&1
check test $? = 0
"$BIN" budget check "$TMP/budget.json" --host-factor 2 >"$TMP/out" 2>&1
check test $? = 1
check grep -q "^FAIL  lenet-a100" "$TMP/out"
check grep -q "note: host costs .* scaled by 2 (--host-factor)" "$TMP/out"
"$BIN" budget check "$TMP/budget.json" --host-factor 2 --junit "$TMP/j.xml" >/dev/null 2>&1
check grep -q "host factor 2" "$TMP/j.xml"

# 4. report: the HTML at F=1 is the one without the flag; at F=2 the device table's latency is longer and
#    the header and the device's assumptions name the factor.
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/r.none.html" >/dev/null 2>&1
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/r.1.html" --host-factor 1 >/dev/null 2>&1
"$BIN" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/r.2.html" --host-factor 2 >/dev/null 2>&1
check test -s "$TMP/r.none.html"
check cmp -s "$TMP/r.none.html" "$TMP/r.1.html"
check grep -q "host factor 2" "$TMP/r.2.html"
check grep -q "scaled by 2 (--host-factor)" "$TMP/r.2.html"
if grep -q "host factor\|--host-factor" "$TMP/r.none.html"; then echo "FAIL: report names a host factor at F=1"; fail=1; fi
check $PY "$ROOT/tests/cli/report_slower.py" a100-sxm4-40gb "$TMP/r.none.html" "$TMP/r.2.html" 1.5

# 5. Out of range, not a number: exit 2, one line naming the flag, on every command.
expect_refused() {  # expect_refused VALUE ARGS...
  local v=$1; shift
  "$BIN" "$@" --host-factor "$v" >"$TMP/out" 2>"$TMP/err" </dev/null
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL: perfpred $* --host-factor $v exited $rc, expected 2"; fail=1; return; fi
  if [ "$(wc -l <"$TMP/err")" != 1 ] || ! grep -q -- "--host-factor $v: must be between 0.1 and 10" "$TMP/err"; then
    echo "FAIL: perfpred $* --host-factor $v: expected one line naming the flag, got: $(cat "$TMP/err")"; fail=1
  fi
}
for v in 0 0.05 11 nan -1; do
  while IFS=$'\t' read -r -a cmd; do expect_refused "$v" "${cmd[@]:1}"; done < <(commands)
  expect_refused "$v" report "$MODEL" --gpu a100-sxm4-40gb --out "$TMP/bad.html"
done
check test ! -e "$TMP/bad.html"
# The range's ends are accepted.
for v in 0.1 10; do
  "$BIN" select "$MODEL" --devices a30 --host-factor "$v" >/dev/null 2>"$TMP/err" || { echo "FAIL: --host-factor $v refused: $(cat "$TMP/err")"; fail=1; }
done

exit $fail
