#!/usr/bin/env bash
# Regenerate the "Learned model" section of docs/accuracy.md: every split trains a bundle without the
# held-out GPU or family, evaluates it on the held-out rows, and reports it beside the analytical model.
#
#   scripts/eval_learned.sh [STEP...]        STEP: kernels deepbench kfam kapp blend netk netfam jetson networks
#                                             torchvision tvfam energy memory policy default doc (default: all, in that order)
# Environment: PERFPRED (binary, default build/src/cli/perfpred), DATA (default cache/datasets, made by
# tools/convert_datasets.py), OUT (default cache/eval/learned), ROUNDS (boosting rounds, default 150),
# THREADS (default 2), MAX_DEPTH (default 6), NET_FRACTION (share of network rows a fold trains on, default 1),
# EVAL_NET_FRACTION (share of the held-out network rows scored, default 1: every row of the held-out GPU or family),
# DEFAULT_MAX_DEPTH (tree depth of the shipped bundle, default MAX_DEPTH), REUSE (1: evaluate fold bundles already
# in $OUT/bundles instead of retraining them), MIN_APP_ROWS (kapp: the fewest DeepBench rows an application needs
# to be held out, default 100), KERNEL_BLEND (the kernel bundles' --kernel-blend; default: perfpred train's).
# Results: $OUT/*.json (one `perfpred eval --json` per split), the default bundle models/perfpred-default.json,
# and docs/accuracy.md between the "learned model" markers.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PERFPRED=${PERFPRED:-build/src/cli/perfpred}
DATA=${DATA:-cache/datasets}
OUT=${OUT:-cache/eval/learned}
ROUNDS=${ROUNDS:-150}
THREADS=${THREADS:-2}
MAX_DEPTH=${MAX_DEPTH:-6}
NET_FRACTION=${NET_FRACTION:-1}  # deterministic share of network rows the folds train on (speed)
# Scoring is cheap (no training), and a sampled held-out group is a noisy one (MNASNet held out by family was 8
# rows at 0.2): every held-out row is scored unless this says otherwise.
EVAL_NET_FRACTION=${EVAL_NET_FRACTION:-1}
# Whole-network bundles: host overhead only (KERNEL_BASE=0, default), or with the NeuSight kernel boosters
# (KERNEL_BASE=1). The NeuSight boosters made whole networks worse on held-out desktop GPUs (see the notes).
KERNEL_BASE=${KERNEL_BASE:-0}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}  # no OpenMP spinning on a shared machine
mkdir -p "$OUT/bundles"
DEFAULT_MAX_DEPTH=${DEFAULT_MAX_DEPTH:-$MAX_DEPTH}
REUSE=${REUSE:-0}  # 1: a fold whose bundle is already in $OUT/bundles is evaluated, not retrained
MIN_APP_ROWS=${MIN_APP_ROWS:-100}
STEPS=${*:-kernels deepbench kfam kapp blend netk netfam jetson networks torchvision tvfam energy memory policy default doc}
KB=()
[ -n "${KERNEL_BLEND:-}" ] && KB=(--kernel-blend "$KERNEL_BLEND")
[ -x "$PERFPRED" ] || { echo "eval_learned: no perfpred binary at $PERFPRED (set PERFPRED)"; exit 2; }

