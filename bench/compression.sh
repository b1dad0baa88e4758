#!/usr/bin/env bash
# What compressing the uploads buys the quickstart's federation (scenarios/quickstart.yaml: nine
# hospitals on the shipped tiers, weak uplinks included, FedAvg on Fashion-MNIST), codec by codec
# against no compression, over seeds; docs/guide/compression.md. Only the uplink is compressed
# (what the papers compress: the hospitals' updates); downloads cross at full size. Five modes:
#
#   bench/compression.sh [BUILD_DIR] [OUT_DIR] [SEEDS] [JOBS] [ROUNDS] [TARGET]
#       The first table: every codec at two strengths, the quickstart's own protocol (an epoch of
#       local training a round) for 5 rounds (default: build results/compression "1 2 3" 2 5 0.80).
#       Verdicts from it hold "in 5 rounds" only.
#   bench/compression.sh long    [--quick] [--seeds "1 2 3"] [--jobs 2] [--build DIR] [--out DIR]
#   bench/compression.sh plateau [--quick] [...]
#   bench/compression.sh horizon [--quick] [...]
#       The protocols at the claims' horizons (below), 3 seeds each, every arm against none under
#       the same protocol. Each writes OUT/arm=A/seed=S (default OUT: results/compression/MODE,
#       with --quick results/compression/MODE_quick), then OUT/table.md: tables over the seeds with
#       95% Student-t intervals and none − arm paired by seed (analysis/seed_stats.py, CSVs in
#       OUT/stats/), each arm's compression ratio, each run's figures seed by seed
#       (analysis/compression_study.py per-seed), and the verdict table, each verdict stating its
#       horizon (analysis/compression_study.py verdicts); figure OUT/accuracy_vs_time.png
#       (analysis/plot_seeds.py). A run whose summary.json exists and whose args.txt holds the same
#       command is kept, so an interrupted command resumes.
#   bench/compression.sh breakeven RUNS_DIR [RUNS_DIR ...] [--target X] [--hospitals MAX] [--quick]
#                        [--jobs 2] [--build DIR] [--out DIR]
#       Where compression stops paying, from the runs of long, plateau or horizon (below).
#
# --quick: the same pipeline on seeds 1 2 and a few rounds (long 20, plateau 2, horizon 25;
# breakeven: a coarser grid and --hospitals 30), to prove a mode end to end in minutes.
#
# The time rule (each command at most 2 hours on 2 cores). Measured here (AMD EPYC family 25
# model 17 (AVX-512), 2 cores, 2026-11-28, one worker thread a run, under nice -n 15 beside
# another engineer's builds): a round of 5 mini-batches at each of the nine hospitals costs 0.65 s
# of one core with none and 0.66 (topk 1%), 0.71 (topk 0.1%), 0.72 (dgc), 0.77 (sign), 0.80
# (powersgd) with a codec, which really encodes and decodes the nine updates; a round of an epoch
# 19 to 20 s; an evaluation (the global model on the test set and each hospital's test split) 4.0
# to 4.9 s; a run's start 0.9 s. Two runs at once (--jobs 2, one worker each) use both cores.
#
#   long: scenarios/compression/long_protocol.yaml, 5 mini-batches a round, 300 rounds, evaluated
#     every 10. Why: top-k 1% (Stich et al. 2018) and sign with error feedback (Karimireddy et
#     al. 2019) promise convergence after about d/k exchanges, d = 582,026 values: 100 at 1% (sign,
#     which has no k, is held to the same 100); 300 rounds give each hospital 300. Arms: none,
#     topk1pct, topk0.1pct and dgc (Lin et al. 2018 as published, at its defaults: sparsity 99.9%
#     after a 4-round warm-up, momentum correction and masking; beside plain top-k 0.1% with error
#     feedback, its sparsity without the rest), sign, sign512, powersgd (rank 2, Vogels et al.
#     2019). Cost: 317 (none) to 380 (powersgd) core-s a run, 21 runs: about 123 core-min, 61 min
#     on 2 idle cores. Scaled down: the epoch a round (5 mini-batches: 0.7 s of training instead of
#     20 s), so that 300 exchanges fit; evaluations every 10 rounds.
#   plateau: scenarios/quickstart.yaml itself (an epoch a round), 20 rounds, evaluated every round.
#     Why: quantize's and zfp's claims are about the accuracy at the end of training, and the
#     quickstart reaches its plateau in 20 rounds (89.4% at seed 42, docs/tutorial.md); 5-step
#     rounds would need about 1,000 rounds for it (none was at 75.3% after 100, seed 1). Arms:
#     none, quantize8, quantize2, zfp1e-4, zfp1e-3. Cost: 465 to 490 core-s a run, 15 runs: about
#     118 core-min, 59 min on 2 idle cores. Nothing scaled down.
#   horizon: the long protocol for 1,000 rounds, evaluated every 25: top-k 0.1% and DGC's 99.9% at
#     their d/k = 1,000 exchanges. Arms: none, topk0.1pct, dgc. Cost: 812 (none) to 884 core-s a
#     run, 9 runs: about 129 core-min, 65 min on 2 idle cores. long and horizon together would
#     take about 126 min, over the rule, so it is its own command.
#   The --quick smokes took about twice the extrapolated time a run (the other engineer's work held
#   part of the cores): on a machine shared like that, long and plateau take about 2 hours each.
#   Measured on idle cores (same CPU, 2026-11-28, --jobs 2): long 305 to 343 s a run, about 60 min;
#   plateau 418 to 448 s a run, 58 min.
#   breakeven: timing-only replays, 0.11 s of one core for 300 rounds of the nine hospitals, 4.1 s
#     with 306 hospitals, 22 s with 1,006. A protocol's uplink grid and plans (about 1,000 replays)
#     take minutes; the hospitals' axis dominates: long about 15 to 45 min on 2 cores (the end of
#     that range if every plan finds a crossing inside), horizon about 15 to 55 min (--hospitals
#     300 cuts it), plateau minutes. The --quick proof on long --quick's runs: 89 s. Measured:
#     long --hospitals 300 4 min, plateau --hospitals 300 1.3 min.
#
# Where compression stops paying (breakeven). For each RUNS_DIR (a protocol's output) and each of
# its arms and seeds: a timing-only scenario that replays that run's accuracy curve
# (analysis/compression_study.py scenario: its scenario and --set overrides from args.txt,
# training.surrogate its rounds.csv; zfp's accuracy mode becomes its rate mode at the run's own
# bits per value), stopped at TARGET (default: the highest of 0.88, 0.85, 0.80, 0.75, 0.70 that
# none reaches in every seed). Then:
#   - a grid of the weak tier's uplink (platform.hospitals[0].uplink_bps, 1 Mbit/s to 10 Gbit/s,
#     13 points; a `fedgrid sweep` per arm and seed), the time to TARGET at each, for the figure;
#   - the crossing, per codec and seed: fedgrid plan CODEC --against NONE (the none arm's replay
#     of the same seed) --vary 'platform.hospitals[0].uplink_bps=1e6..1e10'
#     --target 'time_to_target_s <= against';
#   - the same over the number of weak hospitals sharing the server's link
#     (platform.hospitals[0].count, 3 to --hospitals MAX, default 1000, at the tier's 20 Mbit/s;
#     --hospitals 0 skips it). The accuracy curves are the nine-hospital federation's: a larger
#     federation is assumed to reach accuracy in the same rounds (not exact; the page says so).
#   - check.csv: each replay at the tier's own uplink against its real run (the same round's
#     simulated time); crossings.md (analysis/compression_study.py crossings: per seed, mean with
#     95% Student-t interval, range); breakeven.png (analysis/plot_breakeven.py).
# Output: OUT/PROTOCOL/target=T/ (OUT: results/compression/breakeven, with --quick
# results/compression/breakeven_quick). Encoding and decoding are charged as compute on the
# sending and receiving hosts (the weak tier's 50 GFLOP/s, the cloud's), as in the real runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# arm -> uplink settings. Strengths: quantize 8 and 2 bits in buckets of 512 values (QSGD's
# bucket size); topk 1% and 0.1% of the entries (DGC's "99.9% redundant"); sign with one scale
# for the whole update and one per 512 values (its 1 bit a value is fixed; the scales are its
# only setting); zfp within 1e-4 and within 1e-3 of every value (APPFL's error-bounded use);
# dgc and powersgd at their papers' defaults (docs/guide/compression.md).
declare -A ARM=(
  [none]="method=none"
  [quantize8]="method=quantize bits=8 bucket=512"
  [quantize2]="method=quantize bits=2 bucket=512"
  [topk1pct]="method=topk fraction=0.01"
  [topk0.1pct]="method=topk fraction=0.001"
  [sign]="method=sign bucket=0"
  [sign512]="method=sign bucket=512"
  [zfp1e-4]="method=zfp zfp_mode=accuracy error_bound=0.0001"
  [zfp1e-3]="method=zfp zfp_mode=accuracy error_bound=0.001"
  [dgc]="method=dgc"
  [powersgd]="method=powersgd rank=2"
)
PY=/usr/bin/python3

