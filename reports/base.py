"""What every report section shares: options, sections, the report, the context (the game's words
and columns, the reference persona's cells) and small formatting helpers."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import metrics as M
from .html import p_text
from sim.source import ResultsSource


#: the persona that stands for strong play, and the floor of the skill gradient (reports.skill):
#: levels of skill, not styles of play
STRONG, FLOOR = "reference", "random"
SKILL = (STRONG, FLOOR)


@dataclass(frozen=True)
class ReportOptions:
    """confidence: of every interval. alpha: the level at which a corrected test flags. reference:
    the persona whose balanced line-ups make the main tables (default: the one with the most
    races). pulse_bands: first pulse of each band after the one from 0 (an accuracy tile's bands).
    currency: variants whose name contains this are the units of exchange rates. seed: of the
    rank-correlation bootstrap. pulse_bands None takes the bands from the data the results were
    played on."""

    confidence: float = 0.95
    alpha: float = M.ALPHA
    reference: str | None = None
    pulse_bands: tuple[int, ...] | None = None       # None: the data's bands (source.params)
    currency: str = "bullet"
    seed: int = 0
    band: float | None = None


@dataclass
class Section:
    key: str
    title: str
    intro: str = ""
    skipped: str = ""
    figures: list = field(default_factory=list)      # (name, Figure, caption)
    tables: list = field(default_factory=list)       # (name, DataFrame, caption, percent)
    findings: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # trusted HTML shown before the findings
    csv_only: set[str] = field(default_factory=set)  # tables written as CSV and named, not drawn on the page
    #: the statistics behind the section (named methods, test statistics), behind a "details"
    #: control on the page, after the plain words
    details: list[str] = field(default_factory=list)

    def figure(self, name: str, fig, caption: str) -> None:
        self.figures.append((name, fig, caption))

    def table(self, name: str, table: pd.DataFrame, caption: str, percent: bool = True,
              page: bool = True) -> pd.DataFrame:
        """Add a table; page=False: only its CSV file (a table the page shows in another form),
        which the page names, so that the page stays light."""
        self.tables.append((name, table, caption, percent))
        if not page:
            self.csv_only.add(name)
        return table


@dataclass
class Report:
    out: Path
    sections: list[Section]
    findings: list[str]

    @property
    def figure_names(self) -> list[str]:
        return [name for s in self.sections for name, *_ in s.figures]

    @property
    def table_names(self) -> list[str]:
        return [name for s in self.sections for name, *_ in s.tables]


def pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def pp(v: float, low: float, high: float) -> str:
    """A change in win rate in percentage points with its interval."""
    return f"{100 * v:+.2f} pp [{100 * low:+.2f}, {100 * high:+.2f}]"


def with_clusters(rows: pd.DataFrame, blocks: dict[str, int]) -> pd.DataFrame:
    """rows with `cluster`: one id per cell and balanced block (race // the cell's block)."""
    if "race" not in rows.columns or "cell" not in rows.columns:
        return rows
    cell = rows.cell.astype("category").cat
    cell_code = cell.codes.to_numpy().astype(np.int64)
    # each cell's block, looked up once per cell rather than once per row
    per_cell = np.array([max(1, blocks.get(str(c), 1)) for c in cell.categories], dtype=np.int64)
    block = per_cell[cell_code]
    return rows.assign(cluster=cell_code * (1 << 40) + rows.race.to_numpy(np.int64) // block)


def relabelled(column: pd.Series, extra, name, order: list[str]) -> tuple[pd.Categorical, list[str]]:
    """`column` renamed by each value and an extra integer code per row (a format, a flag): name(the
    value's text, or None where it is missing; the code) gives the new name (None: missing); as a
    Categorical whose categories are the names of `order` that occur, in that order (any other name
    missing), and those categories. Names are made once per distinct pair, never once per row (a
    study's rows run to millions)."""
    values = column.astype("category")
    extra = np.asarray(extra).astype(np.int64)
    lowest = int(extra.min(initial=0))
    pair, uniques = pd.factorize(values.cat.codes.to_numpy().astype(np.int64) * (1 << 32) + (extra - lowest))
    names = []
    for u in uniques:
        c, code = int(u) >> 32, int(u) % (1 << 32) + lowest
        names.append(name(None if c < 0 else str(values.cat.categories[c]), code))
    present = set(names)
    categories = [o for o in order if o in present]
    at = {o: i for i, o in enumerate(categories)}
    codes = np.array([at.get(x, -1) for x in names] + [-1], dtype=np.int64)[pair]
    return pd.Categorical.from_codes(codes, categories), categories


class Context:
    """What every section shares: the source, options, the game's words and columns, the reference
    persona's cells and rows.

    sc: the scenario name column (trail_name, track_name, course_name); en: the entrant name column
    (biathlete_name, nation_name, colour_name); scenario / entrant: the game's words for them."""

    def __init__(self, source: ResultsSource, options: ReportOptions):
        self.source, self.o = source, options
        self.scenario, self.entrant = source.scenario, source.entrant
        self.sc, self.en = f"{source.scenario}_name", f"{source.entrant}_name"
        base = source.base
        homogeneous = [c for c in source.cells if c.balanced and c.persona and base in c.variants]
        totals: dict[str, int] = {}
        for c in homogeneous:
            totals[c.persona] = totals.get(c.persona, 0) + c.races
        self.personas = sorted(totals, key=lambda p: -totals[p])
        if options.reference is not None and options.reference not in totals:
            raise ValueError(f"no balanced line-ups with {options.reference!r} in every seat; "
                             f"personas: {', '.join(self.personas) or 'none'}")
        self.reference = options.reference or (self.personas[0] if self.personas else None)
        self.main_cells = source.cell_names(balanced=True, persona=self.reference, variant=base) \
            if self.reference else []
        self.trails = list(dict.fromkeys(c.trail for c in source.cells))
        bands = options.pulse_bands if options.pulse_bands is not None else source.params.get("pulse_band_starts")
        self.pulse_bands = tuple(bands) if bands else (3, 7)
        band = options.band if options.band is not None else source.settings.get("band", M.BAND)
        if not 0 < float(band) < 1:
            raise ValueError(f"the tolerance band must lie strictly between 0 and 1 (a share of the fair "
                             f"share), got {band}")
        self.band = float(band)
        #: band verdicts the sections measured, for the verdict that opens the report: DataFrames
        #: with dimension, who, where, races, win_rate, fair_share, ratio, ratio_low, ratio_high, verdict
        self.verdicts: list[pd.DataFrame] = []
        #: (dimension, who) -> what the strength reference says of it (reports.skill), for the verdict
        self.strong: dict[tuple[str, str], list[str]] = {}
        #: plain sentences on the game's own design questions (a section's answer), for the top of
        #: the verdict, after the one per dimension
        self.questions: list[str] = []
        #: where a game is played per group of a dimension's values (Ski Tour's nations: a basic or
        #: an advanced side), dimension -> value -> its group ("basic side"): the verdict names
        #: each result's group and ranks what to change first within each group
        self.groups: dict[str, dict[str, str]] = {}
        #: rule readings (switch variants) that move a verdict across the band, one sentence per
        #: rules doc (reports.readings.section), named at the very top of the verdict
        self.readings: list[str] = []

    @property
    def fixed(self) -> dict[str, str]:
        """Dimensions the data cannot move without changing the box, and why (the game's
        report_params "fixed", read from the manifest); {} where the game names none."""
        return dict(self.source.params.get("fixed") or {})

    @property
    def band_text(self) -> str:
        return f"{1 - self.band:.2f} to {1 + self.band:.2f} wins per fair share (±{self.band:.0%})"

    def judge(self, table: pd.DataFrame, dimension: str | None = None, who: str | None = None,
              where: str | None = None) -> pd.DataFrame:
        """The table with band verdicts (reports.metrics.band_verdict); with `dimension`, its rows
        also go to the report's verdict (who: the column naming the entrant, colour or seat;
        where: the scenario column, or None for rows pooled over scenarios)."""
        t = M.band_verdict(table, self.band)
        if dimension is not None:
            v = pd.DataFrame({"dimension": dimension, "who": t[who].astype(str).to_numpy(),
                              "where": t[where].astype(str).to_numpy() if where else "all"})
            for c in ("races", "win_rate", "low", "high", "fair_share", "ratio", "ratio_low", "ratio_high",
                      "verdict", "races_to_decide"):
                v[c] = t[c].to_numpy()
            self.verdicts.append(v)
        return t

    def judge_by_racers(self, table: pd.DataFrame, dimension: str, who: str) -> pd.DataFrame:
        """The table (one row per racer count and `who`) with band verdicts, its rows sent to the
        report's verdict as measured "at N racers", so that a pooled "in band" never hides an
        out-of-band racer count. Where the table has a `unit` (reports.core._teams), N teams read
        "N teams", apart from N racers."""
        unit = table.unit if "unit" in table.columns else pd.Series("racers", index=table.index)
        t = table.assign(racers_where=[f"{int(n)} {u}" for n, u in zip(table.n_racers, unit)])
        return self.judge(t, dimension, who, "racers_where").drop(columns="racers_where")

    @property
    def result_columns(self) -> list[str]:
        """What every section's rows carry: scenario, racers, seat, the seat axes, won."""
        return list(dict.fromkeys([self.scenario, "n_racers", "seat", *self.source.axes, "won"]))

    def main(self, columns: list[str]) -> pd.DataFrame:
        """Base-variant rows of the reference persona's balanced line-ups, with `cluster`: the
        balanced block a race belongs to (races of a block repeat line-ups, so rates' standard
        errors are clustered by it: reports.metrics.win_rates)."""
        rows = self.source.read(list(dict.fromkeys(self.result_columns + ["race"] + columns)), self.main_cells,
                                [self.source.base])
        return with_clusters(rows, {c.name: c.block for c in self.source.cells})

    def order_trails(self, table: pd.DataFrame, key: str | None = None) -> pd.DataFrame:
        order = {t: i for i, t in enumerate([*self.trails, "all"])}
        return table.sort_values(key or self.sc, key=lambda s: s.map(order), kind="stable")

    def label(self, column: str, code: int, default: str = "") -> str:
        """The word for a code of a coded column (elimination causes, ...), from the game's labels."""
        labels = self.source.labels.get(column, [])
        return labels[code] if 0 <= code < len(labels) else (default or str(code))


def colour_order(rows: pd.DataFrame) -> list[str]:
    pairs = rows[["colour", "colour_name"]].drop_duplicates().sort_values("colour")
    return [str(c) for c in pairs.colour_name]


def _rate(r) -> str:
    return f"{pct(r.win_rate)} [{pct(r.low)}, {pct(r.high)}], n={int(r.races):,}"


def p_is(p: float) -> str:
    """'=0.012' or '<1e-6', to follow a 'p'."""
    text = p_text(p)
    return text if text.startswith("<") else f"={text}"


def _sig(r) -> str:
    """A row's band verdict in words, with the races that would decide it where there are too few."""
    if r.verdict == "not enough races":
        need = r.races_to_decide
        more = ("on the band's edge" if not np.isfinite(need) else f"about {int(need):,} races would decide it")
        return f"not enough races to tell whether it is in the band: {more}"
    return {"in band": "within the band", "over": "over the band", "under": "under the band"}[r.verdict]


def _front(table: pd.DataFrame, lead: list[str]) -> pd.DataFrame:
    return table[lead + [c for c in table.columns if c not in lead]]
