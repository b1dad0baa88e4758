#!/usr/bin/env python3
"""Can LV08's constant factors be refitted to packet-level TCP? Reruns bench/network_vs_ns3.sh's
LV08 runs (one transfer, bursts and broadcasts) with other SimGrid factors and scores each set
against the ns3 runs already in DIR/raw.

    bench/network/fit_lv08.py [DIR] [BUILD] > fit.md      (DIR: results/network_vs_ns3)

Each candidate is a SimGrid setting string (NETBENCH_SIMGRID_CFG, one setting: the latency factor,
LV08's 13.01 first). Scores: a round's duration (the last transfer's end) over the bursts and
broadcasts of payloads >= 1 MB, the issue's aim; one transfer alone, >= 1 MB and < 1 MB.
Cells: signed median / max |error| against ns3."""
import csv
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CANDIDATES = ["network/latency-factor:13.01", "network/latency-factor:10", "network/latency-factor:8",
              "network/latency-factor:6", "network/latency-factor:4", "network/latency-factor:2"]


def durations(text):
    rows = list(csv.DictReader(text.splitlines()))
    return {(r["from"], r["to"]): float(r["end_s"]) - float(r["start_s"]) for r in rows}, \
        max(float(r["end_s"]) for r in rows)


def run(build, row, cfg):
    env = dict(os.environ, NETBENCH_SIMGRID_CFG=cfg)
    cmd = [os.path.join(build, "fedgrid-netbench"), "default", row["pattern"], row["bytes"], row["server"], row["hospitals"]]
    return durations(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout)


def cell(errors):
    return f"{statistics.median(errors) * 100:+.1f}% / {max(abs(e) for e in errors) * 100:.1f}% ({len(errors)})"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/network_vs_ns3"
    build = sys.argv[2] if len(sys.argv) > 2 else "build"
    rows = [r for r in csv.DictReader(open(os.path.join(out, "manifest.csv")))
            if r["model"] == "default" and r["family"] in ("single", "burst")]
    reference = {}
    for r in rows:
        path = os.path.join(out, "raw", r["run"].rsplit("__", 1)[0] + "__ns3.csv")
        with open(path) as f:
            reference[r["run"]] = durations(f.read())
    print("| LV08 with | rounds of bursts and broadcasts >= 1 MB | one transfer >= 1 MB | one transfer < 1 MB |")
    print("|---|---|---|---|")
    for cfg in CANDIDATES:
        with ThreadPoolExecutor(2) as pool:
            results = dict(zip((r["run"] for r in rows), pool.map(lambda r: run(build, r, cfg), rows)))
        rounds, big, small = [], [], []
        for r in rows:
            (model, model_end), (ns3, ns3_end) = results[r["run"]], reference[r["run"]]
            if r["family"] == "burst" and float(r["bytes"]) >= 1e6:
                rounds.append((model_end - ns3_end) / ns3_end)
            if r["family"] == "single":
                for pair, d in ns3.items():
                    (big if float(r["bytes"]) >= 1e6 else small).append((model[pair] - d) / d)
        print(f"| `{cfg}` | {cell(rounds)} | {cell(big)} | {cell(small)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
