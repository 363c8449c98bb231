#!/usr/bin/env bash
# perfpred diff: percent changes, layer attribution, --fail-over exit codes.
set -u
bin=$1
root=$2
old=$root/models/zoo/resnet18.onnx
new=$root/models/zoo/resnet50.onnx
[ -f "$old" ] && [ -f "$new" ] || { echo "skip: zoo models not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Same model: zero change, every layer matched by name, passes any --fail-over.
"$bin" diff "$old" "$old" --gpu t4 --fail-over 0 --json >"$tmp/same" || fail "same model diff failed"
/usr/bin/python3 - "$tmp/same" <<'PY' || fail "same-model diff content"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["change_pct"]["latency_ms"] == 0 and j["change_pct"]["peak_memory_bytes"] == 0
m = j["layer_matching"]
assert m["added"] == 0 and m["removed"] == 0 and m["by_position"] == 0 and m["by_name"] > 0
assert j["top_changes"] == [] and j["failed"] is False
PY

# resnet18 -> resnet50: slower; the top layers explain it; --fail-over 10 fails (exit 1).
"$bin" diff "$old" "$new" --gpu t4 --batch 8 --fail-over 10 >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "growth over 10% should exit 1, got $rc"
grep -q "FAIL: latency" "$tmp/out" || fail "no FAIL line: $(cat "$tmp/out")"
grep -q "Layers that account" "$tmp/out" || fail "no layer attribution"
# The reverse direction shrinks: passes.
"$bin" diff "$new" "$old" --gpu t4 --batch 8 --fail-over 10 >"$tmp/out" 2>&1 || fail "shrinking model failed --fail-over"
grep -q "PASS" "$tmp/out" || fail "no PASS line"
# Without --fail-over a diff never fails.
"$bin" diff "$old" "$new" --gpu t4 >/dev/null || fail "plain diff exited non-zero"

"$bin" diff "$old" "$new" --gpu t4 --fail-over -1 >/dev/null 2>&1; [ $? -eq 2 ] || fail "negative --fail-over"
"$bin" diff "$old" "$tmp/nope.onnx" --gpu t4 >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing model"
"$bin" diff "$old" "$new" --gpu nope >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown gpu"
echo "ok"
