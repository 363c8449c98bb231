#!/usr/bin/env bash
# The exit codes documented in docs/cli.md: 0 ok, 1 a check failed (or an internal error), 2 bad input
# with one error line. Checked for every subcommand the binary lists, plus the documented cases.
set -u
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect() {  # expect CODE ARGS...: run perfpred ARGS, require exit CODE; for 2, exactly one stderr line
  local want=$1; shift
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
  [ $rc -eq "$want" ] || fail "perfpred $* exited $rc, documented $want: $(head -3 "$tmp/err")"
  if [ "$want" -eq 2 ]; then
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "perfpred $*: expected one error line, got: $(cat "$tmp/err")"
    grep -q "^perfpred: error: " "$tmp/err" || fail "perfpred $*: error line lacks the prefix: $(cat "$tmp/err")"
  fi
}

expect 0 --version
expect 0 --help
expect 2
expect 2 no-such-subcommand
grep -q "is not a command of perfpred (one of: .*predict" "$tmp/err" || fail "an unknown command does not list the commands: $(cat "$tmp/err")"
expect 2 budget run
grep -q "is not a command of perfpred budget (one of: check)" "$tmp/err" || fail "budget run: $(cat "$tmp/err")"
# Option values with a newline are quoted on the one error line (fuzz_cli_strings found both).
expect 2 sweep "$root/models/zoo/resnet18.onnx" --base-gpu t4 --vary $'sm_count=40:160:20\n)'
expect 2 inspect "$root/models/zoo/resnet18.onnx" --input-shape $'in\nut=0,3,224,224'
# A directory where a JSON file belongs is bad input naming it, not an internal error.
mkdir -p "$tmp/dir.json"
expect 2 budget check "$tmp/dir.json"
grep -q "dir.json: is a directory" "$tmp/err" || fail "budget check DIR: $(cat "$tmp/err")"
expect 2 profile --plan "$tmp/dir.json" --backend simulated --gpu t4 --out "$tmp/p"
printf '{"base": "t4", "mem_bandwidth_gbps": 1e400}' >"$tmp/huge.json"
expect 2 devices show "$tmp/huge.json"

# Every subcommand listed by --help: its help exits 0, an unknown option exits 2, and it is documented.
subs=$("$bin" --help | awk 'tolower($0) ~ /^subcommands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$subs" ] || fail "no subcommands listed by --help"
for s in $subs; do
  expect 0 "$s" --help
  expect 2 "$s" --no-such-option
  grep -q "^## \`perfpred $s" "$root/docs/cli.md" || fail "docs/cli.md does not document '$s'"
done
for s in mig select sweep report budget diff; do
  echo "$subs" | grep -qx "$s" || fail "subcommand $s missing from --help"
done

model=$root/models/zoo/lenet5.onnx
if [ -f "$model" ]; then
  # 2: bad input, one clear line.
  expect 2 predict "$tmp/missing.onnx" --gpu t4
  expect 2 predict "$model" --gpu t4 --model "$tmp/dir.json"
  expect 2 select "$model" --devices t4 --objective cost --prices "$tmp/dir.json"
  expect 2 predict "$model" --gpu no-such-gpu
  expect 2 mig "$model" --gpu no-such-gpu
  expect 2 mig "$model" --gpu t4
  expect 2 mig "$model" --gpu a30 --slo-ms 0
  expect 2 mig "$model" --gpu a30 --slo-ms -2
  expect 2 select "$model" --devices t4,no-such-gpu
  expect 2 select "$model" --devices t4 --objective cost
  echo '{"schema_version": 1, "prices_usd_per_hour": {"t4": 0.35}}' >"$tmp/prices.json"
  expect 2 select "$model" --devices t4,l4 --objective cost --prices "$tmp/prices.json"
  expect 2 sweep "$model" --base-gpu t4 --vary no_field=1:2:1
  expect 2 report "$model" --gpu no-such-gpu --out "$tmp/r.html"
  expect 2 diff "$model" "$tmp/missing.onnx" --gpu t4
  echo '{"schema_version": 1, "entries": [' >"$tmp/bad.json"
  expect 2 budget check "$tmp/bad.json"
  expect 2 budget check "$tmp/none.json"
  # 0 and 1: results and failed checks.
  expect 0 predict "$model" --gpu t4
  expect 0 mig "$model" --gpu a30
  expect 2 mig "$model" --gpu "$root/data/examples/hypothetical-gpu.json"
  expect 1 mig "$model" --gpu a30 --slo-ms 0.0000001
  expect 0 select "$model" --devices t4,l4
  expect 1 select "$model" --devices t4,l4 --max-latency-ms 0.0000001
  expect 0 sweep "$model" --base-gpu t4 --vary sm_count=20:40:20 --csv
  expect 0 diff "$model" "$model" --gpu t4 --fail-over 0
  cp "$model" "$tmp/m.onnx"
  printf '{"schema_version": 1, "entries": [{"name": "a", "model": "m.onnx", "gpu": "t4", "limits": {"latency_ms": %s}}]}' 1000 >"$tmp/ok.json"
  expect 0 budget check "$tmp/ok.json"
  printf '{"schema_version": 1, "entries": [{"name": "a", "model": "m.onnx", "gpu": "t4", "limits": {"latency_ms": %s}}]}' 0.0000001 >"$tmp/over.json"
  expect 1 budget check "$tmp/over.json"
else
  echo "note: $model absent; model-based exit codes not checked"
fi
echo "ok"
