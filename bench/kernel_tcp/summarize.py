#!/usr/bin/python3
"""Summarise a run.sh/grid.sh CSV into a markdown table.

Per configuration: median over repeats of the per-repeat median flow time and
of the per-repeat max flow time (identical for 1 flow), min/max over all flows,
and 'wire_s' = flows*(size + 66*ceil(size/1448))*8/rate, the time the
bottleneck needs to serialise the data frames alone (MSS 1448 with TCP
timestamps, 66 bytes of Ethernet+IP+TCP headers per frame as tbf counts them;
handshake, SYN/FIN and the tbf burst not included).
usage: summarize.py results.csv
"""
import csv, math, statistics, sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(list))
for r in csv.reader(l for l in open(sys.argv[1]) if l.strip() and not l.startswith('#')):
    if r[0] == 'rate_bps':
        continue
    rate, delay, q, size, flows, rep, flow, sec = r
    rows[(float(rate), float(delay), int(q), int(size), int(flows))][int(rep)].append(float(sec))

print('| rate Mbit/s | one-way delay ms | queue B | size B | flows | repeats | wire_s | median s (median flow) | median s (max flow) | min..max all flows s |')
print('|---|---|---|---|---|---|---|---|---|---|')
for k in sorted(rows, key=lambda k: (k[1], k[0], k[3], k[4])):
    rate, delay, q, size, flows = k
    reps = rows[k]
    med = statistics.median(statistics.median(v) for v in reps.values())
    mx = statistics.median(max(v) for v in reps.values())
    allv = [x for v in reps.values() for x in v]
    wire = flows * (size + 66 * math.ceil(size / 1448)) * 8 / rate
    print(f'| {rate/1e6:g} | {delay*1e3:g} | {q} | {size} | {flows} | {len(reps)} | {wire:.4f} | {med:.4f} | {mx:.4f} | {min(allv):.4f}..{max(allv):.4f} |')
