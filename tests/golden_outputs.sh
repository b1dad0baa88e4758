#!/usr/bin/env bash
# Golden outputs: every shipped scenario run for 2 rounds must give byte-identical rounds.csv,
# hospitals.csv, events.csv and summary.json to the outputs recorded in tests/golden/ (recorded
# before the restructuring of issue "one house plan", kept as a regression guard: a change
# that moves code must not move a single byte of output).
#
#   tests/golden_outputs.sh record FEDGRID [SOURCE_DIR]   rewrite tests/golden/ from this binary
#   tests/golden_outputs.sh check  FEDGRID [SOURCE_DIR]   compare (ctest: Golden.ShippedScenarios)
#
# MedMNIST scenarios need the user's .npz files and sweep files are not scenarios: both are
# left out. Outputs depend on the CPU's instruction set and on training.workers/threads, so
# record and check on the same kind of machine (the project's 2-core CI machine).
set -euo pipefail
mode=${1:?record|check}
fedgrid=$(realpath "${2:?path to the fedgrid binary}")
src=$(realpath "${3:-$(dirname "$0")/..}")
golden="$src/tests/golden"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=(rounds.csv hospitals.csv events.csv summary.json)

failed=0
cd "$src"
while IFS= read -r scenario; do
  rel=${scenario#scenarios/}
  key=${rel%.yaml}
  out="$work/$key"
  if ! "$fedgrid" run "$scenario" --set stop.rounds=2 --out "$out" --log-level warn >"$work/log" 2>&1; then
    echo "FAIL $rel: the run failed"; sed 's/^/  /' "$work/log"; failed=1; continue
  fi
  if [ "$mode" = record ]; then
    mkdir -p "$golden/$key"
    for f in "${files[@]}"; do
      rm -f "$golden/$key/$f" "$golden/$key/$f.sha256"
      # Files over 1 MB (100,000 hospitals' rows) are kept as their SHA-256 only.
      if [ "$(stat -c %s "$out/$f")" -gt 1000000 ]; then
        (cd "$out" && sha256sum "$f") > "$golden/$key/$f.sha256"
      else
        cp "$out/$f" "$golden/$key/$f"
      fi
    done
    echo "recorded $rel"
    continue
  fi
  for f in "${files[@]}"; do
    if [ -f "$golden/$key/$f.sha256" ]; then
      if ! (cd "$out" && sha256sum --quiet -c "$golden/$key/$f.sha256" >/dev/null 2>&1); then
        echo "FAIL $rel: $f differs from the SHA-256 in tests/golden/$key/$f.sha256"; failed=1
      fi
    elif ! cmp -s "$golden/$key/$f" "$out/$f"; then
      echo "FAIL $rel: $f differs from tests/golden/$key/$f"
      diff <(head -c 200000 "$golden/$key/$f") <(head -c 200000 "$out/$f") | head -8 | sed 's/^/  /' || true
      failed=1
    fi
  done
  [ $failed -eq 0 ] && echo "ok $rel"
done < <(find scenarios -name '*.yaml' -not -path 'scenarios/sweeps/*' -not -name 'medmnist_*' | LC_ALL=C sort)

if [ "$mode" = check ]; then
  [ $failed -eq 0 ] && echo "golden outputs: all identical" || echo "golden outputs: differences found"
fi
exit $failed
