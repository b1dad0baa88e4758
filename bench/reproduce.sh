#!/usr/bin/env bash
# One command per seed paper: reruns its comparison under the paper's protocol (the scenario
# files say where each value comes from and what was scaled down), over seeds (and folds where
# the paper uses cross-validation), then tabulates each figure with analysis/seed_stats.py (mean
# and 95% Student-t interval per method; the paper's method against each baseline, paired by seed
# and fold, with the paired t-test and a verdict) and draws accuracy against simulated time with
# analysis/plot_seeds.py.
#
#   bench/reproduce.sh unifed|dynamicfl|fedskd|carpefl|carpefl_uncontrolled|unifiedfl [--seeds "1 2 3"] [--folds "1 2 3 4 5"]
#                      [--shape S] [--methods "M ..."] [--variants] [--build DIR] [--out DIR] [--jobs N] [--dry-run]
#                      [-- extra fedgrid --set ...]
#
# Seeds: 1 2 3 by default; carpefl's 5 (the paper's five runs).
# --shape S keeps one of a paper's federation shapes (fedskd: fedskin | fedasd; carpefl: dr |
# skin), so that each can be run, or resumed, on its own; --methods keeps the methods named (the
# reference among them: it is what the others are compared with).
# Runs go to OUT/[shape=S/]method=M[/fold=F]/seed=S (OUT: results/reproduce/PAPER); a run whose summary.json
# exists and whose args.txt holds the same command is kept, so an interrupted command resumes.
# Under a simulated-time budget (dynamicfl) each run's stop.rounds, its cosine schedule's horizon,
# is the rounds it fits in the budget at its seed: a timing-only run first (a second or two)
# counts them, since the seed's partition decides which hospital straggles and so how long a
# round takes. Tables: OUT/stats/*.md (OUT/stats/S/*.md with --shape S; carpefl also
# OUT/stats_shared_encoder/, the same runs with carpefl_shared_encoder as the reference); figure:
# OUT/accuracy_vs_time.png (OUT/accuracy_vs_time_S.png). --jobs N runs N at once (each run uses
# every core already; 1 here).
# Extra --set arguments apply to every run (e.g. stop.rounds=2 for a smoke run, into its own --out).
# Wall time on this 2-core machine, as measured: each paper's page (algorithms/PAPER/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
paper=${1:?usage: bench/reproduce.sh unifed|dynamicfl|fedskd|carpefl|carpefl_uncontrolled|unifiedfl [options]}
shift
seeds="1 2 3"
seeds_given=0
folds=""
fold_is_seed=0
horizon_from_budget=0
variants=0
only_shape=""
only_methods=""
build=build
out=""
jobs=1
dry=0
extra=()
also_reference=""  # a second reference to tabulate the same runs against (carpefl)
also_stats=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds=$2; seeds_given=1; shift 2 ;;
    --folds) folds=$2; shift 2 ;;
    --shape) only_shape=$2; shift 2 ;;
    --methods) only_methods=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --dry-run) dry=1; shift ;;
    --variants) variants=1; shift ;;
    --) shift; while [ $# -gt 0 ]; do extra+=(--set "$1"); shift; done ;;
    *) echo "bench/reproduce.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
out=${out:-results/reproduce/$paper}

