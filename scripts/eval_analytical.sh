#!/usr/bin/env bash
# Regenerate the "Analytical model" table of docs/accuracy.md:
#   scripts/eval_analytical.sh [--per-group N]
# 1. converts ../shared/datasets into cache/datasets (skipped when unchanged), 2. builds perfpred if
# needed, 3. runs tools/eval_analytical.py (perfpred predict --json per sampled row, analytical model
# only) and prints the markdown table; rows and table are also written to cache/eval/analytical.{json,md};
# 4. refits predict's latency ranges on those rows (tools/fit_intervals.py: models/latency-intervals.json and
# the "Latency ranges" table of docs/accuracy.md), with the ranges of predictions made with --host-factor
# fitted on the rows tools/eval_host_factor.py predicts at each held-out machine's fitted factor (it also
# rewrites the "Host speed" table), and those of predictions made with --gpu-factor on the rows
# tools/eval_two_factor.py predicts at each machine's fitted host and GPU factors.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PERFPRED_BUILD_DIR:-$root/build}
bin=$build/src/cli/perfpred
[ -d "$root/../shared/datasets" ] || { echo "eval_analytical: ../shared/datasets not found" >&2; exit 77; }
/usr/bin/python3 "$root/tools/convert_datasets.py" --all --out "$root/cache" >&2
[ -x "$bin" ] || "$root/scripts/build.sh" >&2
/usr/bin/python3 "$root/tools/eval_analytical.py" --perfpred "$bin" --per-group 20 \
  --out "$root/cache/eval/analytical" --doc "$root/docs/accuracy.md" --markdown "$@"
/usr/bin/python3 "$root/tools/eval_host_factor.py" --perfpred "$bin" --shots 2 --doc "$root/docs/accuracy.md" \
  --dump "$root/cache/eval/host-factor-rows.json"
/usr/bin/python3 "$root/tools/eval_two_factor.py" --perfpred "$bin" --jobs 2 --dump "$root/cache/eval/two-factor-rows.json" >&2
# predict's latency ranges follow the model: refitted on the held-out rows just written (models/latency-intervals.json).
exec /usr/bin/python3 "$root/tools/fit_intervals.py" --rows "$root/cache/eval/analytical.json" \
  --calibrated-rows "$root/cache/eval/host-factor-rows.json" \
  --gpu-calibrated-rows "$root/cache/eval/two-factor-rows.json" \
  --out "$root/models/latency-intervals.json" --doc "$root/docs/accuracy.md"
