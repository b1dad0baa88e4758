#!/usr/bin/env bash
# Golden outputs: every shipped scenario run for 2 rounds must give byte-identical rounds.csv,
# hospitals.csv, events.csv and summary.json to the outputs recorded in tests/golden/ (recorded
# before the restructuring of issue "one house plan", kept as a regression guard: a change
# that moves code must not move a single byte of output).
#
#   tests/golden_outputs.sh record FEDGRID [SOURCE_DIR]   record this CPU's outputs
#   tests/golden_outputs.sh check  FEDGRID [SOURCE_DIR]   compare (ctest: Golden.<folder>)      
#   GOLDEN_ONLY=REGEX tests/golden_outputs.sh check ...    only the scenarios whose path matches
#                                                          (a quick check while restructuring)
#
# MedMNIST scenarios need the user's .npz files and sweep files are not scenarios: both are
# left out. Real training's figures depend on the CPU: LibTorch, oneDNN and OpenBLAS pick their
# kernels (hence their summation order) by instruction set and CPU model. So every set of
# outputs names the CPU it was recorded on in its MACHINE file (a fingerprint):
#   tests/golden/             every scenario, recorded on the CPU in tests/golden/MACHINE
#   tests/golden/cpus/NAME/   the real-training scenarios again, recorded on another CPU
# tests/golden/cheaper.txt lists scenarios whose golden run adds `--set` overrides (fewer epochs),
# so that CI stays short; their outputs are recorded and checked with the same overrides.
# `check` compares timing-only scenarios (no training) with tests/golden/ on any CPU, and
# real-training ones with the set recorded on this CPU; with no such set it says which it
# skipped. `record` on the main set's CPU rewrites tests/golden/; on another CPU it checks the
# timing-only scenarios and records the real-training ones in tests/golden/cpus/NAME/.
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
fp=$(fingerprint)

# The set recorded on this CPU: tests/golden/, one of tests/golden/cpus/*, or none.
cpu_set=
if [ ! -f "$golden/MACHINE" ] || [ "$fp" = "$(cat "$golden/MACHINE")" ]; then
  cpu_set=$golden
else
  for m in "$golden"/cpus/*/MACHINE; do
    if [ -f "$m" ] && [ "$fp" = "$(cat "$m")" ]; then cpu_set=$(dirname "$m"); fi
  done
  if [ -z "$cpu_set" ] && [ "$mode" = record ]; then
    # vendor-family-model-widest vector extension, e.g. AuthenticAMD-25-1-avx2
    name=$(printf '%s\n' "$fp" | awk -F': ' 'NR <= 3 { printf "%s%s", (NR > 1 ? "-" : ""), $2 }')
    widest=$(printf '%s\n' "$fp" | tail -1 | tr ' ' '\n' | grep -E '^(avx512f|avx2|avx)$' | sort -r | head -1 || true)
    cpu_set="$golden/cpus/$name-${widest:-novec}"
  fi
fi
if [ "$mode" = record ]; then
  mkdir -p "$cpu_set" && printf '%s\n' "$fp" > "$cpu_set/MACHINE"
elif [ -z "$cpu_set" ]; then
  echo "no golden outputs were recorded on this CPU: real-training scenarios are skipped"
  diff "$golden/MACHINE" <(printf '%s\n' "$fp") | sed 's/^/  /' || true
elif [ "$cpu_set" != "$golden" ]; then
  echo "real-training scenarios compared with ${cpu_set#"$src"/} (recorded on this CPU)"
fi

recorded_anywhere() {
  local f
  for f in "$golden/$1/summary.json" "$golden"/cpus/*/"$1/summary.json"; do [ -f "$f" ] && return 0; done
  return 1
}

skipped=0
failed=0
cd "$src"
while IFS= read -r scenario; do
  rel=${scenario#scenarios/}
  key=${rel%.yaml}
  out="$work/$key"
  # A run that trained for real says so in summary.json ("arithmetic" not null); the main set
  # decides, since a timing-only scenario gives the same bytes on any CPU.
  if [ -f "$golden/$key/summary.json" ] && grep -q '"arithmetic": null' "$golden/$key/summary.json"; then
    expected=$golden; trains=0
  else
    expected=$cpu_set; trains=1
  fi
  if [ "$mode" = check ] && { [ -z "$expected" ] || [ ! -f "$expected/$key/summary.json" ]; }; then
    if ! recorded_anywhere "$key"; then
      echo "FAIL $rel: no outputs recorded on any CPU (tests/golden_outputs.sh record)"; failed=1; continue
    fi
    echo "skip $rel: trains for real, no outputs recorded on this CPU"; skipped=$((skipped + 1)); continue
  fi
  # Recording on another CPU leaves the main set's timing-only outputs as they are: checked.
  this_mode=$mode
  if [ "$mode" = record ] && [ "$cpu_set" != "$golden" ] && [ $trains -eq 0 ]; then this_mode=check; fi
  cheaper=()
  for kv in $(awk -v k="$key" '$1 == k { for (i = 2; i <= NF; ++i) print $i }' "$golden/cheaper.txt"); do
    cheaper+=(--set "$kv")
  done
  started=$SECONDS
  if ! "$fedgrid" run "$scenario" --set stop.rounds=2 "${cheaper[@]}" --out "$out" --log-level warn >"$work/log" 2>&1; then
    echo "FAIL $rel: the run failed"; sed 's/^/  /' "$work/log"; failed=1; continue
  fi
  shown=${expected#"$src"/}
  if [ "$this_mode" = record ]; then
    mkdir -p "$expected/$key"
    for f in "${files[@]}"; do
      rm -f "$expected/$key/$f" "$expected/$key/$f.sha256"
      # Files over 1 MB (100,000 hospitals' rows) are kept as their SHA-256 only.
      if [ "$(stat -c %s "$out/$f")" -gt 1000000 ]; then
        (cd "$out" && sha256sum "$f") > "$expected/$key/$f.sha256"
      else
        cp "$out/$f" "$expected/$key/$f"
      fi
    done
    echo "recorded $rel in $shown ($((SECONDS - started)) s)"
    continue
  fi
  failed_here=0
  for f in "${files[@]}"; do
    if [ -f "$expected/$key/$f.sha256" ]; then
      if ! (cd "$out" && sha256sum --quiet -c "$expected/$key/$f.sha256" >/dev/null 2>&1); then
        echo "FAIL $rel: $f differs from the SHA-256 in $shown/$key/$f.sha256"; failed=1; failed_here=1
      fi
    elif ! cmp -s "$expected/$key/$f" "$out/$f"; then
      echo "FAIL $rel: $f differs from $shown/$key/$f"
      diff <(head -c 200000 "$expected/$key/$f") <(head -c 200000 "$out/$f") | head -8 | sed 's/^/  /' || true
      failed=1; failed_here=1
    fi
  done
  [ "$failed_here" -eq 0 ] && echo "ok $rel ($((SECONDS - started)) s)"
done < <(find scenarios -name '*.yaml' -not -path 'scenarios/sweeps/*' -not -name 'medmnist_*' | LC_ALL=C sort |
         grep -E "${GOLDEN_ONLY:-.}")

note=$([ $skipped -gt 0 ] && echo " ($skipped real-training scenarios skipped: no outputs recorded on this CPU)" || true)
if [ "$mode" = check ]; then
  [ $failed -eq 0 ] && echo "golden outputs: all identical$note" || echo "golden outputs: differences found$note"
elif [ $failed -ne 0 ]; then
  echo "golden outputs: recording stopped at differences in the main set's timing-only scenarios"
fi
exit $failed