# The compression ratio of the uploads (summary.json: compression.bytes_raw / bytes_encoded):
# a codec's property more than a result, so its range over the seeds, without a test.
ratio_table() {  # OUT ARM...
  local out=$1; shift
  echo "Compression ratio of the uploads (summary.json: compression.bytes_raw / bytes_encoded), over the seeds:"
  echo
  echo "| arm | ratio (lowest - highest) |"
  echo "|---|---|"
  for arm in "$@"; do
    $PY -c 'import glob, json, sys
r = [json.load(open(p)).get("compression") for p in sorted(glob.glob(sys.argv[2] + "/seed=*/summary.json"))]
r = [c["bytes_raw"] / c["bytes_encoded"] for c in r if c]
print(f"| {sys.argv[1]} | " + (f"{min(r):.1f} - {max(r):.1f}" if r else "1 (uncompressed)") + " |")' \
      "$arm" "$out/arm=$arm"
  done
}

# ---- the first table: 5 rounds of the quickstart's protocol ------------------------------------
five_rounds() {
  local BUILD=${1:-build} OUT=${2:-results/compression} SEEDS=${3:-1 2 3} JOBS=${4:-2} ROUNDS=${5:-5} TARGET=${6:-0.80}
  local arms=(none quantize8 quantize2 topk1pct topk0.1pct sign sign512 zfp1e-4 zfp1e-3)
  local running=0 failed=0 seed arm s dir
  for seed in $SEEDS; do
    for arm in "${arms[@]}"; do
      local sets=()
      for s in ${ARM[$arm]}; do sets+=(--set "compression.uplink.$s"); done
      dir=$OUT/arm=$arm/seed=$seed
      [ -f "$dir/summary.json" ] && continue
      mkdir -p "$dir"
      # One worker thread per run, JOBS runs at once; outputs do not depend on the worker count.
      "$BUILD/fedgrid" run --overwrite scenarios/quickstart.yaml --set seed="$seed" --set stop.rounds="$ROUNDS" \
        --set training.workers=1 --set output.trace=false "${sets[@]}" --out "$dir" >"$dir/run.log" 2>&1 &
      running=$((running + 1))
      if [ $running -ge "$JOBS" ]; then wait -n || failed=1; running=$((running - 1)); fi
    done
  done
  while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done
  [ $failed -eq 0 ] || echo "bench/compression.sh: a run failed (its run.log says why)" >&2

  # Intervals and paired tests: analysis/seed_stats.py, one table per figure, each arm against
  # `none` paired by seed. A run that never reaches TARGET has no time to it: seed_stats leaves it
  # out and says so under the table.
  local runs=()
  for arm in "${arms[@]}"; do
    for seed in $SEEDS; do runs+=("$OUT/arm=$arm/seed=$seed"); done
  done
  {
    echo "FedAvg on the quickstart federation, uplink compressed, $ROUNDS rounds, seeds $SEEDS."
    echo "Every verdict drawn from this table holds in $ROUNDS rounds only."
    for metric in final_accuracy "time_to:accuracy>=$TARGET" bytes_up; do
      echo
      $PY analysis/seed_stats.py "${runs[@]}" --group arm --reference none --metric "$metric" \
        --out "$OUT/stats" 2>/dev/null
    done
    echo
    ratio_table "$OUT" "${arms[@]}"
  } | tee "$OUT/table.md"
  $PY analysis/plot_seeds.py "${runs[@]}" --group arm --out "$OUT/accuracy_vs_time.png" >/dev/null
  echo "table: $OUT/table.md; figure: $OUT/accuracy_vs_time.png"
}

