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
# left out. Real training's figures depend on the CPU: LibTorch, oneDNN and OpenBLAS pick their
# kernels (hence their summation order) by instruction set and CPU model. So `record` writes the
# machine's fingerprint to tests/golden/MACHINE, and on a machine with another fingerprint
# `check` compares the timing-only scenarios (no training) and says which real-training
# scenarios it skipped and why.
set -euo pipefail
mode=${1:?record|check}
fedgrid=$(realpath "${2:?path to the fedgrid binary}")
src=$(realpath "${3:-$(dirname "$0")/..}")
golden="$src/tests/golden"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
files=(rounds.csv hospitals.csv events.csv summary.json)

# What picks the kernels: CPU vendor, family and model, and the vector extensions.
fingerprint() {
  awk -F'\t*: ' '/^(vendor_id|cpu family|model)\t/ && !seen[$1]++ { print $1 ": " $2 }' /proc/cpuinfo
  grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx|avx2|fma|f16c|avx512.*|amx.*)$' | sort | tr '\n' ' '
  echo
}
same_machine=1
if [ "$mode" = record ]; then
  mkdir -p "$golden" && fingerprint > "$golden/MACHINE"
elif ! cmp -s <(fingerprint) "$golden/MACHINE"; then
  same_machine=0
  echo "this CPU is not the one tests/golden/ was recorded on: real-training scenarios are skipped"
  diff "$golden/MACHINE" <(fingerprint) | sed 's/^/  /' || true
fi
skipped=0

failed=0
cd "$src"
while IFS= read -r scenario; do
  rel=${scenario#scenarios/}
  key=${rel%.yaml}
  out="$work/$key"
  # A recorded run that trained for real says so in summary.json ("arithmetic" not null).
  if [ "$mode" = check ] && [ $same_machine -eq 0 ] && ! grep -q '"arithmetic": null' "$golden/$key/summary.json"; then
    echo "skip $rel: trains for real, recorded on another CPU"; skipped=$((skipped + 1)); continue
  fi
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
  failed_here=0
  for f in "${files[@]}"; do
    if [ -f "$golden/$key/$f.sha256" ]; then
      if ! (cd "$out" && sha256sum --quiet -c "$golden/$key/$f.sha256" >/dev/null 2>&1); then
        echo "FAIL $rel: $f differs from the SHA-256 in tests/golden/$key/$f.sha256"; failed=1; failed_here=1
      fi
    elif ! cmp -s "$golden/$key/$f" "$out/$f"; then
      echo "FAIL $rel: $f differs from tests/golden/$key/$f"
      diff <(head -c 200000 "$golden/$key/$f") <(head -c 200000 "$out/$f") | head -8 | sed 's/^/  /' || true
      failed=1; failed_here=1
    fi
  done
  [ "$failed_here" -eq 0 ] && echo "ok $rel"
done < <(find scenarios -name '*.yaml' -not -path 'scenarios/sweeps/*' -not -name 'medmnist_*' | LC_ALL=C sort)

if [ "$mode" = check ]; then
  note=$([ $skipped -gt 0 ] && echo " ($skipped real-training scenarios skipped: another CPU)" || true)
  [ $failed -eq 0 ] && echo "golden outputs: all identical$note" || echo "golden outputs: differences found$note"
fi
exit $failed
