#!/usr/bin/env bash
# Runs tiny real simulations and the analysis scripts on them: the PNGs must appear, report.md
# must name only files that exist, and a bad target must be exit 2 without a traceback.
set -euo pipefail
fedgrid=$1
src=$(cd "$2" && pwd)
py=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for algorithm in fedavg fedseq; do
  "$fedgrid" run "$src/scenarios/quickstart.yaml" --out "$dir/$algorithm" --log-level warn \
    --set data.dataset=synthetic --set model.arch=mlp --set stop.rounds=2 \
    --set algorithm.name=$algorithm >/dev/null
done

$py "$src/analysis/plot_run.py" "$dir/fedavg" --out "$dir/plots"
$py "$src/analysis/plot_timeline.py" "$dir/fedavg" --rounds 1:2 --out "$dir/plots/timeline.png"
for f in accuracy_vs_time.png accuracy_vs_round.png bytes_per_round.png timeline.png; do
  test -s "$dir/plots/$f" || { echo "missing $f"; exit 1; }
done

# check_report DIR MIN_FIGURES: report.md embeds at least MIN_FIGURES images, all non-empty.
check_report() {
  test -s "$1/report.md" || { echo "missing $1/report.md"; exit 1; }
  local count=0
  for f in $(sed -n 's/^!\[.*\](\(.*\.png\))$/\1/p' "$1/report.md"); do
    test -s "$1/$f" || { echo "$1/report.md names $f, which is missing or empty"; exit 1; }
    count=$((count + 1))
  done
  [ "$count" -ge "$2" ] || { echo "$1/report.md embeds $count figures, expected at least $2"; exit 1; }
}
$py "$src/analysis/report.py" "$dir/fedavg" >/dev/null
check_report "$dir/fedavg/report" 6
$py "$src/analysis/report.py" "$dir/fedavg" "$dir/fedseq" --out "$dir/both" >/dev/null
check_report "$dir/both" 8

# A real sweep (2 algorithms x 2 weak uplinks, 1 round): a figure per axis and the table.
cat >"$dir/sweep.yaml" <<EOF
name: tiny
base: $src/scenarios/quickstart.yaml
set: {data.dataset: synthetic, model.arch: mlp, stop.rounds: 1, output.trace: false}
axes:
  - {key: algorithm.name, values: [fedavg, fedseq]}
  - {key: platform.hospitals.0.uplink_bps, name: weak_uplink_bps, values: [10e6, 1e9]}
EOF
"$fedgrid" sweep "$dir/sweep.yaml" --out "$dir/sweep" --jobs 2 >/dev/null 2>&1
$py "$src/analysis/report.py" "$dir/sweep" >/dev/null
check_report "$dir/sweep/report" 4
test -s "$dir/sweep/report/sweep_weak_uplink_bps_sim_time_s.png" || { echo "missing the uplink axis figure"; exit 1; }
grep -q "| fedseq | 1e9 |" "$dir/sweep/report/report.md" || { echo "report.md lacks the sweep table"; exit 1; }

# seed_stats.py: hand-computed intervals and paired tests (tests/test_seed_stats.py), then a
# real sweep of 2 algorithms x 2 seeds: each group's mean must be the mean of its sweep.csv rows.
$py "$src/tests/test_seed_stats.py" "$src"
# compression_study.py: the page table and verdicts of a protocol, by hand (tests/test_compression_study.py).
$py "$src/tests/test_compression_study.py" "$src"
cat >"$dir/seeds.yaml" <<EOF
name: seeds
base: $src/scenarios/quickstart.yaml
set: {data.dataset: synthetic, model.arch: mlp, stop.rounds: 2, output.trace: false}
axes:
  - {key: algorithm.name, name: algorithm, values: [fedavg, fedseq]}