# ---- the protocols at the claims' horizons ----------------------------------------------------
protocol() {
  local mode=$1; shift
  local quick=0 build=build out="" seeds="" jobs=2
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick) quick=1; shift ;;
      --seeds) seeds=$2; shift 2 ;;
      --jobs) jobs=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      *) echo "bench/compression.sh $mode: unknown option '$1'" >&2; exit 2 ;;
    esac
  done
  local scenario sets arms targets quick_sets horizon
  case "$mode" in
    long)
      scenario=scenarios/compression/long_protocol.yaml
      sets=""
      arms=(none topk1pct topk0.1pct dgc sign sign512 powersgd)
      targets="0.75 0.80"
      quick_sets="stop.rounds=20"
      horizon="5 mini-batches a round (the long protocol)"
      ;;
    plateau)
      scenario=scenarios/quickstart.yaml
      sets="stop.rounds=20 output.eval_every=1 output.trace=false"
      arms=(none quantize8 quantize2 zfp1e-4 zfp1e-3)
      targets="0.85 0.88"
      quick_sets="stop.rounds=2"
      horizon="an epoch a round (the quickstart's protocol), to its plateau"
      ;;
    horizon)
      scenario=scenarios/compression/long_protocol.yaml
      sets="stop.rounds=1000 output.eval_every=25"
      arms=(none topk0.1pct dgc)
      targets="0.75 0.80 0.85"
      quick_sets="stop.rounds=25"
      horizon="5 mini-batches a round for 1,000 rounds (top-k 0.1%'s d/k)"
      ;;
  esac
  if [ $quick -eq 1 ]; then
    seeds=${seeds:-1 2}
    out=${out:-results/compression/${mode}_quick}
    sets="${sets:+$sets }$quick_sets"
  fi
  seeds=${seeds:-1 2 3}
  out=${out:-results/compression/$mode}
  [ -x "$build/fedgrid" ] || { echo "bench/compression.sh: no $build/fedgrid (build first: see README)" >&2; exit 2; }

  # seed slowest, so that an interrupted command leaves whole seeds (every arm of them) to pair.
  local todo=() seed arm kv s
  for seed in $seeds; do
    for arm in "${arms[@]}"; do
      local args="--set seed=$seed --set training.workers=1"
      for kv in $sets; do args="$args --set $kv"; done
      for s in ${ARM[$arm]}; do args="$args --set compression.uplink.$s"; done
      todo+=("$out/arm=$arm/seed=$seed|$args")
    done
  done
  echo "bench/compression.sh $mode: ${#todo[@]} runs into $out"
  run_one() {
    local dir=$1 args=$2 start command="$scenario $2"
    if [ -f "$dir/summary.json" ] && [ "$(cat "$dir/args.txt" 2>/dev/null)" = "$command" ]; then
      echo "kept  $dir"; return 0
    fi
    rm -rf "$dir"  # another command's outputs, or an interrupted run's: none of it is kept
    mkdir -p "$dir"
    start=$(date +%s)
    # shellcheck disable=SC2086  # args are --set KEY=VALUE words without spaces
    if "$build/fedgrid" run --overwrite "$scenario" $args --out "$dir" --log-level warn >"$dir/run.log" 2>&1; then
      printf '%s\n' "$command" >"$dir/args.txt"
      echo "ran   $dir ($(($(date +%s) - start)) s)"
    else
      echo "FAIL  $dir (log: $dir/run.log)"; return 1
    fi
  }
  local failed=0 running=0 r
  for r in "${todo[@]}"; do
    run_one "${r%%|*}" "${r#*|}" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
  done
  while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done

  local done_runs=()
  for r in "${todo[@]}"; do
    [ -f "${r%%|*}/summary.json" ] && [ -f "${r%%|*}/args.txt" ] && done_runs+=("${r%%|*}")
  done
  [ ${#done_runs[@]} -gt 0 ] || { echo "bench/compression.sh: no run finished" >&2; exit 1; }
  mkdir -p "$out/stats"
  local metrics=(final_accuracy)
  for t in $targets; do metrics+=("time_to:accuracy>=$t"); done
  metrics+=(bytes_up)
  {
    echo "FedAvg on the quickstart federation, uplink compressed, $horizon; rounds: $(
      $PY -c 'import json, sys; print(sorted({json.load(open(p + "/summary.json"))["rounds"] for p in sys.argv[1:]}))' \
        "${done_runs[@]}"); seeds $seeds; $scenario ${sets:+with $sets}."
    for metric in "${metrics[@]}"; do
      echo
      $PY analysis/seed_stats.py "${done_runs[@]}" --group arm --reference none --metric "$metric" \
        --out "$out/stats" 2>/dev/null
    done
    echo
    echo "The page's table (analysis/compression_study.py summary): bold where p < 0.05."
    echo
    $PY analysis/compression_study.py summary "$out" --target "${targets##* }"
    echo
    ratio_table "$out" "${arms[@]}"
    echo
    $PY analysis/compression_study.py per-seed "$out" --targets "$targets"
    echo
    # The verdicts, with the time to the protocol's highest target beside them.
    $PY analysis/compression_study.py verdicts "$out" --target "${targets##* }"
  } | tee "$out/table.md"
  $PY analysis/plot_seeds.py "${done_runs[@]}" --group arm --out "$out/accuracy_vs_time.png" >/dev/null
  echo "table: $out/table.md; figure: $out/accuracy_vs_time.png"
  return $failed
}

