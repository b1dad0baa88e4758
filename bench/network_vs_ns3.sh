#!/usr/bin/env bash
# SimGrid's flow models (default = LV08, cm02, fluid) held against packet-level TCP
# (timing.network: ns3) on the transfer patterns of federated rounds, then compared by
# bench/network/compare_models.py (summary.md, errors.csv, and the picture
# docs/guide/network_vs_ns3.png).
#
# usage: bench/network_vs_ns3.sh [--quick] [--force] [--jobs N] [--out DIR]
#   --quick   a ~2-minute subset (out: results/network_vs_ns3/quick, picture inside it)
#   --force   rerun runs whose raw files already exist (default: keep them, so that an
#             interrupted benchmark resumes where it stopped)
#   --jobs N  processes at once (default 2)
#   --out DIR where the raw files and the summary go (default results/network_vs_ns3)
# Needs build/fedgrid-netbench and build/fedgrid. Full run: ~26 minutes on 2 cores (AMD EPYC).
#
# Raw files: DIR/raw/NAME.csv (netbench's CSV: flow,from,to,bytes,start_s,end_s) and
# DIR/raw/NAME.err (its stderr; the last line holds wall_s, peak_rss_mb, ns3_events); for
# whole federations DIR/raw/NAME.rounds.csv, NAME.events.csv and NAME.time (/usr/bin/time -v).
# DIR/manifest.csv says what each NAME is (family, model, pattern, payload, hosts ...).
#
# Grids (full run). What was cut from the brief's grids, and why: an ns-3 run costs about
# 10 us of wall per ns-3 event, ~16 events per 1448-byte segment, so ~25 s per 230 MB moved
# once several flows share links (a single flow is 2-4x cheaper per byte).
#   one transfer   (pattern up, 1 hospital, server links 100 Gbit/s, 0 latency): payload
#                  1e4 1e5 1e6 2.3e6 1e7 1e8 x link 1e6 1e7 1e8 1e9 1e10 bit/s x one-way
#                  latency 1 5 20 50 200 ms; plus 5e8 B only on 1e6-1e8 bit/s at 5 and 50 ms
#                  (5e8 B at 1e9/1e10 bit/s costs 30-45 s of wall per ns-3 run).
#   burst (up) and broadcast (down): N = 2, 10, 100 x mix (weak = all equal RTTs, the
#                  60/30/10 mix, medium, strong; "equal RTTs" and "weak alone" are the same
#                  hosts, so they are run once) x server 1e9, 1e10 bit/s, 2.3 MB; 23 MB for
#                  N = 2 (all), N = 10 at server 1e9 only; N = 100 x 23 MB is cut (~240 s per
#                  ns-3 run); N = 1000 only the mix at server 1e10 (~240 s per ns-3 run).
#   relay (FedSeq): quickstart's 9 hospitals and 30 of the mix, 2.3 MB, cloud server.
#   peer: 4 and 10 of the mix, 2.3 MB and 23 MB (fluid refuses hospital-to-hospital).
#   federations (fedgrid run, training.mode=timing-only): the quickstart (5 rounds), the
#                  capacity scenario at 100 hospitals (3 rounds) and at 1000 hospitals (3 rounds
#                  under the flow models, 1 round under ns3: a round there costs ~8 minutes of
#                  wall, and timing-only rounds are identical, so later rounds add nothing); at
#                  1000 hospitals the backbone is set to 1 Tbit/s under every model (ns3 needs
#                  it at least every uplink together; the server's links bind, not it).
#                  fluid runs the relay too and its failure is recorded.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

quick=0 force=0 jobs=2 out=""
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --force) force=1 ;;
    --jobs) jobs=$2; shift ;;
    --out) out=$2; shift ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $out ]]; then
  out=results/network_vs_ns3
  ((quick)) && out=results/network_vs_ns3/quick
fi
picture=docs/guide/network_vs_ns3.png
((quick)) && picture=$out/network_vs_ns3.png
netbench=$root/build/fedgrid-netbench
fedgrid=$root/build/fedgrid
for b in "$netbench" "$fedgrid"; do
  for _ in 1 2 3 4 5 6; do [[ -x $b ]] && break; sleep 10; done  # a relink may be under way
  [[ -x $b ]] || { echo "missing $b" >&2; exit 1; }
done
mkdir -p "$out/raw" "$out/runs"
tasks=$out/tasks.txt manifest=$out/manifest.csv
: >"$tasks"
echo "run,family,model,pattern,bytes,server,hospitals,n,mix,server_bps,link_bps,latency_s,rounds" >"$manifest"

