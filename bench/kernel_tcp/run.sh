#!/usr/bin/env bash
# Kernel-TCP rig: real Linux TCP over a shaped veth link between network
# namespaces.  See README.md.  Must run as root.  Prints CSV on stdout:
#   rate_bps,delay_s,queue_bytes,size_bytes,flows,repeat,flow,seconds
# preceded by '#' comment lines recording the effective kernel settings.
#
# Parameters (flags override env vars of the same name):
#   --rate RATE_BPS        bottleneck rate, bit/s                  (20000000)
#   --queue QUEUE_BYTES    bottleneck buffer (tbf limit), bytes    (RATE_BPS*0.1/8)
#   --delay DELAY_S        one-way delay, seconds, both directions (0)
#   --size SIZE_BYTES      bytes per flow (>=16)                   (2300000)
#   --flows FLOWS          concurrent fresh TCP connections        (1)
#   --repeats REPEATS                                              (3)
#   --burst BURST_BYTES    tbf bucket size                         (3028 = 2 frames)
#   --shape-at SHAPE_AT    sender: tbf on a's veth egress (default)
#                          router: tbf on r's egress towards b (implies relay)
#   --relay RELAY          auto: a-r-b with the delay line only if DELAY_S>0;
#                          1: always a-r-b (DELAY_S may be 0)
#   --cc CC                set tcp_congestion_control in a and b
#                          (default: unset = kernel default, recorded)
#   NOHEADER=1             omit the CSV column line (comments still printed)
set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "must run as root"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rate) RATE_BPS=$2; shift 2;;
    --queue) QUEUE_BYTES=$2; shift 2;;
    --delay) DELAY_S=$2; shift 2;;
    --size) SIZE_BYTES=$2; shift 2;;
    --flows) FLOWS=$2; shift 2;;
    --repeats) REPEATS=$2; shift 2;;
    --burst) BURST_BYTES=$2; shift 2;;
    --shape-at) SHAPE_AT=$2; shift 2;;
    --relay) RELAY=$2; shift 2;;
    --cc) CC=$2; shift 2;;
    -h|--help) sed -n '2,25p' "$0"; exit 0;;
    *) die "unknown argument $1";;
  esac
done

RATE_BPS=$(printf '%.0f' "${RATE_BPS:-20000000}")
QUEUE_BYTES=$(printf '%.0f' "${QUEUE_BYTES:-$(awk -v r="$RATE_BPS" 'BEGIN{printf "%.0f", r*0.1/8}')}")
DELAY_S=${DELAY_S:-0}
SIZE_BYTES=$(printf '%.0f' "${SIZE_BYTES:-2300000}")
FLOWS=${FLOWS:-1}
REPEATS=${REPEATS:-3}
BURST_BYTES=${BURST_BYTES:-3028}
SHAPE_AT=${SHAPE_AT:-sender}
RELAY=${RELAY:-auto}
CC=${CC:-}
DELAY_NS=$(awk -v d="$DELAY_S" 'BEGIN{printf "%.0f", d*1e9}')
(( SIZE_BYTES >= 16 )) || die "SIZE_BYTES must be >= 16"
if [[ $RELAY == auto ]]; then
  if (( DELAY_NS > 0 )) || [[ $SHAPE_AT == router ]]; then RELAY=1; else RELAY=0; fi
fi
[[ $SHAPE_AT == router && $RELAY != 1 ]] && die "--shape-at router needs the relay"

HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$HERE/build
mkdir -p "$BUILD"
for p in fgk_tcp fgk_delay; do
  if [[ ! -x $BUILD/$p || $HERE/$p.c -nt $BUILD/$p ]]; then
    gcc -O2 -Wall -o "$BUILD/$p" "$HERE/$p.c" || die "gcc $p failed"
  fi
done
for pk in ethtool:ethtool ping:iputils-ping; do
  if ! command -v "${pk%%:*}" >/dev/null; then
    echo "run.sh: ${pk%%:*} missing, installing ${pk#*:} with apt-get" >&2
    apt-get install -y "${pk#*:}" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "${pk#*:}" >/dev/null 2>&1; } \
      || die "could not install ${pk#*:}"
  fi
done

# namespace names are fixed: refuse to run beside another run.sh
exec 9>/run/fgk_kernel_tcp.lock
flock -n 9 || die "another run.sh is running (lock /run/fgk_kernel_tcp.lock)"
A=fgk_a; B=fgk_b; R=fgk_r
IP_A=10.77.0.1; IP_B=10.77.0.2; PORT=5201
TMP=$(mktemp -d /tmp/fgk.XXXXXX)
RELAY_PID=

