#!/usr/bin/env bash
# Cohort representatives against one SimGrid flow per hospital, on the capacity scenario cut
# down to sizes where both run (2 rounds): wall time of each and whether their rounds.csv and
# hospitals.csv are byte-identical (they must be: max-min sharing gives identical flows equal
# shares, and a representative's route counts each shared link once per member).
# usage: bench/cohorts_vs_flows.sh [path/to/fedgrid] [SIZES...]   (default sizes: 300 1000 3000)
set -euo pipefail
cd "$(dirname "$0")/.."
fedgrid=${1:-build/fedgrid}
shift || true
sizes=${*:-300 1000 3000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for n in $sizes; do
  weak=$((n * 6 / 10)) medium=$((n * 3 / 10))
  strong=$((n - weak - medium))
  groups="[{count: $weak, tier: weak}, {count: $medium, tier: medium}, {count: $strong, tier: strong}]"
  for cohorts in false true; do
    /usr/bin/time -f "%e" -o "$out/$n-$cohorts.time" "$fedgrid" run --overwrite scenarios/capacity_100k.yaml \
      --out "$out/$n-$cohorts" --log-level warn --set stop.rounds=2 --set "platform.hospitals=$groups" \
      --set timing.cohorts=$cohorts >/dev/null
  done
  same=NO
  cmp -s "$out/$n-false/rounds.csv" "$out/$n-true/rounds.csv" &&
    cmp -s "$out/$n-false/hospitals.csv" "$out/$n-true/hospitals.csv" && same=yes
  echo "$n hospitals: one flow each $(cat "$out/$n-false.time") s, cohorts $(cat "$out/$n-true.time") s," \
    "identical rounds.csv and hospitals.csv: $same"
done