models_flow="default cm02 fluid"
# hospitals spec for N hospitals of a mix
hosts() {  # N MIX
  local n=$1 mix=$2
  case $mix in
    weak) echo "$n:20e6:100e6:0.02" ;;
    medium) echo "$n:100e6:500e6:0.01" ;;
    strong) echo "$n:1e9:1e9:0.005" ;;
    quick9) echo "3:20e6:100e6:0.02,3:100e6:500e6:0.01,3:1e9:1e9:0.005" ;;
    mix)
      local w=$((n * 6 / 10)) m=$((n * 3 / 10)) s
      s=$((n - w - m))
      local g=()
      ((w)) && g+=("$w:20e6:100e6:0.02")
      ((m)) && g+=("$m:100e6:500e6:0.01")
      ((s)) && g+=("$s:1e9:1e9:0.005")
      (IFS=,; echo "${g[*]}") ;;
  esac
}
# queue one netbench configuration under every model that applies.
# bench FAMILY PATTERN BYTES SERVER_BPS SERVER_LAT N MIX LINK_BPS LATENCY HOSPITALS
bench() {
  local family=$1 pattern=$2 bytes=$3 sbps=$4 slat=$5 n=$6 mix=$7 link=$8 lat=$9 hs=${10}
  local server="$sbps:$sbps:$slat" cost
  # ns-3 cost estimate (for scheduling the longest first): bytes moved, more per flow
  cost=$(awk -v b="$bytes" -v n="$n" -v p="$pattern" 'BEGIN { f = (p == "relay") ? n + 1 : n; printf "%.0f", b * f / 1e5 * (n > 1 ? 3 : 1) }')
  local m name
  for m in $models_flow ns3; do
    [[ $m == fluid && ($pattern == peer) ]] && continue
    name="${family}__${pattern}_${bytes}B_n${n}_${mix}_s${sbps}_l${link}_lat${lat}__${m}"
    echo "$name,$family,$m,$pattern,$bytes,$server,\"$hs\",$n,$mix,$sbps,$link,$lat," >>"$manifest"
    local c=1
    [[ $m == ns3 ]] && c=$cost
    printf '%s\tnetbench\t%s\t%s %s %s %s %s\n' "$c" "$name" "$m" "$pattern" "$bytes" "$server" "$hs" >>"$tasks"
  done
}
# queue one federation under every model: fedrun NAME N_HOSPITALS ROUNDS NS3_ROUNDS ARGS...
fedrun() {
  local scen=$1 n=$2 rounds=$3 ns3_rounds=$4; shift 4
  local m r name
  for m in $models_flow ns3; do
    r=$rounds
    [[ $m == ns3 ]] && r=$ns3_rounds
    name="fedgrid__${scen}__${m}"
    echo "$name,fedgrid,$m,fedgrid,2328168,10e9:10e9:0.001,$scen,$n,$scen,10e9,,,$r" >>"$manifest"
    local c=$((n * r * 2 * 30)) args=("$@" --set stop.rounds=$r)
    [[ $m != ns3 ]] && c=5
    printf '%s\tfedgrid\t%s\t%s\n' "$c" "$name" "$(printf '%q ' "$m" "${args[@]}")" >>"$tasks"
  done
}

if ((quick)); then
  for b in 1e4 1e6 1e7; do for l in 1e7 1e8; do for lat in 0.005 0.05; do
    bench single up $b 100e9 0 1 single $l $lat "1:$l:$l:$lat"
  done; done; done
  for p in up down; do for n in 2 10; do for mix in weak mix; do
    bench burst $p 2.3e6 1e9 0.001 $n $mix - - "$(hosts $n $mix)"
  done; done; done
  bench relay relay 2.3e6 10e9 0.001 9 quick9 - - "$(hosts 9 quick9)"
  bench peer peer 2.3e6 10e9 0.001 4 mix - - "$(hosts 4 mix)"
  fedrun quickstart 9 5 5
else
  for b in 1e4 1e5 1e6 2.3e6 1e7 1e8 5e8; do for l in 1e6 1e7 1e8 1e9 1e10; do
    for lat in 0.001 0.005 0.02 0.05 0.2; do
      if [[ $b == 5e8 ]]; then
        [[ $l == 1e9 || $l == 1e10 ]] && continue
        [[ $lat == 0.005 || $lat == 0.05 ]] || continue
      fi
      bench single up $b 100e9 0 1 single $l $lat "1:$l:$l:$lat"
    done
  done; done
  for p in up down; do
    for s in 1e9 10e9; do
      for n in 2 10 100; do for mix in weak mix medium strong; do
        bench burst $p 2.3e6 $s 0.001 $n $mix - - "$(hosts $n $mix)"
        bench burst $p 23e6 $s 0.001 2 $mix - - "$(hosts 2 $mix)"
        [[ $s == 1e9 && $n == 10 ]] && bench burst $p 23e6 $s 0.001 10 $mix - - "$(hosts 10 $mix)"
      done; done
    done
    bench burst $p 2.3e6 10e9 0.001 1000 mix - - "$(hosts 1000 mix)"
  done
  bench relay relay 2.3e6 10e9 0.001 9 quick9 - - "$(hosts 9 quick9)"
  bench relay relay 2.3e6 10e9 0.001 30 mix - - "$(hosts 30 mix)"
  for n in 4 10; do for b in 2.3e6 23e6; do
    bench peer peer $b 10e9 0.001 $n mix - - "$(hosts $n mix)"
  done; done
  fedrun quickstart 9 5 5
  for n in 100 1000; do
    w=$((n * 6 / 10)) md=$((n * 3 / 10))
    ns3r=3
    ((n == 1000)) && ns3r=1
    # ns3 refuses a backbone slower than every uplink together (1000 hospitals: 152 Gbit/s > the
    # default 100): 1 Tbit/s there, under every model (it binds under none: the server's links do)
    bb=()
    ((n == 1000)) && bb=(--set platform.backbone.bandwidth_bps=1e12)
    fedrun "capacity$n" $n 3 $ns3r scenarios/capacity_100k.yaml --set timing.cohorts=false "${bb[@]}" \
      --set "platform.hospitals=[{count: $w, tier: weak}, {count: $md, tier: medium}, {count: $((n - w - md)), tier: strong}]"
  done
