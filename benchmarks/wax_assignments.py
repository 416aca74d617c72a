"""Every way to hand the box's wax counts to the ski colours, and what each does to the colours' win rates.

The box holds 14 wax tokens; the rulebook's set-up lists the amounts 2, 3, 4, 3, 2 with the colour
icons lost, and red skis get no wax but a fourth bullet. Which amount goes to which colour, and that
each colour's wax is of its own colour, are inferences (../shared/game-facts.md, "Inferences"); the
counts are facts. This script plays every distinct assignment of the five counts to black, yellow,
green, blue and white skis (30 of them; each colour's wax of its own colour, as the data ships it)
on every trail with 4 racers under one persona, the same races for every assignment (common random
numbers), and prints the ski colours' spread around the fair share for each: how far the box's
counts allow the colours to be evened out by the assignment alone (docs/balance.md, "The ski
colours"). Not a test: a measurement, with its command in the docs.

    .venv/bin/python benchmarks/wax_assignments.py --races 4800 --jobs 2 --out runs/wax-assignments.csv

--only-shipped plays the shipped assignment alone; --pulse TOP,BOTTOM adds TOP to the pulse cost of
every card's top action and BOTTOM to every bottom action (common and unique cards, numbers only):
a what-if of how binding pulse must be before blue wax (a pulse point) matters.
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from sim.blast.design import Design
from sim.blast.game import BOX_WAX, load_bundle, scenarios
from sim.blast.load import default_data_dir
from sim.data import resolve
from sim.run import run_races
from sim.validation import Patch

WAX_COLOURS = [c for c, w in BOX_WAX.items() if w]                      # black .. white
BOX_COUNTS = tuple(sum(BOX_WAX[c].values()) for c in WAX_COLOURS)       # 2, 3, 4, 3, 2
LETTER = {"black": "K", "yellow": "Y", "green": "G", "blue": "B", "white": "W"}


def pulse_patches(folder: Path, top: int, bottom: int) -> list[Patch]:
    """Every card's pulse cost shifted: top actions by `top`, bottom actions by `bottom`."""
    out = []
    files = sorted((folder / "biathletes").glob("*.toml")) + [folder / "cards.toml"]
    for f in files:
        for card in tomllib.loads(f.read_text()).get("card", []):
            for side, shift in (("top", top), ("bottom", bottom)):
                cost = card.get(side, {}).get("pulse", 0)
                if shift and isinstance(cost, int):
                    out.append(Patch(str(f.relative_to(folder)), f"card[{card['name']}].{side}.pulse", cost + shift))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--races", type=int, default=4800, help="races per trail and assignment (default 4800)")
    ap.add_argument("--racers", type=int, default=4)
    ap.add_argument("--players", default="balanced", help="persona for every seat (default balanced)")
    ap.add_argument("--seed", type=int, default=77)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--data", default=None, help="data folder or example name (default: the shipped data)")
    ap.add_argument("--out", default=None, help="CSV of every assignment, trail and colour")
    ap.add_argument("--only-shipped", action="store_true", help="play the shipped assignment alone")
    ap.add_argument("--pulse", default="0,0", help="TOP,BOTTOM: shift every card's pulse costs (default 0,0)")
    a = ap.parse_args(argv)
    data = resolve(a.data) if a.data else None
    top, bottom = (int(x) for x in a.pulse.split(","))
    shift = pulse_patches(Path(data) if data else default_data_dir(), top, bottom)
    rows = []
    started = time.perf_counter()
    perms = [BOX_COUNTS] if a.only_shipped else sorted(set(itertools.permutations(BOX_COUNTS)))
    for perm in perms:
        name = " ".join(f"{LETTER[c]}{n}" for c, n in zip(WAX_COLOURS, perm))
        gear = [Patch("game.toml", f"gear.{c}.wax", {c: n}) for c, n in zip(WAX_COLOURS, perm)]
        bundle = load_bundle(data, gear + shift)
        for trail in scenarios(bundle):
            df, _ = run_races(bundle, Design(trail=trail, racers=a.racers, players=(a.players,)), a.races, a.seed,
                              progress=False, n_jobs=a.jobs)
            g = df.groupby("colour_name")
            won = g.won.agg(["mean", "count"])
            blue_used = g.wax_blue.mean()
            out_of_race = g.eliminated.mean()
            for colour, r in won.iterrows():
                rows.append(dict(assignment=name, trail=trail, colour=colour, seats=int(r["count"]),
                                 win_rate=100 * r["mean"], blue_wax_spent=blue_used[colour],
                                 eliminated=100 * out_of_race[colour]))
    t = pd.DataFrame(rows)
    fair = 100 / a.racers
    t["off"] = t.win_rate - fair
    summary = (t.groupby("assignment").off
               .agg(rms=lambda x: float(np.sqrt((x ** 2).mean())), largest=lambda x: float(x.abs().max()))
               .sort_values("rms"))
    by_colour = t.pivot_table(index="assignment", columns="colour", values="win_rate").round(1)
    summary = summary.join(by_colour[["red"] + WAX_COLOURS])
    shipped = " ".join(f"{LETTER[c]}{n}" for c, n in zip(WAX_COLOURS, BOX_COUNTS))
    pd.set_option("display.width", 200)
    print(f"{len(perms)} assignments x {t.trail.nunique()} trails x {a.races:,} races, {a.players}, "
          f"{a.racers} racers, seed {a.seed}, {time.perf_counter() - started:.0f} s; win rates in %, fair share "
          f"{fair:g}%, rms and largest distance from it over trails and colours (points); shipped: {shipped}; "
          f"pulse costs shifted top {top:+d}, bottom {bottom:+d}")
    print(summary.round(1).to_string())
    blue = t[t.colour == "blue"].groupby("assignment").blue_wax_spent.mean()
    print(f"blue wax spent per race on blue skis: {blue.min():.2f} .. {blue.max():.2f}; racers eliminated: "
          f"{t.eliminated.mean():.2f}%")
    if a.out:
        t.to_csv(a.out, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
