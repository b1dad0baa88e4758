#!/usr/bin/env python3
"""The house plan of one folder of sim/ (docs/developer/architecture.md, Layout):
rooms (a .hpp/.cpp stem), arrows (room A includes room B's header, or A's source defines a
member of a class B's header declares), floors (each cycle taken as one room, the longest
chain of arrows down to a room with none, plus one) and arrows back up (arrows inside a cycle:
two rooms that each need the other).

  scripts/house_plan.py sim/engine           the counts and every arrow back up
  scripts/house_plan.py sim/engine floors    also each floor's rooms
"""
import os, re, sys, collections
folder = sys.argv[1]
rooms = sorted({os.path.relpath(os.path.join(d, os.path.splitext(f)[0]), folder)
                for d, _, fs in os.walk(folder) for f in fs if f.endswith(('.cpp', '.hpp'))})
text = {r: '' for r in rooms}
for r in rooms:
    for ext in ('.hpp', '.cpp'):
        p = os.path.join(folder, r + ext)
        if os.path.exists(p): text[r] += open(p).read()
prefix = folder.rstrip('/') + '/'
classes = {}
for r in rooms:
    p = os.path.join(folder, r + '.hpp')
    if os.path.exists(p):
        for m in re.finditer(r'^(?:class|struct)\s+(\w+)\s*(?:final)?\s*[:{]', open(p).read(), re.M):
            classes.setdefault(m.group(1), r)
edges = collections.defaultdict(set)
for r in rooms:
    for m in re.finditer(r'#include "([^"]+)\.hpp"', text[r]):
        inc = m.group(1)
        if inc.startswith(prefix):
            b = inc[len(prefix):]
            if b in text and b != r: edges[r].add(b)
    cpp = os.path.join(folder, r + '.cpp')
    if os.path.exists(cpp):
        for m in re.finditer(r'\b(\w+)::~?\w+\s*\(', open(cpp).read()):
            b = classes.get(m.group(1))
            if b and b != r: edges[r].add(b)
# Tarjan
index, low, stack, on, sccs, comp = {}, {}, [], set(), [], {}
def strong(v):
    index[v] = low[v] = len(index); stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index: strong(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        s = []
        while True:
            w = stack.pop(); on.discard(w); s.append(w)
            if w == v: break
        for w in s: comp[w] = len(sccs)
        sccs.append(s)
sys.setrecursionlimit(10000)
for r in rooms:
    if r not in index: strong(r)
floor = {}
def fl(c):
    if c in floor: return floor[c]
    below = {comp[w] for v in sccs[c] for w in edges[v] if comp[w] != c}
    floor[c] = 1 + max((fl(d) for d in below), default=0)
    return floor[c]
for c in range(len(sccs)): fl(c)
arrows = sum(len(e) for e in edges.values())
back = [(v, w) for v in rooms for w in edges[v] if comp[v] == comp[w]]
print(f"{folder}: {len(rooms)} rooms on {max(floor.values())} floors, {arrows} arrows, {len(back)} back up")
for v, w in sorted(back): print(f"  {v} -> {w}")
if len(sys.argv) > 2:
    by = collections.defaultdict(list)
    for c, s in enumerate(sccs): by[floor[c]] += s
    for f in sorted(by): print(f, sorted(by[f]))
