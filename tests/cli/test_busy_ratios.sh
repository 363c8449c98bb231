#!/usr/bin/env bash
# A profile's kernel rows as eval and tools/busy_ratios.py read them (data/measured/h200-harness, shipped with the
# repository): `perfpred eval --rows` labels a convolution with CUPTI's kernel time (cupti_busy_ms in its notes)
# and a recurrent row with its event time; the conv rows' GEMM view is the forward's whatever the row carries (the
# ResNet stem's data gradient is not priced at tens of milliseconds); busy_ratios prints one line per conv phase and
# precision. Usage: bash test_busy_ratios.sh PERFPRED_BINARY REPO_ROOT   (exit 0 pass, else fail)
set -u
BIN=${1:?perfpred binary}
ROOT=${2:?repository root}
PY=/usr/bin/python3
DATA="$ROOT/data/measured/h200-harness/kernels.csv"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$BIN" -q eval --model default --data "$DATA" --rows "$TMP/rows.csv" >"$TMP/log" 2>&1 ||
  { echo "FAIL: perfpred eval"; cat "$TMP/log"; exit 1; }
"$PY" - "$DATA" "$TMP/rows.csv" <<'EOF2' || exit 1
import csv, re, sys
rows = {r["id"]: r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))}
evaluated = {r["id"]: r for r in csv.DictReader(open(sys.argv[2]))}
fail = False
def check(cond, msg):
    global fail
    if not cond:
        print("FAIL:", msg)
        fail = True
conv = rnn = 0
for rid, e in evaluated.items():
    r = rows[rid]
    busy = re.search(r"cupti_busy_ms=([0-9.eE+-]+)", r["notes"])
    measured = float(e["measured"])
    if r["op_family"] == "conv" and busy:
        conv += 1
        check(abs(measured - float(busy.group(1))) <= 1e-9 * max(1.0, measured), f"{rid}: measured {measured}, not CUPTI's {busy.group(1)}")
    if r["op_family"] == "rnn":
        rnn += 1
        check(abs(measured - float(r["time_ms"])) <= 1e-9 * max(1.0, measured), f"{rid}: recurrent row measured {measured}, not its time_ms {r['time_ms']}")
    if r["op_family"] == "conv" and "in_channels=3;" in r["attrs"] and r["phase"] != "forward":
        check(float(e["analytical"]) < 5.0, f"{rid}: stem gradient priced at {e['analytical']} ms")
check(conv >= 300, f"only {conv} conv rows with CUPTI times evaluated")
check(rnn >= 4, f"only {rnn} recurrent rows evaluated")
sys.exit(1 if fail else 0)
EOF2
"$PY" "$ROOT/tools/busy_ratios.py" "$DATA" --family conv --perfpred "$BIN" >"$TMP/table" 2>"$TMP/err" ||
  { echo "FAIL: busy_ratios"; cat "$TMP/err"; exit 1; }
lines=$(grep -c '^| conv |' "$TMP/table")
[ "$lines" -eq 7 ] || { echo "FAIL: busy_ratios printed $lines conv lines, want 7 (3 phases x FP16/FP32, INT8 forward)"; cat "$TMP/table"; exit 1; }
"$PY" - "$TMP/table" <<'EOF2' || exit 1
import sys
for line in open(sys.argv[1]):
    if line.startswith("| conv |"):
        median = float(line.split("|")[5])
        if not 0.5 < median < 3:
            print("FAIL: implausible median busy / analytical:", line.strip())
            sys.exit(1)
EOF2
echo "ok: profile rows labelled with CUPTI's time, conv gradients on the forward view, busy_ratios table"
