"""Player strength from a results table (one row per race and racer): standings and pairwise gaps.

Every rate comes with its sample size and a 95% interval. The tables read the columns
`player_name`, `won`, `place`, `n_racers` and, for pairwise gaps, the columns that name an
independent unit of play (by default trail and race index).
"""
from __future__ import annotations

from itertools import combinations

import pandas as pd

from .stats import paired_difference, wilson_interval


def standings(rows: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """One row per player, best win rate first.

    races: seats it raced in (a race where a player holds two seats counts twice); wins; win_rate
    with its Wilson interval (low, high), which treats the seats as independent (slightly too wide
    where one player holds several seats of a race, as only one of them can win); fair_share: the
    win rate of a player no better than its rivals (1 / racers); mean_place (1 = winner).
    """
    g = rows.groupby("player_name", observed=True)
    table = pd.DataFrame({
        "races": g.size(),
        "wins": g.won.sum().astype(int),
    })
    table["win_rate"] = table.wins / table.races
    table["low"], table["high"] = wilson_interval(table.wins.to_numpy(), table.races.to_numpy(), confidence)
    table["fair_share"] = g.n_racers.apply(lambda n: (1 / n).mean())
    table["mean_place"] = g.place.mean()
    table.index.name = "player"
    return table.sort_values("win_rate", ascending=False)


def pairwise(rows: pd.DataFrame, unit: tuple[str, ...] = ("trail", "race"), order: list[str] | None = None,
             confidence: float = 0.95) -> pd.DataFrame:
    """Win-rate gap of each pair of players measured on the same races, with interval and p-value.

    Per unit (a race index, played in every seat rotation), each player's win rate over its seats
    there; the gap is the mean over units of the difference, and its interval and test come from
    the spread of that difference across units, which are independent (reports.stats.paired_difference).
    Pairs come in the order of `order` (default: standings), the stronger first.
    """
    per_unit = rows.groupby([*unit, "player_name"], observed=True).won.mean().unstack("player_name")
    order = order if order is not None else list(standings(rows).index)
    out = []
    for a, b in combinations(order, 2):
        d = (per_unit[a] - per_unit[b]).dropna()
        r = paired_difference(d.to_numpy(), confidence)
        out.append({"player": a, "opponent": b, "gap": r["mean"], "low": r["low"], "high": r["high"],
                    "p": r["p"], "units": r["units"]})
    return pd.DataFrame(out, columns=["player", "opponent", "gap", "low", "high", "p", "units"])


__all__ = ["standings", "pairwise"]