seeds: [1, 2]
EOF
"$fedgrid" sweep "$dir/seeds.yaml" --out "$dir/seeds" --jobs 2 >/dev/null 2>&1
$py "$src/analysis/seed_stats.py" "$dir/seeds" --reference fedseq >"$dir/seeds.md" 2>/dev/null
stats=$dir/seeds/stats/seed_stats_final_accuracy.csv
for algorithm in fedavg fedseq; do
  expected=$($py -c 'import csv, sys; v = [float(r["final_accuracy"]) for r in csv.DictReader(open(sys.argv[1]))
if r["algorithm"] == sys.argv[2]]; print("%.12f" % (sum(v) / len(v)))' "$dir/seeds/sweep.csv" $algorithm)
  got=$(awk -F, -v a=$algorithm '$1 == a { printf "%.12f", $3 }' "$stats")
  [ "$got" = "$expected" ] || { echo "seed_stats mean of $algorithm: $got, sweep.csv gives $expected"; exit 1; }
done
grep -q "^fedavg,2,.*,fedseq,2,0," "$stats" || { echo "fedavg: expected n 2, 2 pairs, none dropped"; cat "$stats"; exit 1; }
grep -q "| fedseq | 2 | .* | (reference) |" "$dir/seeds.md" || { echo "seed_stats table lacks fedseq"; exit 1; }
# The 4-cell sweep above has one seed and a second axis: a section per uplink, no interval.
$py "$src/analysis/seed_stats.py" "$dir/sweep" --metric sim_time_s >"$dir/uplink.md" 2>/dev/null
grep -q "| 1e9 | fedseq | 1 | .* | too few pairs |" "$dir/uplink.md" || { echo "seed_stats: no 1e9 section"; exit 1; }

# per_client.py: each hospital's figures at its last scored round, mean and t-interval over
# runs, by hand: two runs of hospitals a, b (round 2 scored; round 3 not, so it is skipped).
header=round,hospital,precision_macro,recall_macro,f1_macro
for seed in 1 2; do
  mkdir -p "$dir/pc/method=m/seed=$seed"
  f1_b=$([ $seed = 1 ] && echo 0.8 || echo 1.0)
  { echo $header; echo 1,a,0.1,0.1,0.1; echo 2,a,0.$((5 + seed)),0.5,0.4; echo 2,b,0.8,0.6,$f1_b; echo 3,a,,,
  } >"$dir/pc/method=m/seed=$seed/hospitals.csv"
done
$py "$src/analysis/per_client.py" "$dir/pc/method=m/seed=1" "$dir/pc/method=m/seed=2" >"$dir/pc.md"
# a: precision 0.6 and 0.7, mean 0.65, sd 0.0707, half-width t(0.975, 1) 12.706 x 0.05 = 0.635.
grep -q "^| a | 0.650 ± 0.635 / 0.500 ± 0.000 / 0.400 ± 0.000 (2) |$" "$dir/pc.md" || { echo "per_client: row a"; cat "$dir/pc.md"; exit 1; }
# mean of hospitals, F1: runs (0.4 + 0.8) / 2 = 0.6 and (0.4 + 1.0) / 2 = 0.7.
grep -q "^| mean of hospitals | .* / 0.650 ± 0.635 (2) |$" "$dir/pc.md" || { echo "per_client: mean row"; cat "$dir/pc.md"; exit 1; }
mkdir -p "$dir/pc/method=plain" && cp "$dir/fedavg/hospitals.csv" "$dir/pc/method=plain/"
rc=0
$py "$src/analysis/per_client.py" "$dir/pc/method=plain" 2>"$dir/stderr" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q "output.site_metrics" "$dir/stderr" || { echo "per_client.py without site columns: exit $rc"; cat "$dir/stderr"; exit 1; }

# Bad input: exit 2 and a message, never a traceback.
for target in "$dir/no-such-run" "$dir/plots"; do
  rc=0
  $py "$src/analysis/report.py" "$target" --out "$dir/bad" 2>"$dir/stderr" >/dev/null || rc=$?
  [ "$rc" -eq 2 ] || { echo "report.py $target: exit $rc, expected 2"; exit 1; }
  if grep -q Traceback "$dir/stderr"; then cat "$dir/stderr"; exit 1; fi
done
echo "analysis OK"
