#!/usr/bin/python3
"""SimGrid's flow models (default = LV08, cm02, fluid) against packet-level TCP (ns3).

Reads what bench/network_vs_ns3.sh left in OUT (manifest.csv, raw/) and writes
OUT/summary.md, OUT/errors.csv (one row per compared quantity) and the picture of one-transfer
errors (--picture, default docs/guide/network_vs_ns3.png).

usage: compare_models.py OUT [--picture PATH]

Relative error = (model - ns3) / ns3 of a duration. Quantities:
  transfer  each transfer's duration (end - start), matched between models by (from, to)
            (netbench) or (round, from, to) (whole federations);
  round     netbench: the time the last transfer ends (bursts, broadcasts, relay, peer posts;
            the single transfers are only "transfer" rows); federations: each round's duration
            (difference of consecutive sim_time_s).
Regimes: short (< 1 MB) / long; RTT (2 x the route's one-way latency; for a round, that of the
transfer that ends last under ns3) < 20 ms / >= 20 ms; concurrent flows <= 10 / > 10.
"""
import argparse
import itertools
import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.stats

MODELS = ["default", "cm02", "fluid"]
TIERS = {  # platforms/tiers.yaml: uplink, downlink bit/s, one-way latency s
    "weak": (20e6, 100e6, 0.020),
    "medium": (100e6, 500e6, 0.010),
    "strong": (1e9, 1e9, 0.005),
    "cloud": (10e9, 10e9, 0.001),
}
MIX_ORDER = {"strong": 0, "medium": 1, "mix": 2, "weak": 3, "quick9": 4, "single": 5}


def parse_hosts(server, hospitals):
    """Host name -> (up bps, down bps, one-way latency s) for netbench's specs."""
    s = [float(x) for x in server.split(":")]
    out = {"server": (s[0], s[1], s[2])}
    i = 0
    for g in hospitals.split(","):
        c, up, down, lat = g.split(":")
        for _ in range(int(float(c))):
            out[f"h{i}"] = (float(up), float(down), float(lat))
            i += 1
    return out


def fedgrid_host(name):
    if name == "server":
        return TIERS["cloud"]
    return TIERS[re.sub(r"[-_0-9]+$", "", name)]


def read_err(path):
    """netbench's stderr: (ok, wall_s, peak_rss_mb, ns3_events, message)."""
    if not path.exists():
        return False, np.nan, np.nan, np.nan, "missing"
    text = path.read_text(errors="replace")
    m = re.search(r"^wall_s (\S+) peak_rss_mb (\S+) ns3_events (\S+)", text, re.M)
    if m and "FAILED" not in text:
        return True, float(m[1]), float(m[2]), float(m[3]), ""
    msg = re.search(r"Uncaught exception (.*)", text) or re.search(r"(Segmentation fault|Aborted)", text)
    return False, np.nan, np.nan, np.nan, (msg[1] if msg else "failed").strip()


def read_time(path):
    """/usr/bin/time -v: (wall s, max RSS MB)."""
    if not path.exists():
        return np.nan, np.nan
    t = path.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", t)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", t)
    secs = np.nan
    if wall:
        parts = [float(x) for x in wall[1].split(":")]
        secs = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    return secs, (int(rss[1]) / 1024 if rss else np.nan)


