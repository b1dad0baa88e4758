#!/usr/bin/env bash
# training.precision: bf16 against fp32 on the quickstart (20 rounds, cnn, Fashion-MNIST):
# training wall time (perf.json's wall_training_wait_s), whole-run wall time, and the accuracy
# each reaches, round by round at the end. Needs a CPU with AVX-512 BF16 (fedgrid refuses bf16
# elsewhere). Wall times are this machine's, not deterministic; the accuracies are.
# usage: bench/precision_bf16.sh [FEDGRID] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
rounds=${2:-20}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

field() { grep "\"$1\"" "$2" | tr -dc '0-9.\n' | head -1; }
for p in fp32 bf16; do
  "$fedgrid" run --overwrite scenarios/quickstart.yaml --out "$out/$p" --log-level warn \
    --set stop.rounds="$rounds" --set training.precision=$p >/dev/null
  printf '%s: training %.1f s, evaluation %.1f s, total %.1f s, final accuracy %s, best %s\n' "$p" \
    "$(field wall_training_wait_s "$out/$p/perf.json")" "$(field wall_evaluation_s "$out/$p/perf.json")" \
    "$(field wall_total_s "$out/$p/perf.json")" "$(field final_accuracy "$out/$p/summary.json")" \
    "$(field best_accuracy "$out/$p/summary.json")"
done
echo "accuracy by round (round, fp32, bf16):"
paste -d, <(cut -d, -f1,3 "$out/fp32/rounds.csv") <(cut -d, -f3 "$out/bf16/rounds.csv") | tail -n +2 | tr '\n' ' '
echo