fi
# the same configuration may have been queued twice (e.g. N = 2 x 23 MB per mix loop): once
awk -F'\t' '!seen[$3]++' "$tasks" | sort -t$'\t' -k1,1 -g -r >"$tasks.sorted"
awk -F, 'NR == 1 || !seen[$1]++' "$manifest" >"$manifest.tmp" && mv "$manifest.tmp" "$manifest"

run_task() {  # COST KIND NAME MODEL ARGS...  (one tab-separated line)
  IFS=$'\t' read -r _ kind name rest <<<"$1"
  local raw=$OUT/raw/$name
  if [[ $kind == netbench ]]; then
    if ((!FORCE)) && [[ -s $raw.csv ]] && grep -q '^wall_s' "$raw.err" 2>/dev/null; then return 0; fi
    local rc try
    for try in $(seq 60); do  # another build may be relinking the binary or its libraries
      # shellcheck disable=SC2086
      "$NETBENCH" $rest >"$raw.csv" 2>"$raw.err"
      rc=$?
      ((rc == 126 || rc == 127)) || ! grep -q 'error while loading shared libraries' "$raw.err" || rc=127
      ((rc == 126 || rc == 127)) || break
      sleep 10
    done
    if ((rc)); then
      echo "FAILED $name (exit $rc): $(grep -m1 -i 'error\|what()\|refuse\|invalid' "$raw.err" | sed 's/.*CRITICAL\] //')" >&2
      echo "FAILED" >>"$raw.err"
    fi
  else
    if ((!FORCE)) && [[ -s $raw.rounds.csv ]]; then return 0; fi
    local args
    eval "args=($rest)"
    local model=${args[0]} dir=$OUT/runs/$name
    local rc try
    for try in $(seq 60); do  # another build may be relinking the binary or its libraries
      rm -rf "$dir"
      /usr/bin/time -v -o "$raw.time" "$FEDGRID" run --overwrite "${args[@]:1}" --set training.mode=timing-only \
        --set "timing.network=$model" --set output.trace=false --log-level warn --out "$dir" >"$raw.log" 2>&1
      rc=$?
      [[ -x $FEDGRID ]] && ! grep -q 'error while loading shared libraries\|Command not found\|Permission denied' \
        "$raw.log" "$raw.time" && break
      sleep 10
    done
    if ((rc == 0)); then
      cp "$dir/rounds.csv" "$raw.rounds.csv"
      awk -F, 'NR == 1 || $4 == "send"' "$dir/events.csv" >"$raw.events.csv"
    else
      echo "FAILED $name: $(tail -n 3 "$raw.log")" >&2
    fi
  fi
  echo "done $name" >&2
}
export -f run_task
export OUT=$out FORCE=$force NETBENCH=$netbench FEDGRID=$fedgrid
total=$(wc -l <"$tasks.sorted")
echo "$total runs, $jobs at a time, raw files in $out/raw" >&2
binaries() { sha256sum "$netbench" "$fedgrid" "$root"/build/libfedgrid_network.so "$root"/build/libfedgrid_engine.so 2>&1; }
{ echo "# before the runs, $(date -u)"; binaries; } >"$out/binaries.txt"
start=$(date +%s)
tr '\n' '\0' <"$tasks.sorted" | xargs -0 -P "$jobs" -I{} bash -c 'run_task "$1"' _ {} 2>&1 |
  awk -v t="$total" '/^done/ { n++; if (n % 20 == 0 || n == t) printf "  %d/%d runs\n", n, t; fflush(); next } { print; fflush() }' >&2
echo "runs took $(($(date +%s) - start)) s" >&2
{ echo "# after the runs, $(date -u)"; binaries; } >>"$out/binaries.txt"
if ! diff <(sed -n '2,5p' "$out/binaries.txt") <(sed -n '7,10p' "$out/binaries.txt") >/dev/null; then
  echo "WARNING: the binaries changed during the runs (another build?): see $out/binaries.txt" >&2
fi
/usr/bin/python3 bench/network/compare_models.py "$out" --picture "$picture"