def load(out):
    man = pd.read_csv(out / "manifest.csv", dtype=str, keep_default_na=False)
    man["config"] = man["run"].str.rsplit("__", n=1).str[0]
    transfers, rounds, runs = [], [], []
    for r in man.itertuples():
        raw = out / "raw" / r.run
        info = dict(run=r.run, config=r.config, family=r.family, model=r.model, pattern=r.pattern,
                    bytes=float(r.bytes), n=int(r.n), mix=r.mix, server_bps=float(r.server_bps),
                    link_bps=float(r.link_bps) if r.link_bps not in ("", "-") else np.nan,
                    latency_s=float(r.latency_s) if r.latency_s not in ("", "-") else np.nan)
        if r.family == "fedgrid":
            wall, rss = read_time(Path(f"{raw}.time"))
            ok = (out / "raw" / f"{r.run}.rounds.csv").exists()
            runs.append(dict(info, ok=ok, wall_s=wall, peak_rss_mb=rss, ns3_events=np.nan,
                             message="" if ok else "failed", rounds_run=int(r.rounds)))
            if not ok:
                continue
            rc = pd.read_csv(out / "raw" / f"{r.run}.rounds.csv")
            rc["duration"] = rc["sim_time_s"].diff().fillna(rc["sim_time_s"])
            ev = pd.read_csv(out / "raw" / f"{r.run}.events.csv")
            ev = ev[ev["kind"] == "send"]
            for e in ev.itertuples():
                a, b = fedgrid_host(e.host), fedgrid_host(e.peer)
                transfers.append(dict(info, key=f"r{e.round}:{e.host}>{e.peer}", round=e.round, src=e.host,
                                      dst=e.peer, start=e.start_s, end=e.end_s, duration=e.end_s - e.start_s,
                                      rtt_s=2 * (a[2] + b[2]), rate_bound=min(a[0], b[1]), lat_s=a[2] + b[2],
                                      size=e.bytes))
            for x in rc.itertuples():
                last = ev[ev["round"] == x.round]
                rounds.append(dict(info, key=f"r{x.round}", round=x.round, duration=x.duration, end_host=None,
                                   last=last.sort_values("end_s").iloc[-1][["host", "peer"]].tolist()
                                   if len(last) else None))
            continue
        ok, wall, rss, events, msg = read_err(Path(f"{raw}.err"))
        runs.append(dict(info, ok=ok, wall_s=wall, peak_rss_mb=rss, ns3_events=events, message=msg, rounds_run=1))
        if not ok:
            continue
        df = pd.read_csv(Path(f"{raw}.csv"))
        hosts = parse_hosts(r.server, r.hospitals)
        for t in df.itertuples():
            a, b = hosts[t.__getattribute__("_2")], hosts[t.to]  # columns: flow, from, to, ...
            transfers.append(dict(info, key=f"{t._2}>{t.to}", round=1, src=t._2, dst=t.to, start=t.start_s,
                                  end=t.end_s, duration=t.end_s - t.start_s, rtt_s=2 * (a[2] + b[2]),
                                  rate_bound=min(a[0], b[1]), lat_s=a[2] + b[2], size=t.bytes))
        if r.family != "single":
            lastrow = df.sort_values("end_s").iloc[-1]
            rounds.append(dict(info, key="round", round=1, duration=df["end_s"].max() - df["start_s"].min(),
                               last=[lastrow["from"], lastrow["to"]]))
    return man, pd.DataFrame(transfers), pd.DataFrame(rounds), pd.DataFrame(runs)


def compare(df, quantity):
    """Join every model's value with ns3's on (config, key)."""
    ns3 = df[df.model == "ns3"].set_index(["config", "key"])
    rows = []
    for m in MODELS:
        mod = df[df.model == m].set_index(["config", "key"])
        j = mod.join(ns3[["duration"] + (["rtt_s"] if "rtt_s" in ns3 else []) +
                         (["last"] if "last" in ns3 else [])], rsuffix="_ns3", how="inner")
        j = j.reset_index()
        j["model"] = m
        rows.append(j)
    c = pd.concat(rows, ignore_index=True)
    c = c.rename(columns={"duration": "model_s", "duration_ns3": "ns3_s"})
    c["quantity"] = quantity
    c["rel_err"] = (c["model_s"] - c["ns3_s"]) / c["ns3_s"]
    return c


def pct(x):
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.1f}%"


def stats_row(d):
    if len(d) == 0:
        return "–"
    e = d["rel_err"]
    return f"{pct(e.median())} / {100 * e.abs().max():.1f}% ({len(d)})"