# Each method: LABEL|SCENARIO|--set overrides (space separated, no spaces inside a value).
# REFERENCE: the paper's method; METRICS: summary.json figures tabulated.
case "$paper" in
  unifed)
    methods=(
      "unifed|scenarios/unifed/paper_protocol_unifed.yaml|"
      "unifed_authors_code|scenarios/unifed/authors_code_unifed.yaml|"
      "fedavg|scenarios/unifed/paper_protocol_fedavg.yaml|"
      "fedprox|scenarios/unifed/paper_protocol_fedprox.yaml|"
      "fedseq|scenarios/unifed/paper_protocol_fedseq.yaml|"
      "centralized|scenarios/unifed/paper_protocol_centralized.yaml|"
      "server_only|scenarios/unifed/paper_protocol_server_only.yaml|"
    )
    reference=unifed
    metrics="final_accuracy final_f1_macro sim_time_s epoch_transfers bytes_total"
    plot_metric=accuracy
    ;;
  dynamicfl)
    methods=(
      "dynamicfl|scenarios/dynamicfl/paper_protocol_dynamicfl.yaml|"
      "heterofl|scenarios/dynamicfl/paper_protocol_heterofl.yaml|"
      "fedrolex|scenarios/dynamicfl/paper_protocol_fedrolex.yaml|"
      "feddf|scenarios/dynamicfl/paper_protocol_feddf.yaml|"
      "fedavg|scenarios/dynamicfl/paper_protocol_fedavg.yaml|"
      # The paper's IncluFL (its ref. 34, one of its distillation baselines), on one depth
      # family (vgg5/7/9) at the same budget (algorithms/dynamicfl/README.md says how its width
      # was chosen).
      "inclusivefl|scenarios/dynamicfl/paper_protocol_inclusivefl.yaml|"
    )
    reference=dynamicfl
    horizon_from_budget=1
    metrics="final_accuracy final_tier_gap final_hospital_acc_std rounds bytes_total"
    plot_metric=accuracy
    ;;
  fedskd)
    # Both shapes; the paper's 5 mini-batches for aggregation methods and Local against FedSKD's
    # 5N, and the same baselines at 5N ("equal steps"). 5N: 15 on FedSkin (3 hospitals), 20 on
    # FedASD (4). Centralized trains the pool with as many mini-batches a round as the whole
    # federation does at 5N (N x 5N: 45 and 80).
    methods=()
    for shape in fedskin fedasd; do
      n5=$([ $shape = fedskin ] && echo 15 || echo 20)
      pooled=$([ $shape = fedskin ] && echo 45 || echo 80)
      f="scenarios/fedskd/shifted_$shape.yaml"
      # The file's algorithm.gamma is fedskd's own key: the other methods unset it.
      skd="algorithm.gamma=null"
      methods+=(
        "$shape/fedskd|$f|"
        "$shape/fedavg|$f|$skd algorithm.name=fedavg training.local_steps=5"
        "$shape/fedavg_equal_steps|$f|$skd algorithm.name=fedavg training.local_steps=$n5"
        "$shape/fedprox|$f|$skd algorithm.name=fedprox algorithm.mu=0.01 training.local_steps=5"
        "$shape/fedprox_equal_steps|$f|$skd algorithm.name=fedprox algorithm.mu=0.01 training.local_steps=$n5"
        "$shape/fedbn|$f|$skd algorithm.name=fedbn training.local_steps=5"
        "$shape/fedcross|$f|$skd algorithm.name=fedcross training.local_steps=5"
        "$shape/local|$f|$skd algorithm.name=local training.local_steps=5"
        "$shape/local_equal_steps|$f|$skd algorithm.name=local training.local_steps=$n5"
        "$shape/centralized|$f|$skd algorithm.name=centralized training.local_steps=$pooled"
      )
      # --variants: FedSKD with the DAM's Adam kept across rounds (algorithm.persistent_adam).
      [ $variants -eq 1 ] && methods+=("$shape/fedskd_persistent_adam|$f|algorithm.persistent_adam=true")
    done
    reference=fedskd
    metrics="final_local_test_auc final_global_test_auc final_local_test_acc final_global_test_acc sim_time_s bytes_total"
    plot_metric=global_test_auc
    # The paper's 5-fold cross-validation: by default seed s tests fold s (3 of the 5 folds, each
    # with its own partition draw; --folds "1 2 3 4 5" crosses every seed with every fold).
    fold_is_seed=${folds:+0}
    fold_is_seed=${fold_is_seed:-1}
    ;;
  carpefl)
    # The comparison with controls (algorithms/carpefl/README.md), both stand-in shapes
    # (retinopathy: 3 classes, skin: 2), every arm from the shape's one scenario file: one
    # optimizer configuration for all (AdamW, the engine's cosine schedule, early stopping with
    # patience 5 on validation loss, each run scored on its kept round), the same data, seed and
    # platform. Arms: carpefl under each reading of its encoder sharing (per cluster, as its
    # aggregation rule; shared by all sites, as its Secs. 3.1 and 4.4), fedcsl_inspired under
    # each (the same clusters and sharing, the structure not injected), the baselines of its
    # Tables A1-A3, and local (no communication). The paper's 5 seeds.
    [ $seeds_given -eq 1 ] || seeds="1 2 3 4 5"
    methods=()
    for shape in dr skin; do
      f="scenarios/carpefl/controlled_$shape.yaml"
      # The file's algorithm keys are carpefl's own: the other methods unset them, and train the
      # cnn, whose trunk is carpefl's encoder.
      cnn="algorithm.refresh_every=null algorithm.gate_balance=null algorithm.encoder=null model.arch=cnn"
      # FedAMP by the rule in the scenario files: sigma = the squared distance between two
      # sites' models after one round of local training from the common start (measured at
      # seed 1, the median of the three pairs: 7.54 and 16.03, kept to two digits), alpha_k =
      # sigma / 3, lambda = 0.01 alpha_k.
      if [ $shape = dr ]; then amp="algorithm.sigma=7.5 algorithm.alpha_k=2.5 algorithm.lambda=0.025"
      else amp="algorithm.sigma=16 algorithm.alpha_k=5.333 algorithm.lambda=0.05333"; fi
      methods+=(
        "$shape/carpefl|$f|"
        "$shape/carpefl_shared_encoder|$f|algorithm.encoder=shared"
        "$shape/fedcsl_inspired|$f|algorithm.name=fedcsl_inspired"
        "$shape/fedcsl_inspired_shared_encoder|$f|algorithm.name=fedcsl_inspired algorithm.encoder=shared"
        "$shape/fedavg|$f|$cnn algorithm.name=fedavg"
        "$shape/fedprox|$f|$cnn algorithm.name=fedprox algorithm.mu=0.01"
        "$shape/ditto|$f|$cnn algorithm.name=ditto algorithm.ditto_lambda=0.1"
        "$shape/fedrep|$f|$cnn algorithm.name=fedrep algorithm.head_epochs=10"
        "$shape/fedamp|$f|$cnn algorithm.name=fedamp $amp"
        "$shape/local|$f|$cnn algorithm.name=local"
      )
    done
    reference=carpefl
    # The shared-encoder reading tabulated too: the same runs with carpefl_shared_encoder as the
    # reference (its lead over each baseline, and over fedcsl_inspired_shared_encoder: what
    # injecting the backbone buys under that reading), into OUT/stats_shared_encoder/.
    also_reference=carpefl_shared_encoder
    also_stats=stats_shared_encoder
    # The kept round's site figures (summary.json's final_site: the round early stopping kept).
    metrics="final_site.f1_macro_mean final_site.f1_macro_worst final_site.balanced_acc_mean"
    metrics+=" final_site.balanced_acc_worst final_site.auc_mean final_site.auc_worst kept_round sim_time_s bytes_up"
    plot_metric=site_f1_mean
    ;;
  carpefl_uncontrolled)
    # The earlier comparison, without controls (its table in algorithms/carpefl/README.md): one
    # file per method (dr_*.yaml, skin_*.yaml), carpefl and fedcsl_inspired on AdamW with cosine
    # decay, the baselines on Adam (coupled L2) at a constant rate, fedcsl_inspired on one
    # global cluster, no early stopping: every method scored at round 100.
    methods=()
    for shape in dr skin; do
      for m in carpefl fedcsl_inspired fedavg fedprox ditto fedrep fedamp; do
        methods+=("$shape/$m|scenarios/carpefl/${shape}_$m.yaml|")
      done
    done
    reference=carpefl
    # The site figures' last row (rounds.csv's site_* columns: summary.json's final_site).
    metrics="site_f1_mean site_f1_worst site_bacc_mean site_bacc_worst site_auc_mean site_auc_worst sim_time_s bytes_up"
    plot_metric=site_f1_mean
    ;;
  unifiedfl)
    # Whether dynamic clustering helps (algorithms/unifiedfl/README.md): the labelled variant that
    # reclusters on Theta updates (cluster_on: theta_update) against the static ablation uFedGNN
    # and the paper's reading of dynamic UnifiedFL (reclustering on Theta), on the fully
    # heterogeneous stand-in, 100 rounds each (per-client tables: bench/unifiedfl_per_client.sh).
    methods=(
      "unifiedfl_theta_update|scenarios/unifiedfl/fmnist_full_unifiedfl_theta_update.yaml|output.site_metrics=true"
      "ufedgnn|scenarios/unifiedfl/fmnist_full_ufedgnn.yaml|output.site_metrics=true"
      "unifiedfl|scenarios/unifiedfl/fmnist_full_unifiedfl.yaml|output.site_metrics=true"
    )
    reference=unifiedfl_theta_update
    metrics="site_f1_mean final_accuracy final_f1_macro rounds:clusters sim_time_s bytes_total"
    plot_metric=accuracy
    ;;
  *) echo "bench/reproduce.sh: unknown paper '$paper' (unifed | dynamicfl | fedskd | carpefl | carpefl_uncontrolled | unifiedfl)" >&2
     exit 2 ;;
