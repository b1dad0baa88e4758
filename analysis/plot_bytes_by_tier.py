#!/usr/bin/python3
"""Traffic of one fedgrid run per round and tier, split into up (hospital to server), down
(server to hospital) and peer (hospital to hospital, counted at the sender): one panel of
stacked bars per tier. Writes bytes_by_tier.png into --out.

hospitals.csv's bytes_up/bytes_down count everything a hospital sent/received, peer transfers
included, so the peer share is taken from events.csv (send rows between two hospitals) and
subtracted. Runs without peer traffic need only hospitals.csv.

usage: analysis/plot_bytes_by_tier.py RUN_DIR [--out DIR]
Uses Debian's python3-matplotlib and python3-pandas (hence /usr/bin/python3).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fedgrid_outputs import InputError, folder_main, load_run, make_out_dir, ordered_tiers, save_figure  # noqa: E402

PARTS = {"up": ("tab:blue", "up (hospital to server)"),
         "down": ("tab:orange", "down (server to hospital)"),
         "peer": ("tab:green", "peer (hospital to hospital, sent)")}


def traffic_by_tier(run):
    """Bytes per (round, tier): columns up, down, peer."""
    hospitals = run.hospitals()
    if hospitals.empty:
        raise InputError(f"{os.path.join(run.path, 'hospitals.csv')}: no rows")
    traffic = hospitals.groupby(["round", "tier"])[["bytes_up", "bytes_down"]].sum()
    traffic = traffic.rename(columns={"bytes_up": "up", "bytes_down": "down"})
    traffic["peer"] = 0
    peer_total = run.rounds["bytes_peer"].fillna(0).sum() if "bytes_peer" in run.rounds else 0
    if peer_total == 0:
        return traffic

    # A send between two hospitals is peer traffic; the server is any host not in hospitals.csv.
    tier_of = hospitals.drop_duplicates("hospital").set_index("hospital")["tier"]
    events = run.events()
    sends = events[(events["kind"] == "send") & events["host"].isin(tier_of.index) & events["peer"].isin(tier_of.index)]
    sent = sends.groupby([sends["round"], sends["host"].map(tier_of).rename("tier")])["bytes"].sum()
    received = sends.groupby([sends["round"], sends["peer"].map(tier_of).rename("tier")])["bytes"].sum()
    traffic["peer"] = sent.reindex(traffic.index, fill_value=0)
    traffic["up"] -= traffic["peer"]
    traffic["down"] -= received.reindex(traffic.index, fill_value=0)
    if traffic["peer"].sum() != peer_total:
        print(f"warning: {os.path.join(run.path, 'events.csv')}: peer sends total {traffic['peer'].sum()} bytes, "
              f"rounds.csv bytes_peer {peer_total:.0f}", file=sys.stderr)
    return traffic


def plot_bytes_by_tier(run, out, name="bytes_by_tier.png"):
    """Writes the figure as out/name; returns its path."""
    traffic = traffic_by_tier(run)
    tiers = ordered_tiers(traffic.index.get_level_values("tier"))
    count = run.hospitals().drop_duplicates("hospital")["tier"].value_counts()
    parts = [p for p in PARTS if traffic[p].any()] or ["up", "down"]
    fig, axes = plt.subplots(len(tiers), 1, figsize=(8, 1.9 * len(tiers) + 1.2), sharex=True, sharey=True,
                             squeeze=False)
    for ax, tier in zip(axes[:, 0], tiers):
        per_round = traffic.xs(tier, level="tier")
        bottom = pd.Series(0.0, index=per_round.index)
        for part in parts:
            colour, label = PARTS[part]
            ax.bar(per_round.index, per_round[part] / 1e6, bottom=bottom, color=colour, label=label, width=0.8)
            bottom += per_round[part] / 1e6
        hospitals = count.get(tier, 0)
        ax.set_title(f"{tier} ({hospitals} hospital{'' if hospitals == 1 else 's'})", fontsize=9, loc="left")
        ax.set_ylabel("MB")
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xlabel("round")
    axes[-1, 0].xaxis.get_major_locator().set_params(integer=True)
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    fig.suptitle(f"{run.label}: bytes per round and tier", fontsize=10)
    return save_figure(fig, os.path.join(out, name))


def main(argv):
    return folder_main(argv, __doc__.splitlines()[0], "run output directory",
                       "where to write the PNG (default: the run dir)",
                       lambda folder, out: plot_bytes_by_tier(load_run(folder), make_out_dir(out or folder)))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
