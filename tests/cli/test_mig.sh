#!/usr/bin/env bash
# perfpred mig: every profile listed, a recommendation with a reason, SLO and --max-batch, exit codes.
set -u
bin=$1
root=$2
model=$root/models/zoo/resnet18.onnx
[ -f "$model" ] || { echo "skip: $model not present"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" mig "$model" --gpu a100-sxm4-40gb >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] || fail "mig a100 exited $rc: $(cat "$tmp/err")"
for p in 1g.5gb 1g.10gb 2g.10gb 3g.20gb 4g.20gb 7g.40gb "whole GPU" "Recommendation:"; do
  grep -q -- "$p" "$tmp/out" || fail "mig output lacks '$p'"
done
grep -q "smallest profile that fits" "$tmp/out" || fail "no reason given"

# JSON: well-formed, every profile predicted, the recommendation is eligible and nothing smaller is.
"$bin" mig "$model" --gpu a100-sxm4-80gb --slo-ms 2 --json >"$tmp/j" || true
/usr/bin/python3 - "$tmp/j" <<'PY' || fail "mig --json content"
import json, sys
j = json.load(open(sys.argv[1]))
profs = j["profiles"]
assert len(profs) >= 6, len(profs)
names = [p["profile"] for p in profs]
assert "4g.40gb" in names and "7g.80gb" in names, names
for p in profs:
    assert p["prediction"]["latency_ms"] > 0
    assert p["eligible"] == (p["fits_memory"] and p["meets_slo"])
    assert p["meets_slo"] == (p["prediction"]["latency_ms"] <= 2)
rec = j["recommended"]
if rec is not None:
    i = names.index(rec)
    assert profs[i]["eligible"]
    assert not any(p["eligible"] for p in profs[:i]), "a smaller eligible profile exists"
PY

# An SLO nobody meets: exit 1 with a clear line.
"$bin" mig "$model" --gpu a30 --slo-ms 0.000001 >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "impossible SLO exited $rc"
grep -q "No MIG profile" "$tmp/out" || fail "no explanation for an impossible SLO"

# --max-batch: a column per profile, and the search respects the SLO.
"$bin" mig "$model" --gpu a30 --slo-ms 50 --max-batch --max-batch-limit 1024 --json >"$tmp/mb" || fail "max-batch run"
/usr/bin/python3 - "$tmp/mb" <<'PY' || fail "max-batch content"
import json, sys
j = json.load(open(sys.argv[1]))
prev = 0
for p in j["profiles"]:
    if p["profile"].endswith("+me"):
        continue
    mb = p["max_batch"]
    assert mb is not None and mb >= 1, p
    assert p["max_batch_prediction"]["latency_ms"] <= 50
    assert mb >= prev, (p["profile"], mb, prev)  # larger slices sustain at least as much
    prev = mb
PY

# Bad input: exit 2 with one line.
for args in "--gpu t4" "--gpu no-such-gpu" "--gpu a100-sxm4-40gb --slo-ms 0" "--gpu a100-sxm4-40gb --slo-ms -1" \
            "--gpu a100-sxm4-40gb --memory-headroom 1.5" "--gpu a100-sxm4-40gb --precision fp12"; do
  # shellcheck disable=SC2086
  "$bin" mig "$model" $args >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc -eq 2 ] || fail "mig $args exited $rc"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "mig $args: expected one error line, got: $(cat "$tmp/err")"
done
grep -q "a100-sxm4-40gb" <("$bin" mig "$model" --gpu t4 2>&1) || fail "t4 error does not name MIG-capable devices"
"$bin" mig "$tmp/missing.onnx" --gpu a30 >/dev/null 2>&1; [ $? -eq 2 ] || fail "missing model not exit 2"
echo "ok"
