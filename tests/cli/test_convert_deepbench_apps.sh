#!/usr/bin/env bash
# tools/convert_datasets.py deepbench-kernels: every kernel row names the application its shape comes from
# (model_family, for leave-one-application-out splits), from DeepBench's kernel lists and its result sheets' own
# labels; the application is a function of the shape, so no split trains on a held-out shape from another GPU.
# Usage: bash test_convert_deepbench_apps.sh PERFPRED_BINARY REPO_ROOT. Exit 77 (skip) without ../shared/datasets
# or Debian's python3 with torch and numpy.
set -euo pipefail
bin="${1:?usage: $0 PERFPRED_BINARY REPO_ROOT}"
repo="${2:?usage: $0 PERFPRED_BINARY REPO_ROOT}"
shared="$repo/../shared/datasets"
py=/usr/bin/python3
if [[ ! -d "$shared/deepbench-kernels" ]]; then echo "skip: $shared/deepbench-kernels not found"; exit 77; fi
if [[ ! -x "$py" ]] || ! "$py" -c "import torch, numpy" 2>/dev/null; then
  echo "skip: /usr/bin/python3 with torch and numpy not available"; exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" "$repo/tools/convert_datasets.py" deepbench-kernels --out "$tmp/out" --shared "$shared" 2>"$tmp/err" || {
  echo "FAIL: conversion exited $?"; tail -5 "$tmp/err"; exit 1; }
d="$tmp/out/datasets/deepbench-kernels"
"$py" - "$d" <<'PY' || exit 1
import collections, csv, os, sys
d = sys.argv[1]
fails = []
per_app = collections.Counter()
for name in ("gemm", "conv", "rnn"):
    rows = list(csv.DictReader(l for l in open(os.path.join(d, name + ".csv")) if not l.startswith("#")))
    shape_apps = collections.defaultdict(set)
    for r in rows:
        shape_apps[(r["op"], r["attrs"])].add(r["model_family"])
        per_app[r["model_family"]] += 1
        if r["model_family"] and f"app={r['model_family']}" not in r["notes"]:
            fails.append(f"{name} {r['id']}: notes do not name app={r['model_family']}")
    split = {k: v for k, v in shape_apps.items() if len(v) > 1}
    if split:
        fails.append(f"{name}: {len(split)} shapes with more than one application, e.g. {next(iter(split.items()))}")
    first = {r["id"]: r["model_family"] for r in rows}
    want = {"gemm": ("gemm-0", "deepspeech"), "conv": ("conv-0-forward", "deepspeech"), "rnn": ("rnn-0-forward", "machine-translation")}[name]
    if first.get(want[0]) != want[1]:
        fails.append(f"{name} {want[0]}: model_family {first.get(want[0])!r}, want {want[1]!r} (DeepBench's kernel list)")
unknown = per_app.pop("", 0)
if unknown > 5:
    fails.append(f"{unknown} rows name no application")
want = {"deepspeech", "face-recognition", "language-modelling", "machine-translation", "ocr", "resnet", "speaker-id", "vision"}
if set(per_app) != want:
    fails.append(f"applications {sorted(per_app)}, want {sorted(want)}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
# the loader reads the column: --holdout-family takes an application and names it among the families
"$bin" eval --model default --data "$d/gemm.csv" --holdout-family speaker-id --rows "$tmp/rows.csv" --json >"$tmp/eval.json"
"$py" - "$tmp/rows.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["model_family"] == "speaker-id" and r["family"] == "gemm" for r in rows), rows[:2]
PY
echo "ok"
