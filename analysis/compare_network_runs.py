#!/usr/bin/env python3
"""Compares two runs of one scenario that differ only in timing.network (e.g. cm02 and fluid):
each round's simulated end time (rounds.csv) and each transfer's end time (events.csv, matched
by round, sender, receiver and kind), as relative differences. Prints the largest and stops
with status 1 if it is over --max-rel-error.

usage: analysis/compare_network_runs.py EXACT_DIR FAST_DIR [--max-rel-error 0.005]"""
import argparse
import csv
import sys
from collections import defaultdict


def rel(a, b):
    return abs(a - b) / abs(a) if a else abs(b)


def round_times(run):
    with open(f"{run}/rounds.csv") as f:
        return {int(r["round"]): float(r["sim_time_s"]) for r in csv.DictReader(f)}


def transfer_ends(run):
    """Per (round, host, peer): the end times of its sends, in order (a hospital may send twice)."""
    ends = defaultdict(list)
    with open(f"{run}/events.csv") as f:
        for r in csv.DictReader(f):
            if r["kind"] == "send":
                ends[(r["round"], r["host"], r["peer"])].append(float(r["end_s"]))
    return {k: sorted(v) for k, v in ends.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exact")
    ap.add_argument("fast")
    ap.add_argument("--max-rel-error", type=float, default=0.005)
    a = ap.parse_args()
    ra, rb = round_times(a.exact), round_times(a.fast)
    if ra.keys() != rb.keys():
        sys.exit(f"the runs have different rounds: {sorted(ra)} vs {sorted(rb)}")
    round_err = max(rel(ra[k], rb[k]) for k in ra)
    ea, eb = transfer_ends(a.exact), transfer_ends(a.fast)
    if ea.keys() != eb.keys() or any(len(ea[k]) != len(eb[k]) for k in ea):
        sys.exit("the runs have different transfers")
    worst, where = 0.0, None
    for k in ea:
        for x, y in zip(ea[k], eb[k]):
            if rel(x, y) > worst:
                worst, where = rel(x, y), (k, x, y)
    print(f"rounds: {len(ra)}, largest relative difference of a round's end: {round_err:.3e}")
    print(f"transfers: {sum(len(v) for v in ea.values())}, largest relative difference of an end: {worst:.3e}"
          + (f" (round {where[0][0]} {where[0][1]} -> {where[0][2]}: {where[1]:.9f} vs {where[2]:.9f} s)" if where else ""))
    if max(round_err, worst) > a.max_rel_error:
        sys.exit(f"over the bound {a.max_rel_error}")


if __name__ == "__main__":
    main()