# ---- where compression stops paying -----------------------------------------------------------
breakeven() {
  local quick=0 build=build out="" jobs=2 target="" hospitals="" dirs=() candidates=0.88,0.85,0.80,0.75,0.70
  while [ $# -gt 0 ]; do
    case "$1" in
      --quick) quick=1; shift ;;
      --target) target=$2; shift 2 ;;
      --hospitals) hospitals=$2; shift 2 ;;
      --jobs) jobs=$2; shift 2 ;;
      --build) build=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      -*) echo "bench/compression.sh breakeven: unknown option '$1'" >&2; exit 2 ;;
      *) dirs+=("$1"); shift ;;
    esac
  done
  [ ${#dirs[@]} -gt 0 ] || { echo "usage: bench/compression.sh breakeven RUNS_DIR [RUNS_DIR ...] [options]" >&2; exit 2; }
  [ -x "$build/fedgrid" ] || { echo "bench/compression.sh: no $build/fedgrid (build first: see README)" >&2; exit 2; }
  local grid="1e6 2e6 5e6 1e7 2e7 5e7 1e8 2e8 5e8 1e9 2e9 5e9 1e10"
  local counts="3 10 30 100 200 300 500 700 1000"
  if [ $quick -eq 1 ]; then
    out=${out:-results/compression/breakeven_quick}
    grid="1e6 2e7 1e8 1e10"
    candidates=$candidates,0.60,0.50  # a few rounds reach less
    hospitals=${hospitals:-30}
    counts="3 10 30"
  fi
  out=${out:-results/compression/breakeven}
  hospitals=${hospitals:-1000}
  # The tier's own uplink (the weak tier's 20 Mbit/s) is a grid point: the check compares it with
  # the real runs.
  local uplink_key='platform.hospitals[0].uplink_bps' count_key='platform.hospitals[0].count'
  local failed=0 dir
  for dir in "${dirs[@]}"; do
    local name t here
    name=$(basename "$(realpath "$dir")")
    t=${target:-$($PY analysis/compression_study.py target "$dir" --candidates "$candidates")} || { failed=1; continue; }
    here=$out/$name/target=$t
    mkdir -p "$here/scenarios"
    echo "bench/compression.sh breakeven: $dir, target accuracy $t -> $here"
    local run arm seed cells
    # The replays: one scenario per arm and seed.
    for run in "$dir"/arm=*/seed=*; do
      if [ ! -f "$run/summary.json" ] || [ ! -f "$run/args.txt" ]; then continue; fi
      arm=$(basename "$(dirname "$run")"); arm=${arm#arm=}
      seed=$(basename "$run"); seed=${seed#seed=}
      $PY analysis/compression_study.py scenario "$run" --target "$t" \
        --out "$here/scenarios/arm=$arm,seed=$seed.yaml" >/dev/null || failed=1
    done
    # The grids (the figure's curves): a sweep per arm and seed over the axis.
    grid_axis() {  # AXIS_NAME KEY VALUES
      local axis=$1 key=$2 values=$3 file stem
      for file in "$here"/scenarios/arm=*.yaml; do
        stem=$(basename "$file" .yaml)
        mkdir -p "$here/grid/$axis"
        cat >"$here/grid/$axis/$stem.sweep.yaml" <<EOF
# The grid over $key of one replay ($stem): written by bench/compression.sh breakeven.
name: ${axis}_$stem
base: ../../scenarios/$stem.yaml
axes:
  - {key: ${key/\[0\]/.0}, name: $axis, values: [${values// /, }]}
EOF
        "$build/fedgrid" sweep "$here/grid/$axis/$stem.sweep.yaml" --jobs "$jobs" --out "$here/grid/$axis/$stem" \
          --log-level warn >/dev/null 2>&1 || { echo "FAIL  grid $axis $stem ($here/grid/$axis/$stem/sweep.csv)"; failed=1; }
      done
    }
    # The crossings: a plan per codec and seed against none's replay of the same seed.
    plan_axis() {  # AXIS_NAME VARY [SET...]
      local axis=$1 vary=$2 file stem seed none pdir
      shift 2
      for file in "$here"/scenarios/arm=*.yaml; do
        stem=$(basename "$file" .yaml)
        case "$stem" in arm=none,*) continue ;; esac
        seed=${stem##*seed=}
        none=$here/scenarios/arm=none,seed=$seed.yaml
        pdir=$here/plans/$axis/$stem
        [ -f "$pdir/plan.json" ] && continue
        rm -rf "$pdir"; mkdir -p "$pdir"
        [ -f "$none" ] || { echo "no none replay for seed $seed" >"$pdir/never.txt"; continue; }
        # A curve that never reaches the target has no time to it: no plan, the reason instead.
        if ! $PY analysis/compression_study.py reaches "$file" "$none" --target "$t" >"$pdir/never.txt"; then
          continue
        fi
        rm -f "$pdir/never.txt"
        "$build/fedgrid" plan "$file" --against "$none" --vary "$vary" --target 'time_to_target_s <= against' \
          --jobs "$jobs" "$@" --out "$pdir" --log-level warn >"$pdir/plan.log" 2>&1 \
          || { echo "FAIL  plan $axis $stem ($pdir/plan.log)"; failed=1; continue; }
        tail -n 1 "$pdir/plan.log"
      done
    }
    grid_axis weak_uplink_bps "$uplink_key" "$grid"
    plan_axis weak_uplink_bps "$uplink_key=1e6..1e10"
    if [ "$hospitals" -gt 3 ]; then
      # The grid's counts up to MAX, and MAX itself.
      local in_range="" c
      for c in $counts; do if [ "$c" -lt "$hospitals" ]; then in_range="$in_range $c"; fi; done
      grid_axis weak_hospitals "$count_key" "${in_range# } $hospitals"
      plan_axis weak_hospitals "$count_key=3..$hospitals"
    fi
    # The check: each replay at the tier's own uplink against its real run.
    {
      echo "arm,seed,round,replay_sim_time_s,run_sim_time_s,relative_difference"
      for run in "$dir"/arm=*/seed=*; do
        [ -f "$run/summary.json" ] || continue
        arm=$(basename "$(dirname "$run")"); arm=${arm#arm=}
        seed=$(basename "$run"); seed=${seed#seed=}
        cells=$here/grid/weak_uplink_bps/arm=$arm,seed=$seed
        [ -f "$cells/sweep.csv" ] || continue
        local cell
        cell=$($PY -c 'import sys, pandas as pd
s = pd.read_csv(sys.argv[1] + "/sweep.csv")
row = s[(s["status"] == "ok") & (s["weak_uplink_bps"].astype(float) == 2e7)]
print("" if row.empty else sys.argv[1] + "/" + row["dir"].iloc[0])' "$cells")
        [ -n "$cell" ] || continue
        echo "$arm,$seed,$($PY analysis/compression_study.py check "$run" "$cell")"
      done
    } >"$here/check.csv"
    $PY analysis/compression_study.py crossings "$here" --out "$here/crossings.md" || failed=1
    $PY analysis/plot_breakeven.py "$here" >/dev/null || failed=1
    echo "crossings: $here/crossings.md; figure: $here/breakeven.png"
  done
  return $failed
}

case "${1:-}" in
  long | plateau | horizon) protocol "$@" ;;
  breakeven) shift; breakeven "$@" ;;
  *) five_rounds "$@" ;;
esac