def table(c, groups, title_col="regime"):
    """Markdown: one row per (label, mask), one column per model: median / max|err| (count)."""
    lines = [f"| {title_col} | " + " | ".join(MODELS) + " |", "|---|" + "---|" * len(MODELS)]
    for label, mask in groups:
        cells = [stats_row(c[mask & (c.model == m)]) for m in MODELS]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def regimes(c):
    return [
        ("all", c.model.notna()),
        ("short (< 1 MB)", c["bytes"] < 1e6),
        ("long (>= 1 MB)", c["bytes"] >= 1e6),
        ("low RTT (< 20 ms)", c["rtt"] < 0.02 - 1e-12),
        ("high RTT (>= 20 ms)", c["rtt"] >= 0.02 - 1e-12),
        ("few flows (<= 10)", c["conc"] <= 10),
        ("many flows (> 10)", c["conc"] > 10),
    ]


TIE = 0.01  # durations within 1% of each other count as a tie in the ordering


def order(x, y):
    return 0 if abs(x - y) <= TIE * max(x, y) else (1 if x > y else -1)


def ranking(rounds_cmp, family_defs):
    """For each family: groups of configurations that differ in one thing; pairs ordered alike."""
    lines = ["| family (varies) | groups | pairs | " + " | ".join(f"{m}: same order / mean tau" for m in MODELS) + " |",
             "|---|---|---|" + "---|" * len(MODELS)]
    rows = []
    for fam, sel, keys, vary in family_defs:
        cells, ngroups, npairs = [], 0, 0
        for m in MODELS:
            d = rounds_cmp[sel(rounds_cmp) & (rounds_cmp.model == m)]
            same = total = 0
            taus = []
            ng = 0
            for _, g in d.groupby(keys if len(keys) > 1 else keys[0], dropna=False):
                g = g.drop_duplicates(vary)
                if len(g) < 2:
                    continue
                ng += 1
                a, b = g["model_s"].to_numpy(), g["ns3_s"].to_numpy()
                conc = disc = ta = tb = 0
                for i, j in itertools.combinations(range(len(g)), 2):
                    sa, sb = order(a[i], a[j]), order(b[i], b[j])
                    same += sa == sb
                    total += 1
                    ta += sa == 0
                    tb += sb == 0
                    conc += sa * sb > 0
                    disc += sa * sb < 0
                pairs = len(g) * (len(g) - 1) // 2
                if pairs > ta and pairs > tb:  # tau-b with ties by the same tolerance
                    taus.append((conc - disc) / math.sqrt((pairs - ta) * (pairs - tb)))
            ngroups, npairs = max(ngroups, ng), max(npairs, total)
            tau = f"{np.mean(taus):+.2f}" if taus else "n/a"
            cells.append(f"{100 * same / total:.0f}% / {tau}" if total else "–")
            rows.append(dict(family=fam, model=m, groups=ng, pairs=total, same_order=same / total if total else np.nan,
                             mean_tau=np.mean(taus) if taus else np.nan))
        lines.append(f"| {fam} | {ngroups} | {npairs} | " + " | ".join(cells) + " |")
    return "\n".join(lines), pd.DataFrame(rows)


