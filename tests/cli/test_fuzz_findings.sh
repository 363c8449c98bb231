#!/usr/bin/env bash
# Every input in ../shared/reliability/fuzz-findings (each once crashed perfpred, printed an internal error
# or a multi-line error, allocated gigabytes or ran for minutes) runs its recorded command against the
# real binary: it must exit 2 with one printable line that names one of its input files, unless the
# folder's `expect` file allows 0 (a legitimate sweep), and every run must end within its time limit.
# Usage: bash test_fuzz_findings.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, 77 skip, else fail)
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # the command runs in a copy of each folder
root=$2
findings=${PERFPRED_FUZZ_FINDINGS:-$root/../shared/reliability/fuzz-findings}
[ -d "$findings" ] || { echo "skip: $findings missing"; exit 77; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A sanitized build runs several times slower; PERFPRED_TIME_SCALE stretches the limits.
scale=${PERFPRED_TIME_SCALE:-1}
fail=0
n=0
for dir in "$findings"/*/; do
  name=$(basename "$dir")
  [ -f "$dir/command" ] || continue
  n=$((n + 1))
  work=$tmp/$name
  cp -r "$dir" "$work"
  cmd=$(cat "$dir/command")
  allowed="2"
  limit=30
  if [ -f "$dir/expect" ]; then
    grep -q "0 or 2" "$dir/expect" && allowed="0 2"
    # A legitimate input (exit 0 allowed) is a speed check, which the uninstrumented build makes; under
    # ASan a million-point sweep takes many minutes and finds nothing the other inputs do not.
    if [ "$allowed" = "0 2" ] && [ "${PERFPRED_SANITIZED:-0}" = 1 ]; then
      echo "note: $name skipped in the sanitized build (a speed check)"
      n=$((n - 1))
      continue
    fi
    l=$(grep -o 'within [0-9]* s' "$dir/expect" | grep -o '[0-9]*')
    [ -n "$l" ] && limit=$l
  fi
  limit=$((limit * scale))
  # The recorded command starts with the word perfpred; run it with this binary, in a copy of the folder.
  # On a machine shared with other jobs wall time measures their load: the limit holds for the wall
  # time or for the CPU time spread over the cores, and only a run 10 times past it is killed.
  TIMEFORMAT='%R %U %S'
  { time (cd "$work" && eval "timeout -s KILL $((limit * 10)) \"\$bin\" ${cmd#perfpred }" >"$tmp/$name.out" 2>"$tmp/$name.err"; echo $? >"$tmp/$name.rc"); } 2>"$tmp/$name.time"
  rc=$(cat "$tmp/$name.rc" 2>/dev/null || true)
  read -r secs usr sys <"$tmp/$name.time"
  cpu_per_core=$(awk -v u="$usr" -v s="$sys" -v n="$(nproc)" 'BEGIN { print (u + s) / n }')
  msg=""
  case " $allowed " in
    *" $rc "*) ;;
    *) msg="exit $rc, expected one of: $allowed" ;;
  esac
  if [ -z "$msg" ] && awk -v w="$secs" -v c="$cpu_per_core" -v l="$limit" 'BEGIN { exit !(w > l && c > l) }'; then
    msg="took ${secs} s (${cpu_per_core} s of CPU per core), over the limit of ${limit} s"
  fi
  if [ -z "$msg" ] && [ "$rc" = 2 ]; then
    msg=$("$py" - "$tmp/$name.err" "$dir" <<'PY'
import os, sys
raw = open(sys.argv[1], "rb").read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    print("stderr is not valid UTF-8 (%s)" % e); sys.exit()
lines = text.split("\n")
if len(lines) != 2 or lines[1] != "":
    print("stderr has %d lines, expected one" % (len(lines) - 1)); sys.exit()
line = lines[0]
if not line.startswith("perfpred: error: "):
    print("stderr is not 'perfpred: error: ...': " + line[:200]); sys.exit()
if any(ord(c) < 32 for c in line):
    print("a control character in: " + line[:200]); sys.exit()
if len(line) > 1100:
    print("the error is %d bytes long" % len(line)); sys.exit()
names = [f for f in os.listdir(sys.argv[2]) if f not in ("command", "found", "expect")]
# A refused sweep names the --vary option instead of a file.
if not any(f in line for f in names) and "--vary" not in line:
    print("the error names none of " + ", ".join(names) + ": " + line[:200])
PY
)
  fi
  if [ -z "$msg" ] && [ "$rc" = 0 ] && grep -q -- "--json" "$dir/command"; then
    "$py" -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp/$name.out" 2>/dev/null ||
      msg="exit 0 but stdout is not valid JSON"
  fi
  if [ -n "$msg" ]; then
    echo "FAIL: $name ($(printf '%.1f' "$secs") s): $msg"
    head -c 300 "$tmp/$name.err" | sed 's/^/  stderr: /'
    fail=1
  else
    echo "ok: $name exit $rc in $(printf '%.1f' "$secs") s (${cpu_per_core} s CPU per core): $(tail -n 1 "$tmp/$name.err" | head -c 160)"
  fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no findings in $findings"; exit 1; }
echo "$n findings run"
exit $fail