NS=()
for f in "$DATA"/neusight-gpu-kernels/*.csv; do NS+=(--data "$f"); done
DB=()
for f in "$DATA"/deepbench-kernels/*.csv; do DB+=(--data "$f"); done
NET_GPUS=(--holdout-gpu gtx-1080ti --holdout-gpu titan-x-pascal --holdout-gpu titan-xp)  # the network GPUs among the kernel rows
HELP=(--data "$DATA/help-nas-latency/nasbench201.csv" --data "$DATA/help-nas-latency/fbnet.csv")
TV=(--data "$DATA/pytorch-gpu-benchmark-ryujaehun/torchvision.csv")
ALL="$OUT/bundles/neusight-all.json"
BASE=()
[ "$KERNEL_BASE" = 1 ] && BASE=(--base "$ALL")
log() { echo "eval_learned: $*" >&2; }
timed() {  # timed NAME CMD...: run, record wall, user and system CPU seconds in $OUT/NAME.time.json (microseconds)
  local name=$1; shift
  /usr/bin/python3 "$ROOT/tools/proc_time.py" "$OUT/$name.time.json" "$@"
}
need_all() {
  if [ ! -f "$ALL" ]; then
    log "training the kernel bundle on all NeuSight kernels"
    timed train-neusight-all "$PERFPRED" train "${NS[@]}" "${KB[@]}" --out "$ALL" --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json \
      >"$OUT/train-neusight-all.json"
  fi
}

for step in $STEPS; do
  case $step in
  kernels)  # leave-one-GPU-out over NeuSight's five GPUs (the A100 fold holds out both A100 cards)
    for fold in p4 p100-pcie-16gb t4 v100-pcie-32gb a100; do
      if [ $fold = a100 ]; then H=(--holdout-gpu a100-pcie-40gb --holdout-gpu a100-pcie-80gb); else H=(--holdout-gpu $fold); fi
      log "kernels: hold out $fold"
      [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/kernels-$fold.json" ] ||
      timed "train-kernels-$fold" "$PERFPRED" train "${NS[@]}" "${H[@]}" "${KB[@]}" --out "$OUT/bundles/kernels-$fold.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-kernels-$fold.json"
      "$PERFPRED" eval --model "$OUT/bundles/kernels-$fold.json" "${NS[@]}" "${H[@]}" --rows "$OUT/kernels-$fold.rows.csv" \
        --json >"$OUT/kernels-$fold.json"
    done ;;
  deepbench)  # DeepBench (cuDNN/cuBLAS; forward, backward, FP16, INT8) leave-one-GPU-out, trained on DeepBench only
    for g in gtx-1080ti titan-x-pascal titan-xp spec:titan-x-maxwell spec:m40 p100-pcie-16gb v100-sxm2-16gb t4; do
      n=${g#spec:}
      log "deepbench: hold out $g"
      [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/deepbench-$n.json" ] ||
      timed "train-deepbench-$n" "$PERFPRED" train "${DB[@]}" "${KB[@]}" --holdout-gpu $g --out "$OUT/bundles/deepbench-$n.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-deepbench-$n.json"
      "$PERFPRED" eval --model "$OUT/bundles/deepbench-$n.json" "${DB[@]}" --holdout-gpu $g --rows "$OUT/deepbench-$n.rows.csv" \
        --json >"$OUT/deepbench-$n.json"
    done ;;
  networks)  # HELP: leave-one-GPU-out and leave-family-out (host overhead refitted; kernel boosters with KERNEL_BASE=1)
    [ "$KERNEL_BASE" = 1 ] && need_all
    for g in gtx-1080ti rtx-2080ti titan-x-pascal titan-xp; do
      log "networks: hold out $g"
      "$PERFPRED" train --network-fraction "$NET_FRACTION" "${BASE[@]}" "${HELP[@]}" --holdout-gpu $g --out "$OUT/bundles/help-$g.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-help-$g.json"
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/help-$g.json" "${HELP[@]}" --holdout-gpu $g \
        --rows "$OUT/help-gpu-$g.rows.csv" --json >"$OUT/help-gpu-$g.json"
    done
    for fam in nasbench201 fbnet; do
      log "networks: hold out family $fam"
      "$PERFPRED" train --network-fraction "$NET_FRACTION" "${BASE[@]}" "${HELP[@]}" --holdout-family $fam --out "$OUT/bundles/help-no-$fam.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-help-no-$fam.json"
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/help-no-$fam.json" "${HELP[@]}" --holdout-family $fam \
        --rows "$OUT/help-family-$fam.rows.csv" --json >"$OUT/help-family-$fam.json"
    done ;;
  torchvision)  # ryujaehun torchvision, inference and training, leave-one-GPU-out (host overhead from HELP + the rest)
    [ "$KERNEL_BASE" = 1 ] && need_all
    for g in gtx-1080ti rtx-2080ti titan-v titan-xp; do
      log "torchvision: hold out $g"
      "$PERFPRED" train --network-fraction "$NET_FRACTION" "${BASE[@]}" "${HELP[@]}" "${TV[@]}" --holdout-gpu $g --out "$OUT/bundles/tv-$g.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-tv-$g.json"
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/tv-$g.json" "${TV[@]}" --holdout-gpu $g \
        --rows "$OUT/tv-$g.rows.csv" --json >"$OUT/tv-$g.json"
    done ;;
  tvfam)  # ryujaehun torchvision, leave-one-architecture-family-out (every GPU; host overhead from HELP + the rest):
    # the converted set names every network "torchvision", so tools/tv_families.py writes a copy whose model_family
    # is the architecture (resnet, vgg, densenet, ...) for --holdout-family.
    [ "$KERNEL_BASE" = 1 ] && need_all
    TVF="$OUT/tv-families/torchvision.csv"
    /usr/bin/python3 "$ROOT/tools/tv_families.py" "$DATA/pytorch-gpu-benchmark-ryujaehun/torchvision.csv" "$TVF" >&2
    for fam in resnet wide_resnet resnext vgg densenet mobilenet mnasnet shufflenet squeezenet other; do
      grep -q ",$fam," "$TVF" || continue
      log "torchvision: hold out family $fam"
      "$PERFPRED" train --network-fraction "$NET_FRACTION" "${BASE[@]}" "${HELP[@]}" --data "$TVF" --holdout-family $fam \
        --out "$OUT/bundles/tvfam-$fam.json" --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json \
        >"$OUT/train-tvfam-$fam.json"
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/tvfam-$fam.json" --data "$TVF" \
        --holdout-family $fam --rows "$OUT/tvfam-$fam.rows.csv" --json >"$OUT/tvfam-$fam.json"
    done ;;
  jetson)  # TensorRT on Jetson boards (evaluation only): the shipped recipe's kernel boosters (netk: NeuSight +
    # DeepBench, no network GPU, no Jetson) on an unseen device class and runtime. The Jetson Nano's iCAS ConvNets
    # (FP32), MLPerf Inference ResNet-50 INT8 (AGX Xavier, Xavier NX, AGX Orin, Orin NX) and trtutils' YOLOv8 FP16
    # (Orin and Xavier NX boards, and an RTX 3090 no kernel set has).
    [ -f "$OUT/bundles/netk.json" ] || { echo "eval_learned: no $OUT/bundles/netk.json (run the netk step first)"; exit 2; }
    "$PERFPRED" eval --model "$OUT/bundles/netk.json" --data "$DATA/jetson-nano-trt-energy-icas/icas_convnets.csv" \
      --rows "$OUT/jetson-latency.rows.csv" --json >"$OUT/jetson-latency.json"
    for set in "mlperf:mlperf-inference-jetson/mlperf_jetson.csv" "yolo:trtutils-yolo-jetson/trtutils_yolo.csv"; do
      rm -f "$OUT/jetson-latency-${set%%:*}.json" "$OUT/jetson-latency-${set%%:*}.rows.csv"
      [ -f "$DATA/${set#*:}" ] || { log "jetson: no $DATA/${set#*:}, skipped"; continue; }
      "$PERFPRED" eval --model "$OUT/bundles/netk.json" --data "$DATA/${set#*:}" \
        --rows "$OUT/jetson-latency-${set%%:*}.rows.csv" --json >"$OUT/jetson-latency-${set%%:*}.json"
    done ;;
  energy)  # Zeus (Apache-2.0) training energy: leave-one-GPU-out, every power limit (rows predicted under their power_limit_w)
    sed -n 2p "$DATA/zeus-gpu-power-traces/zeus_power.csv" | grep -q power_limit_w || {
      echo "eval_learned: $DATA/zeus-gpu-power-traces/zeus_power.csv has no power_limit_w (reconvert: tools/convert_datasets.py zeus-gpu-power-traces)"; exit 2; }
    for g in v100-pcie-32gb p100-pcie-16gb a40 spec:quadro-rtx-6000; do
      n=${g#spec:}
      "$PERFPRED" train --target energy --data "$DATA/zeus-gpu-power-traces/zeus_power.csv" --holdout-gpu $g \
        --out "$OUT/bundles/energy-$n.json" --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-energy-$n.json" || continue
      "$PERFPRED" eval --model "$OUT/bundles/energy-$n.json" --data "$DATA/zeus-gpu-power-traces/zeus_power.csv" \
        --holdout-gpu $g --json >"$OUT/energy-$n.json" || true
    done ;;
  memory)  # GPUMemNet (none-stated licence: evaluation only) A100 training memory, leave-family-out
    M=(--data "$DATA/gpumemnet-a100-memory/mlp.csv" --data "$DATA/gpumemnet-a100-memory/timm.csv")
    for fam in gpumemnet-mlp torchvision; do
      "$PERFPRED" train --target memory "${M[@]}" --holdout-family $fam --allow-unlicensed-eval \
        --out "$OUT/bundles/memory-no-$fam.json" --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-memory-no-$fam.json" || continue
      "$PERFPRED" eval --model "$OUT/bundles/memory-no-$fam.json" "${M[@]}" --holdout-family $fam --json \
        >"$OUT/memory-$fam.json" || true
    done ;;
  kfam)  # leave one op family out (its kernels fall to the fallback booster), NeuSight and DeepBench separately
    for fam in conv gemm elementwise norm softmax; do
      log "kfam: NeuSight without $fam"
      [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/kfam-ns-$fam.json" ] ||
      timed "train-kfam-ns-$fam" "$PERFPRED" train "${NS[@]}" "${KB[@]}" --holdout-family $fam --out "$OUT/bundles/kfam-ns-$fam.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-kfam-ns-$fam.json"
      "$PERFPRED" eval --model "$OUT/bundles/kfam-ns-$fam.json" "${NS[@]}" --holdout-family $fam \
        --rows "$OUT/kfam-ns-$fam.rows.csv" --json >"$OUT/kfam-ns-$fam.json"
    done
    for fam in conv gemm rnn; do
      log "kfam: DeepBench without $fam"
      [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/kfam-db-$fam.json" ] ||
      timed "train-kfam-db-$fam" "$PERFPRED" train "${DB[@]}" "${KB[@]}" --holdout-family $fam --out "$OUT/bundles/kfam-db-$fam.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-kfam-db-$fam.json"
      "$PERFPRED" eval --model "$OUT/bundles/kfam-db-$fam.json" "${DB[@]}" --holdout-family $fam \
        --rows "$OUT/kfam-db-$fam.rows.csv" --json >"$OUT/kfam-db-$fam.json"
    done ;;
  kapp)  # DeepBench leave-one-application-out: the bundle trained without one application's kernels (every GPU;
    # the converter gives each shape one application, its row's model_family), evaluated on that application's rows.
    # The op families stay trained, so this asks whether the boosters carry over to shapes of an unseen application.
    apps=$(/usr/bin/python3 - "$MIN_APP_ROWS" "$DATA"/deepbench-kernels/*.csv <<'EOF2'
import collections, csv, sys
n = collections.Counter()
for p in sys.argv[2:]:
    for r in csv.DictReader(l for l in open(p) if not l.startswith("#")):
        if r.get("status") == "ok" and r.get("model_family"):
            n[r["model_family"]] += 1
print(" ".join(a for a, c in sorted(n.items()) if c >= int(sys.argv[1])))
EOF2
)
    [ -n "$apps" ] || { echo "eval_learned: no DeepBench row names its application (rerun tools/convert_datasets.py deepbench-kernels)"; exit 2; }
    rm -f "$OUT"/kapp-db-*.json "$OUT"/kapp-db-*.rows.csv  # an application under MIN_APP_ROWS leaves no stale fold
    for app in $apps; do
      log "kapp: DeepBench without $app"
      [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/kapp-db-$app.json" ] ||
      timed "train-kapp-db-$app" "$PERFPRED" train "${DB[@]}" "${KB[@]}" --holdout-family "$app" --out "$OUT/bundles/kapp-db-$app.json" \
        --rounds "$ROUNDS" --max-depth "$MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-kapp-db-$app.json"
      "$PERFPRED" eval --model "$OUT/bundles/kapp-db-$app.json" "${DB[@]}" --holdout-family "$app" \
        --rows "$OUT/kapp-db-$app.rows.csv" --json >"$OUT/kapp-db-$app.json"
    done ;;
  blend)  # the evidence for the kernel bundles' blend weight: the NeuSight, DeepBench and DeepBench-application folds
    # again with the boosters alone (--kernel-blend 1, into $OUT/blend1), each held-out row's error recomputed for
    # blends with the analytical model (tools/kernel_blend_curve.py)
    OUT="$OUT/blend1" KERNEL_BLEND=1 "$ROOT/scripts/eval_learned.sh" kernels deepbench kapp
    /usr/bin/python3 "$ROOT/tools/kernel_blend_curve.py" "$OUT/blend1" --json "$OUT/blend-curve.json" >"$OUT/blend-curve.md" ;;
  netk)  # the shipped recipe's kernel boosters (NeuSight + DeepBench) under whole networks, trained without the
    # network GPUs: every HELP, torchvision and Jetson row is held out by GPU and by family (no network trains a kernel booster)
    log "netk: kernel boosters without the network GPUs"
    [ "$REUSE" = 1 ] && [ -f "$OUT/bundles/netk.json" ] ||
    timed train-netk "$PERFPRED" train "${NS[@]}" "${DB[@]}" "${NET_GPUS[@]}" "${KB[@]}" --out "$OUT/bundles/netk.json" \
      --rounds "$ROUNDS" --max-depth "$DEFAULT_MAX_DEPTH" --threads "$THREADS" --json >"$OUT/train-netk.json"
    "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/netk.json" "${HELP[@]}" \
      --rows "$OUT/netk-help.rows.csv" --json >"$OUT/netk-help.json"
    "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/netk.json" "${TV[@]}" \
      --rows "$OUT/netk-tv.rows.csv" --json >"$OUT/netk-tv.json"
    # the network sets added later (no network row trains anything): HELP's OFA-MobileNetV3, NeuSight's
    # transformers, Lambda's NGC ResNet-50 training runs (licence none stated: evaluation only). Held out by family,
    # but some of their GPUs gave the boosters kernel rows (NeuSight's A100 PCIe 40 GB, P100, P4, T4, V100 PCIe;
    # DeepBench's V100 SXM2, T4, Titan Xp): named netx-*, so the policy (which reads netk-* as GPU- and
    # family-held-out evidence) does not take them.
    for set in "ofa:help-nas-latency/ofa_mbv3.csv" "tx:neusight-transformers/labels.csv" "lambda:lambda-dl-benchmark/lambda_train.csv"; do
      [ -f "$DATA/${set#*:}" ] || { log "netk: no $DATA/${set#*:}, skipped"; continue; }
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/netk.json" --data "$DATA/${set#*:}" \
        --rows "$OUT/netx-${set%%:*}.rows.csv" --json >"$OUT/netx-${set%%:*}.json"
    done ;;
  netfam)  # per op family under whole networks: netk with one family's booster only (every other kernel, the
    # fallback's included, keeps the analytical time), on the HELP and torchvision rows netk evaluates
    [ -f "$OUT/bundles/netk.json" ] || { echo "eval_learned: no $OUT/bundles/netk.json (run the netk step first)"; exit 2; }
    for fam in conv gemm norm elementwise softmax; do
      log "netfam: netk with the $fam booster only"
      /usr/bin/python3 - "$OUT/bundles/netk.json" "$fam" "$OUT/bundles/netfam-$fam.json" <<'EOF2'
import json, sys
b = json.load(open(sys.argv[1]))
b["kernel_models"] = {k: v for k, v in b["kernel_models"].items() if k == sys.argv[2]}
b["name"] = b.get("name", "netk") + "-" + sys.argv[2] + "-only"
json.dump(b, open(sys.argv[3], "w"))
EOF2
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/netfam-$fam.json" "${HELP[@]}" \
        --rows "$OUT/netfam-$fam-help.rows.csv" --json >"$OUT/netfam-$fam-help.json"
      "$PERFPRED" eval --network-fraction "$EVAL_NET_FRACTION" --model "$OUT/bundles/netfam-$fam.json" "${TV[@]}" \
        --rows "$OUT/netfam-$fam-tv.rows.csv" --json >"$OUT/netfam-$fam-tv.json"
    done ;;
  policy)  # which parts the shipped bundle predicts by default, from the held-out rows above
    /usr/bin/python3 "$ROOT/scripts/eval_learned_policy.py" "$OUT" "$OUT/policy.json" ;;
  default)  # the shipped bundle: NeuSight (MIT) + DeepBench (Apache-2.0) kernel boosters and the policy
    [ -f "$OUT/policy.json" ] || { echo "eval_learned: no $OUT/policy.json (run the policy step first)"; exit 2; }
    timed train-default "$PERFPRED" train "${NS[@]}" "${DB[@]}" "${KB[@]}" --out models/perfpred-default.json --name perfpred-default \
      --policy "$OUT/policy.json" --rounds "$ROUNDS" --max-depth "$DEFAULT_MAX_DEPTH" --threads "$THREADS" --json \
      >"$OUT/train-default.json"
    for i in 1 2 3; do  # `predict` uses the shipped bundle by default
      timed "predict-resnet50-$i" env PERFPRED_MODEL_DIR=models "$PERFPRED" predict models/zoo/resnet50.onnx \
        --gpu a100-pcie-40gb --json >"$OUT/predict-resnet50.json"
    done
    timed predict-resnet50-analytical "$PERFPRED" predict models/zoo/resnet50.onnx --gpu a100-pcie-40gb --analytical \
      --json >/dev/null
    # a sweep with the bundle: 71 x 26 = 1846 hypothetical A100s (points/s on stderr, kept in $OUT/sweep-resnet50.log)
    timed sweep-resnet50 env PERFPRED_MODEL_DIR=models "$PERFPRED" sweep models/zoo/resnet50.onnx --base-gpu a100-pcie-40gb \
      --vary sm_count=20:160:2 --vary mem_bandwidth_gbps=500:3000:100 --bundle default --csv \
      >"$OUT/sweep-resnet50.csv" 2>"$OUT/sweep-resnet50.log" ;;
  doc)
    NET_FRACTION="$NET_FRACTION" EVAL_NET_FRACTION="$EVAL_NET_FRACTION" MAX_DEPTH="$MAX_DEPTH" \
      /usr/bin/python3 "$ROOT/scripts/eval_learned_doc.py" "$OUT" docs/accuracy.md ;;
  *) echo "eval_learned: unknown step $step"; exit 2 ;;
  esac
done