def picture(single, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    payloads = sorted(single["bytes"].unique())
    rows = sorted(single[["latency_s", "link_bps"]].drop_duplicates().itertuples(index=False))
    le = np.log10(payloads)
    mids = (le[1:] + le[:-1]) / 2
    xedges = 10 ** np.concatenate([[le[0] - (mids[0] - le[0])], mids, [le[-1] + (le[-1] - mids[-1])]])
    vmax = 1.0  # symmetric: +-100%; larger errors saturate (the cell text gives them)
    norm = TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=vmax)
    fig, axes = plt.subplots(1, len(MODELS), figsize=(19, 10), sharey=True, constrained_layout=True)
    for ax, m in zip(axes, MODELS):
        d = single[single.model == m]
        grid = np.full((len(rows), len(payloads)), np.nan)
        for r in d.itertuples():
            grid[rows.index((r.latency_s, r.link_bps)), payloads.index(r.bytes)] = r.rel_err
        ax.set_facecolor("#d0d0d0")
        mesh = ax.pcolormesh(xedges, np.arange(len(rows) + 1), np.ma.masked_invalid(grid), cmap="RdBu_r",
                             norm=norm, edgecolors="white", linewidth=0.4)
        for i, j in zip(*np.where(~np.isnan(grid))):
            v = grid[i, j]
            ax.text(math.sqrt(xedges[j] * xedges[j + 1]), i + 0.5, f"{100 * v:+.0f}", ha="center", va="center",
                    fontsize=7, color="white" if abs(norm(v) - 0.5) > 0.33 else "black")
        for k in range(1, len(rows)):
            if rows[k][0] != rows[k - 1][0]:
                ax.axhline(k, color="black", linewidth=1.2)
        ax.set_xscale("log")
        ax.set_xticks(payloads)
        ax.set_xticklabels([f"{p:.3g}" for p in payloads], rotation=45, fontsize=9)
        ax.minorticks_off()
        ax.set_xlabel("payload (bytes, log scale)", fontsize=11)
        ax.set_title(f"{m} vs ns3", fontsize=13)
    axes[0].set_yticks(np.arange(len(rows)) + 0.5)
    axes[0].set_yticklabels([f"RTT {2000 * lat:g} ms, {bw / 1e6:g} Mbit/s" for lat, bw in rows], fontsize=8)
    axes[0].set_ylabel("route: round-trip time, link bandwidth", fontsize=11)
    cb = fig.colorbar(mesh, ax=axes, shrink=0.6, extend="max" if single["rel_err"].max() > vmax else "neither")
    cb.set_label("relative error of the transfer's duration, (model - ns3) / ns3", fontsize=11)
    fig.suptitle("One transfer, one hospital uploading over its own link: flow models against packet-level TCP "
                 "(ns-3, CUBIC)\ncell text: error in %; grey: not run (ns-3 too long) or ns-3 failed", fontsize=13)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--picture", type=Path, default=Path("docs/guide/network_vs_ns3.png"))
    a = ap.parse_args()
    out = a.out
    man, tr, rd, runs = load(out)
    tc = compare(tr, "transfer")
    rc = compare(rd, "round")
    for c in (tc, rc):
        c["conc"] = np.where(c["pattern"].isin(["up", "down", "peer", "fedgrid"]), c["n"], 1)
    tc["rtt"] = tc["rtt_s_ns3"]
    # a round's RTT: that of the transfer that ends last under ns3
    lat = {}
    for t in tr[tr.model == "ns3"].itertuples():
        lat[(t.config, t.src, t.dst, t.round)] = t.rtt_s
    rc["rtt"] = [lat.get((r.config, r.last_ns3[0], r.last_ns3[1], r.round), np.nan)
                 if isinstance(r.last_ns3, list) else np.nan for r in rc.itertuples()]
    cols = ["quantity", "family", "config", "pattern", "model", "key", "round", "bytes", "n", "mix", "server_bps",
            "link_bps", "latency_s", "rtt", "conc", "ns3_s", "model_s", "rel_err"]
    errors = pd.concat([tc[cols], rc[cols]], ignore_index=True)
    errors.to_csv(out / "errors.csv", index=False, float_format="%.9g")

    md = ["# Flow models against packet-level TCP (ns-3)", "",
          "Produced by `bench/network_vs_ns3.sh` (raw files in `raw/`, every compared quantity in `errors.csv`).",
          "Relative error = (model - ns3) / ns3 of a duration. Cells: **signed median / max |error| (count)**.", ""]
    # runs
    ok = runs.groupby("model")["ok"].agg(["sum", "count"])
    md += ["## Runs", "", "| model | runs ok / queued |", "|---|---|"]
    md += [f"| {m} | {int(ok.loc[m, 'sum'])} / {int(ok.loc[m, 'count'])} |" for m in ok.index]
    failed = runs[~runs.ok]
    if len(failed):
        md += ["", "Failed runs (left out of every comparison):", ""]
        for f in failed.itertuples():
            md.append(f"- `{f.run}`: {f.message}")
    # sanity of ns3: no transfer faster than bytes / bottleneck rate + one-way latency
    n3 = tr[tr.model == "ns3"].copy()
    n3["floor"] = n3["size"] * 8 / n3["rate_bound"] + n3["lat_s"]
    n3["floor_bw"] = n3["size"] * 8 / n3["rate_bound"]
    fast = n3[n3["duration"] < n3["floor"] * (1 - 1e-9)]
    fast_bw = n3[n3["duration"] < n3["floor_bw"] * (1 - 1e-9)]
    md += ["", "## Sanity of the ns3 runs", "",
           f"- {len(n3)} ns3 transfers; faster than size / bottleneck bandwidth: **{len(fast_bw)}**; faster than "
           f"size / bottleneck bandwidth + one-way latency (cm02's lone-flow time): **{len(fast)}**."]
    if len(fast):
        worst = fast.assign(r=fast["duration"] / fast["floor"]).sort_values("r").head(5)
        for w in worst.itertuples():
            md.append(f"  - `{w.config}` {w.src}->{w.dst}: {w.duration:.6f} s < {w.floor:.6f} s")
    # aggregate bursts: a burst up ends no sooner than total bytes / server downlink
    b3 = rd[(rd.model == "ns3") & rd.pattern.isin(["up", "down"])]
    slow = 0
    for b in b3.itertuples():
        floor = b.bytes * b.n * 8 / b.server_bps
        slow += b.duration < floor * (1 - 1e-9)
    md.append(f"- bursts/broadcasts ending before N x size / server bandwidth: **{slow}** of {len(b3)}.")
    nb = tr[tr.family != "fedgrid"].groupby(["run", "pattern", "n"]).size().reset_index(name="rows")
    nb["expected"] = np.where(nb.pattern == "relay", nb.n + 1, nb.n)
    short_runs = nb[nb.rows != nb.expected]
    md.append(f"- netbench runs with a transfer missing from their CSV: **{len(short_runs)}** of {len(nb)}"
              + (": " + ", ".join(f"`{r}`" for r in short_runs.run) if len(short_runs) else "."))
    single = tc[tc.family == "single"]
    md.append(f"- one-transfer ns3 durations over cm02's (latency + size/bandwidth): min ratio "
              f"{(single[single.model == 'cm02'].eval('ns3_s / model_s')).min():.3f}.")

    md += ["", "## Errors by regime", "", "### Each transfer's duration", "", table(tc, regimes(tc)), "",
           "### Each round's duration (bursts, broadcasts, relays, peer posts: until the last transfer ends; "
           "federations: each round)", "", table(rc, regimes(rc)), ""]
    aim_t = tc[(tc.family == "burst") & (tc["bytes"] >= 1e6)]
    aim_r = rc[(rc.family == "burst") & (rc["bytes"] >= 1e6)]
    md += ["## The aim: bursts (up) and broadcasts (down) with payloads >= 1 MB", "",
           table(pd.concat([aim_t, aim_r], ignore_index=True), [
               ("round, all", lambda_mask(aim_t, aim_r, "round", None)),
               ("round, burst up", lambda_mask(aim_t, aim_r, "round", "up")),
               ("round, broadcast down", lambda_mask(aim_t, aim_r, "round", "down")),
               ("transfer, all", lambda_mask(aim_t, aim_r, "transfer", None)),
               ("transfer, burst up", lambda_mask(aim_t, aim_r, "transfer", "up")),
               ("transfer, broadcast down", lambda_mask(aim_t, aim_r, "transfer", "down")),
           ], "quantity"), ""]
    aim = pd.concat([aim_t, aim_r], ignore_index=True)
    groups = []
    for q in ("round",):
        for p in ("up", "down"):
            for n in sorted(aim.n.unique()):
                for mix in sorted(aim.mix.unique(), key=lambda x: MIX_ORDER.get(x, 9)):
                    mask = (aim.quantity == q) & (aim.pattern == p) & (aim.n == n) & (aim.mix == mix)
                    if mask.any():
                        groups.append((f"{p} N={n} {mix}", mask))
    md += ["Round (last transfer's end) by direction, N and mix (all payloads >= 1 MB and both server "
           "bandwidths pooled):", "", table(aim, groups, "burst"), ""]
    # by family
    allc = pd.concat([tc, rc], ignore_index=True)
    fams = []
    for q in ("transfer", "round"):
        for fam, sel in [("single transfer", allc.family == "single"),
                         ("burst up", (allc.family == "burst") & (allc.pattern == "up")),
                         ("broadcast down", (allc.family == "burst") & (allc.pattern == "down")),
                         ("relay (FedSeq)", allc.family == "relay"), ("peer posts", allc.family == "peer")] + \
                        [(f"fedgrid run {s}", (allc.family == "fedgrid") & (allc.mix == s))
                         for s in ("quickstart", "capacity100", "capacity1000")]:
            mask = (allc.quantity == q) & sel
            if mask.any():
                fams.append((f"{q}: {fam}", mask))
    md += ["## By family", "", table(allc, fams, "quantity: family"), ""]
    # federations round by round
    fr = rc[rc.family == "fedgrid"]
    if len(fr):
        md += ["### Federations, round by round (timing-only; round duration in s, ns3 and each model's error)", "",
               "| scenario | round | ns3 s | " + " | ".join(MODELS) + " |", "|---|---|---|" + "---|" * len(MODELS)]
        for (s, r), g in fr.groupby(["mix", "round"]):
            cells = [pct(g[g.model == m]["rel_err"].iloc[0]) if (g.model == m).any() else "–" for m in MODELS]
            md.append(f"| {s} | {r} | {g['ns3_s'].iloc[0]:.3f} | " + " | ".join(cells) + " |")
        md.append("")
    # worst cases
    md += ["## Largest errors (per model, top 5 by |error|)", ""]
    for m in MODELS:
        w = allc[allc.model == m].reindex(allc[allc.model == m]["rel_err"].abs().sort_values(ascending=False).index)
        md.append(f"- **{m}**: " + "; ".join(f"{r.quantity} `{r.config}` {r.key}: ns3 {r.ns3_s:.4g} s, "
                                           f"{m} {r.model_s:.4g} s ({pct(r.rel_err)})" for r in w.head(5).itertuples()))
    md.append("")
    # ranking
    bu = lambda c: c.family == "burst"
    fam_defs = [
        ("burst/broadcast: N", bu, ["pattern", "bytes", "mix", "server_bps"], "n"),
        ("burst/broadcast: tier mix", bu, ["pattern", "bytes", "n", "server_bps"], "mix"),
        ("burst/broadcast: server bandwidth", bu, ["pattern", "bytes", "n", "mix"], "server_bps"),
        ("burst/broadcast: payload", bu, ["pattern", "n", "mix", "server_bps"], "bytes"),
        ("relay / peer: N", lambda c: c.family.isin(["relay", "peer"]), ["pattern", "bytes"], "n"),
        ("federation: size (quickstart 9, capacity 100, 1000)", lambda c: c.family == "fedgrid", ["round"], "mix"),
    ]
    st = tc[tc.family == "single"].copy()
    fam_defs_single = [
        ("one transfer: payload", ["link_bps", "latency_s"], "bytes"),
        ("one transfer: bandwidth", ["bytes", "latency_s"], "link_bps"),
        ("one transfer: latency", ["bytes", "link_bps"], "latency_s"),
    ]
    rk = pd.concat([rc, st], ignore_index=True)
    fam_defs += [(f, lambda c: c.family == "single", k, v) for f, k, v in fam_defs_single]
    rtab, rrows = ranking(rk, fam_defs)
    md += ["## Ranking agreement", "",
           "Within each group of configurations that differ in one thing only, every pair of round durations "
           "(one-transfer durations for the single-transfer families) is ordered by the model and by ns3; two "
           "durations within 1% of each other are a tie. Cells: **share of pairs ordered the same** (tied in both "
           "counts as the same) / **mean Kendall tau-b** over the groups (ties as above; n/a where the model or ns3 "
           "ties the whole group).", "", rtab, ""]
    rrows.to_csv(out / "ranking.csv", index=False)
    # cost
    md += cost(runs, out)
    (out / "summary.md").write_text("\n".join(md) + "\n")
    picture(single, a.picture)
    print(f"wrote {out / 'summary.md'}, {out / 'errors.csv'} ({len(errors)} rows), {a.picture}")