esac
if [ -n "$only_shape" ]; then
  kept=()
  for m in "${methods[@]}"; do [ "${m%%/*}" = "$only_shape" ] && kept+=("$m"); done
  [ ${#kept[@]} -gt 0 ] || { echo "bench/reproduce.sh: $paper has no shape '$only_shape'" >&2; exit 2; }
  methods=("${kept[@]}")
fi
if [ -n "$only_methods" ]; then
  kept=()
  for m in "${methods[@]}"; do
    label=${m%%|*}
    case " $only_methods " in *" ${label#*/} "*) kept+=("$m") ;; esac
  done
  [ ${#kept[@]} -gt 0 ] || { echo "bench/reproduce.sh: $paper has none of the methods '$only_methods'" >&2; exit 2; }
  methods=("${kept[@]}")
fi

[ -x "$build/fedgrid" ] || { echo "bench/reproduce.sh: no $build/fedgrid (build first: see README)" >&2; exit 2; }

# The runs: seed x fold x method, seed slowest, so that an interrupted command leaves whole
# seeds (every method of them) to pair.
runs=()
for seed in $seeds; do
  unit_folds=${folds:-0}
  [ "$fold_is_seed" = 1 ] && unit_folds=$seed
  for fold in $unit_folds; do
    for m in "${methods[@]}"; do
      IFS='|' read -r label scenario sets <<<"$m"
      shape=${label%/*}; method=${label#*/}
      prefix=$([ "$shape" != "$label" ] && echo "shape=$shape/" || true)
      dir="$out/${prefix}method=$method"
      args=(--set "seed=$seed")
      if [ "$fold" != 0 ]; then dir="$dir/fold=$fold"; args+=(--set "data.split.fold=$fold"); fi
      dir="$dir/seed=$seed"
      for kv in $sets; do args+=(--set "$kv"); done
      runs+=("$dir|$scenario|${args[*]}")
    done
  done
done

echo "bench/reproduce.sh $paper: ${#runs[@]} runs into $out"
# The rounds a run fits in its stop.sim_time_budget_s, from a timing-only run of it.
rounds_in_budget() {
  local dir=$1 scenario=$2 args=$3 probe="$1.horizon"
  # shellcheck disable=SC2086  # args are --set KEY=VALUE words without spaces
  "$build/fedgrid" run --overwrite "$scenario" $args --set training.mode=timing-only --set stop.rounds=100000 \
    --out "$probe" --log-level warn >/dev/null 2>&1 || { echo "FAIL  $dir: its timing-only run" >&2; return 1; }
  tail -n 1 "$probe/rounds.csv" | cut -d, -f1
  rm -rf "$probe"
}
run_one() {
  local dir=$1 scenario=$2 args=$3 start rounds command
  if [ $horizon_from_budget -eq 1 ]; then
    rounds=$(rounds_in_budget "$dir" "$scenario" "$args") || return 1
    args="$args --set stop.rounds=$rounds"
  fi
  command="$scenario $args ${extra[*]}"
  if [ -f "$dir/summary.json" ] && [ "$(cat "$dir/args.txt" 2>/dev/null)" = "$command" ]; then
    echo "kept  $dir"; return 0
  fi
  rm -rf "$dir"  # another command's outputs, or an interrupted run's: none of it is kept
  start=$(date +%s)
  # shellcheck disable=SC2086  # args are --set KEY=VALUE words without spaces
  if "$build/fedgrid" run --overwrite "$scenario" $args "${extra[@]}" --out "$dir" --log-level warn >"$dir.log" 2>&1; then
    rm -f "$dir.log"
    printf '%s\n' "$command" >"$dir/args.txt"
    echo "ran   $dir ($(($(date +%s) - start)) s${rounds:+, stop.rounds $rounds})"
  else
    echo "FAIL  $dir (log: $dir.log)"; return 1
  fi
}
if [ $dry -eq 1 ]; then
  for r in "${runs[@]}"; do echo "$r"; done
  exit 0
fi
failed=0
running=0
for r in "${runs[@]}"; do
  IFS='|' read -r dir scenario args <<<"$r"
  mkdir -p "$(dirname "$dir")"
  if [ "$jobs" -le 1 ]; then
    run_one "$dir" "$scenario" "$args" || failed=1
  else
    run_one "$dir" "$scenario" "$args" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
  fi
done
while [ $running -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done

# Tables and the figure, from this command's runs that finished (not other runs left in OUT).
done_runs=()
for r in "${runs[@]}"; do
  dir=${r%%|*}
  [ -f "$dir/summary.json" ] && [ -f "$dir/args.txt" ] && done_runs+=("$dir")
done
[ ${#done_runs[@]} -gt 0 ] || { echo "bench/reproduce.sh: no run finished" >&2; exit 1; }
# One shape's command (--shape) tabulates into its own folder, so the other shape's tables stay.
stats=$out/stats${only_shape:+/$only_shape}
figure=$out/accuracy_vs_time${only_shape:+_$only_shape}.png
mkdir -p "$stats"
for metric in $metrics; do
  /usr/bin/python3 analysis/seed_stats.py "${done_runs[@]}" --group method --reference "$reference" \
    --metric "$metric" --out "$stats" >/dev/null
done
# The same runs against the second reference, when its runs are among them (--methods may leave
# it out).
also_dir=""
if [ -n "$also_reference" ]; then
  for dir in "${done_runs[@]}"; do
    case "$dir" in */method=$also_reference/*) also_dir=$out/$also_stats${only_shape:+/$only_shape} ;; esac
  done
fi
if [ -n "$also_dir" ]; then
  mkdir -p "$also_dir"
  for metric in $metrics; do
    /usr/bin/python3 analysis/seed_stats.py "${done_runs[@]}" --group method --reference "$also_reference" \
      --metric "$metric" --out "$also_dir" >/dev/null
  done
fi
section=()
case "$paper" in fedskd | carpefl*) section=(--section shape) ;; esac
/usr/bin/python3 analysis/plot_seeds.py "${done_runs[@]}" --group method "${section[@]}" --metric "$plot_metric" \
  --out "$figure" >/dev/null
echo "tables: $stats/seed_stats_*.md${also_dir:+ and $also_dir/seed_stats_*.md}; figure: $figure"
exit $failed
