#!/usr/bin/env python3
"""ns3 (fedgrid's packet-level model) against the kernel's TCP on the same shaped link.

    bench/kernel_tcp/compare_ns3.py KERNEL.csv NS3_CONGESTION [BUILD_DIR] > table.md

For every configuration of KERNEL.csv (run.sh's output: rate, one-way delay, queue, size, flows),
runs build/fedgrid-netbench under ns3 on the same link: FLOWS fresh connections at once from one
host through its uplink at RATE (queue RATE x 0.1 s, as run.sh's tbf), the reverse direction
unshaped (10 Gbit/s), DELAY each way (0: 25 us, the veth pair's own). Prints a markdown table:
the kernel's and ns3's median flow and last flow (medians over the kernel's repeats) and ns3's
error against the kernel.
"""
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def kernel_runs(path):
    """(rate, delay, size, flows) -> [(median flow s, last flow s) per repeat]."""
    flows = defaultdict(list)
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#") and line.strip())
                if r["rate_bps"] != "rate_bps"]
    for r in rows:
        key = (float(r["rate_bps"]), float(r["delay_s"]), int(r["size_bytes"]), int(r["flows"]))
        flows[key + (int(r["repeat"]),)].append(float(r["seconds"]))
    out = defaultdict(list)
    for key, seconds in flows.items():
        out[key[:4]].append((statistics.median(seconds), max(seconds)))
    return out


def ns3_run(build, congestion, rate, delay, size, flows):
    env = dict(os.environ, NETBENCH_CONGESTION=congestion)
    one_way = delay if delay > 0 else 25e-6
    cmd = [os.path.join(build, "fedgrid-netbench"), "ns3", "same", str(size), "10e9:10e9:0",
           f"{flows}:{rate!r}:10e9:{one_way!r}"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    seconds = [float(r["end_s"]) - float(r["start_s"]) for r in csv.DictReader(out.splitlines())]
    return statistics.median(seconds), max(seconds)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    kernel, congestion = sys.argv[1], sys.argv[2]
    build = sys.argv[3] if len(sys.argv) > 3 else "build"
    print(f"| Mbit/s | one-way ms | size | flows | kernel median flow s | ns3 ({congestion}) | error | kernel last flow s | ns3 | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    errors = []
    for (rate, delay, size, flows), repeats in sorted(kernel_runs(kernel).items()):
        k_med = statistics.median(m for m, _ in repeats)
        k_last = statistics.median(x for _, x in repeats)
        n_med, n_last = ns3_run(build, congestion, rate, delay, size, flows)
        e_med, e_last = (n_med - k_med) / k_med * 100, (n_last - k_last) / k_last * 100
        errors.append((size, flows, e_med, e_last))
        print(f"| {rate / 1e6:g} | {delay * 1e3:g} | {size:,} | {flows} | {k_med:.4f} | {n_med:.4f} | {e_med:+.1f}% "
              f"| {k_last:.4f} | {n_last:.4f} | {e_last:+.1f}% |")
    big = [abs(e) for s, _, e, x in errors for e in (e, x) if s >= 1e6]
    small = [abs(e) for s, _, e, x in errors for e in (e, x) if s < 1e6]
    print()
    for name, v in (("payloads >= 1 MB", big), ("payloads < 1 MB", small)):
        if v:
            print(f"- {name}: median |error| {statistics.median(v):.1f}%, max {max(v):.1f}% ({len(v)} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
