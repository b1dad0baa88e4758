#!/usr/bin/env bash
# Runs a tiny real simulation and the plotting script on it; the PNGs must appear.
set -euo pipefail
fedgrid=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$fedgrid" run "$src/scenarios/quickstart.yaml" --out "$dir/run" --log-level warn \
  --set data.dataset=synthetic --set model.arch=mlp --set stop.rounds=2 >/dev/null
/usr/bin/python3 "$src/analysis/plot_run.py" "$dir/run" --out "$dir/plots"
/usr/bin/python3 "$src/analysis/plot_timeline.py" "$dir/run" --rounds 1:2 --out "$dir/plots/timeline.png"
for f in accuracy_vs_time.png accuracy_vs_round.png bytes_per_round.png timeline.png; do
  test -s "$dir/plots/$f" || { echo "missing $f"; exit 1; }
done