cleanup() {
  if [[ -n $RELAY_PID ]]; then kill -TERM "$RELAY_PID" 2>/dev/null || true; wait "$RELAY_PID" 2>/dev/null || true; RELAY_PID=; fi
  for ns in $A $B $R; do ip netns pids "$ns" 2>/dev/null | while read -r p; do kill -9 "$p" 2>/dev/null || true; done || true; done
  for ns in $A $B $R; do ip netns del "$ns" 2>/dev/null || true; done
}
trap 'cleanup; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
cleanup

for ns in $A $B; do
  ip netns add $ns
  ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n $ns link set lo up
done
if [[ $RELAY == 1 ]]; then
  ip netns add $R
  ip netns exec $R sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip link add veth_a netns $A type veth peer name r_a netns $R
  ip link add veth_b netns $B type veth peer name r_b netns $R
  ENDS="$A:veth_a $B:veth_b $R:r_a $R:r_b"
else
  ip link add veth_a netns $A type veth peer name veth_b netns $B
  ENDS="$A:veth_a $B:veth_b"
fi
for e in $ENDS; do
  ns=${e%%:*}; dev=${e#*:}
  ip -n "$ns" link set "$dev" mtu 1500
  # offloads off; tx checksum off as well so the user-space relay forwards
  # frames with complete checksums (features fixed on veth are skipped).
  for f in tso gso gro lro tx; do ip netns exec "$ns" ethtool -K "$dev" $f off >/dev/null 2>&1 || true; done
done
[[ $RELAY == 1 ]] && { ip -n $R link set r_a promisc on up; ip -n $R link set r_b promisc on up; }
ip -n $A addr add $IP_A/24 dev veth_a; ip -n $A link set veth_a up
ip -n $B addr add $IP_B/24 dev veth_b; ip -n $B link set veth_b up

if [[ -n $CC ]]; then
  for ns in $A $B; do ip netns exec $ns sysctl -qw net.ipv4.tcp_congestion_control="$CC" 2>/dev/null \
    || die "cannot set CC=$CC in a namespace: it must be in the host's net.ipv4.tcp_allowed_congestion_control ($(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control))"; done
fi

# bottleneck: tbf (token bucket, inner bfifo of QUEUE_BYTES) on the a->b egress
if [[ $SHAPE_AT == router ]]; then SH_NS=$R; SH_DEV=r_b; else SH_NS=$A; SH_DEV=veth_a; fi
ip netns exec $SH_NS tc qdisc add dev $SH_DEV root handle 1: tbf rate "${RATE_BPS}bit" burst "$BURST_BYTES" limit "$QUEUE_BYTES"

if [[ $RELAY == 1 ]]; then
  ip netns exec $R "$BUILD/fgk_delay" r_a r_b "$DELAY_NS" "$TMP/relay.stats" &
  RELAY_PID=$!
  sleep 0.3
  kill -0 "$RELAY_PID" 2>/dev/null || die "delay line failed to start"
fi

# ---- header: effective settings -------------------------------------------
hdr() { printf '# %s\n' "$@"; }
hdr "fedgrid bench/kernel_tcp run.sh  date=$(date -Is)  uname -r=$(uname -r)  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')  nproc=$(nproc)"
hdr "params rate_bps=$RATE_BPS queue_bytes=$QUEUE_BYTES delay_s=$DELAY_S size_bytes=$SIZE_BYTES flows=$FLOWS repeats=$REPEATS burst_bytes=$BURST_BYTES shape_at=$SHAPE_AT relay=$RELAY cc_override=${CC:-none}"
if [[ $RELAY == 1 ]]; then
  hdr "topology a(veth_a $IP_A) <-> (r_a) r [user-space delay line fgk_delay, ${DELAY_S}s each way] (r_b) <-> b(veth_b $IP_B); tbf on $SH_NS:$SH_DEV"
else
  hdr "topology a(veth_a $IP_A) <-> b(veth_b $IP_B) single veth pair; tbf on $SH_NS:$SH_DEV; ACK direction unshaped (noqueue)"
fi
for k in net.ipv4.tcp_congestion_control net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_sack net.ipv4.tcp_timestamps \
         net.ipv4.tcp_slow_start_after_idle net.ipv4.tcp_no_metrics_save net.ipv4.tcp_limit_output_bytes net.ipv4.tcp_ecn \
         net.ipv4.tcp_min_tso_segs net.ipv4.tcp_pacing_ss_ratio net.ipv4.tcp_pacing_ca_ratio net.core.rmem_max net.core.wmem_max; do
  hdr "sysctl[a] $k = $(ip netns exec $A sysctl -n $k 2>/dev/null | tr '\t' ' ' || echo n/a)"
done
hdr "sysctl[b] net.ipv4.tcp_congestion_control = $(ip netns exec $B sysctl -n net.ipv4.tcp_congestion_control)"
while read -r l; do hdr "route[a] $l (no initcwnd/initrwnd attribute = kernel default initcwnd 10)"; done < <(ip -n $A route show)
for e in $ENDS; do
  ns=${e%%:*}; dev=${e#*:}
  hdr "link[$ns] $dev mtu $(ip -n "$ns" -o link show "$dev" | sed -n 's/.* mtu \([0-9]*\).*/\1/p') offloads: $(ip netns exec "$ns" ethtool -k "$dev" | grep -E '^(tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload|generic-receive-offload|large-receive-offload):' | tr -s ' ' | tr '\n' ';')"
  while read -r l; do hdr "qdisc[$ns] $l"; done < <(ip netns exec "$ns" tc qdisc show dev "$dev")
done
fq_probe=$(ip netns exec $A tc qdisc add dev lo root fq 2>&1 && echo ok; ip netns exec $A tc qdisc del dev lo root >/dev/null 2>&1 || true)
netem_probe=$(ip netns exec $A tc qdisc add dev lo root netem delay 1ms 2>&1 && echo ok; ip netns exec $A tc qdisc del dev lo root >/dev/null 2>&1 || true)
hdr "probe fq qdisc: $(echo $fq_probe)   netem qdisc: $(echo $netem_probe)"
ip netns exec $A ping -c 2 -i 0.2 -W 1 $IP_B >/dev/null 2>&1 || die "no connectivity a->b"
hdr "ping a->b (20 x 56 B, 50 ms apart): $(ip netns exec $A ping -c 20 -i 0.05 -q $IP_B | tail -1)"
[[ ${NOHEADER:-0} == 1 ]] || echo "rate_bps,delay_s,queue_bytes,size_bytes,flows,repeat,flow,seconds"

qdrops() { ip netns exec $SH_NS tc -s qdisc show dev $SH_DEV | awk '/dropped/{gsub(",","");for(i=1;i<=NF;i++) if($i=="dropped"){print $(i+1); exit}}'; }
qsent() { ip netns exec $SH_NS tc -s qdisc show dev $SH_DEV | awk '/Sent/{print $4; exit}'; }

for ((rep = 1; rep <= REPEATS; rep++)); do
  # fresh connections must not inherit cached ssthresh/rtt from earlier repeats
  ip -n $A tcp_metrics flush all >/dev/null 2>&1 || true
  ip -n $B tcp_metrics flush all >/dev/null 2>&1 || true
  d0=$(qdrops); p0=$(qsent)
  rm -f "$TMP/ready"
  timeout 900 ip netns exec $B "$BUILD/fgk_tcp" recv $PORT "$FLOWS" "$SIZE_BYTES" "$TMP/ready" > "$TMP/recv.out" &
  rpid=$!
  for _ in $(seq 500); do [[ -e $TMP/ready ]] && break; sleep 0.01; done
  [[ -e $TMP/ready ]] || die "receiver did not start"
  ip netns exec $A "$BUILD/fgk_tcp" send $IP_B $PORT "$FLOWS" "$SIZE_BYTES" || die "sender failed"
  wait $rpid || die "receiver failed (rc=$?)"
  d1=$(qdrops); p1=$(qsent)
  while IFS=, read -r f s; do
    echo "$RATE_BPS,$DELAY_S,$QUEUE_BYTES,$SIZE_BYTES,$FLOWS,$rep,$f,$s"
  done < "$TMP/recv.out"
  hdr "repeat=$rep bottleneck_qdisc_drops=$((d1 - d0)) bottleneck_qdisc_pkts=$((p1 - p0))"
  sleep 0.3   # let FIN/ACK exchange and the queue drain before the next repeat
done

if [[ -n $RELAY_PID ]]; then
  kill -TERM "$RELAY_PID"; wait "$RELAY_PID" 2>/dev/null || true; RELAY_PID=
  [[ -f $TMP/relay.stats ]] && cat "$TMP/relay.stats"
fi