def lambda_mask(aim_t, aim_r, q, pattern):
    both = pd.concat([aim_t, aim_r], ignore_index=True)
    mask = both.quantity == q
    if pattern:
        mask &= both.pattern == pattern
    return mask.to_numpy()


def sim_wall(out, run):
    """fedgrid's own perf.json: wall seconds of the simulation proper (no set-up, no output)."""
    p = out / "runs" / run / "perf.json"
    if not p.exists():
        return np.nan
    import json
    return json.loads(p.read_text()).get("wall_simulation_s", np.nan)


def cost(runs, out):
    md = ["## The cost of packet level", "",
          "Wall time and peak memory of one process (netbench: its own stderr; fedgrid run: `/usr/bin/time -v`, "
          "so the federation figures include fedgrid's start-up and output).", "",
          "| run | model | wall s | of which simulation s | peak RSS MB | ns-3 events | ns3 / default wall "
          "| ns3 / default memory |", "|---|---|---|---|---|---|---|---|"]
    pick = [("burst up, N = 1000 mix, 2.3 MB, server 10 Gbit/s", "burst__up_2.3e6B_n1000_mix_s10e9_l-_lat-"),
            ("broadcast down, N = 1000 mix, 2.3 MB, server 10 Gbit/s", "burst__down_2.3e6B_n1000_mix_s10e9_l-_lat-"),
            ("quickstart, 5 rounds timing-only", "fedgrid__quickstart"),
            ("capacity 100 hospitals, 3 rounds", "fedgrid__capacity100"),
            ("capacity 1000 hospitals (ns3: 1 round, flow models: 3)", "fedgrid__capacity1000")]
    for label, cfg in pick:
        g = runs[runs.config == cfg].set_index("model")
        if "ns3" not in g.index or "default" not in g.index:
            continue
        for m in ["default", "cm02", "fluid", "ns3"]:
            if m not in g.index:
                continue
            r = g.loc[m]
            ratio_w = ratio_m = ""
            if m == "ns3":
                ratio_w = f"{r.wall_s / g.loc['default'].wall_s:.0f}x"
                ratio_m = f"{r.peak_rss_mb / g.loc['default'].peak_rss_mb:.1f}x"
            ev = "" if math.isnan(r.ns3_events) or m != "ns3" else f"{r.ns3_events:.3g}"
            sw = sim_wall(out, r.run) if r.family == "fedgrid" else np.nan
            sw = "" if math.isnan(sw) else f"{sw:.2f}"
            md.append(f"| {label} | {m} | {r.wall_s:.2f} | {sw} | {r.peak_rss_mb:.0f} | {ev} | {ratio_w} | {ratio_m} |")
    ns = runs[(runs.model == "ns3") & runs.ok & runs.ns3_events.notna() & (runs.ns3_events > 0)]
    if len(ns):
        per = ns.wall_s / ns.ns3_events * 1e6
        md += ["", f"ns3 netbench runs: {len(ns)}, {ns.wall_s.sum():.0f} s of wall in all, "
               f"{per.median():.1f} us of wall per ns-3 event (median; {per.min():.1f}-{per.max():.1f})."]
    fl = runs[(runs.model != "ns3") & runs.ok & (runs.family != "fedgrid")]
    md.append(f"Flow-model netbench runs: {len(fl)}, {fl.wall_s.sum():.0f} s of wall in all.")
    return md + [""]


if __name__ == "__main__":
    sys.exit(main())
