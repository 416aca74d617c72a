"""Figures of the balance report: each takes a metrics table (reports.metrics) and returns a
matplotlib Figure.

Figures are built on `matplotlib.figure.Figure`, not pyplot: no global state and no display
backend, so they render the same headless, in tests and in worker processes. Error bars are the
tables' confidence intervals (low, high). Colours: the page's palette (reports.interactive.Palette:
one colour per name and one order per kind of series, the same in both twins); bars
grow from their reference line (a fair share, no change), so axes show the differences.

Each figure carries its interactive twin for the HTML page as `fig.interactive` (a plotly figure
from reports.interactive, drawn from the same table); the PNG and SVG files are the matplotlib
figure.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from . import interactive as I

WIDTH = 7.5          # inches: one column of the HTML report
DIVERGING = "PuOr_r"  # blue-purple under, orange over: readable with colour-vision deficiencies


def _figure(height: float = 4.0, ncols: int = 1) -> tuple[Figure, list]:
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    for ax in axes:
        ax.set_prop_cycle(color=I.OKABE_ITO)
    return fig, list(axes)


def _twin(fig: Figure, interactive) -> Figure:
    fig.interactive = interactive
    return fig


def _band(ax, reference: float, band: float) -> None:
    """The tolerance band around the reference, shaded (what counts as fair enough)."""
    ax.axhspan(reference - band, reference + band, color="#009E73", alpha=0.08, linewidth=0,
               label="_tolerance band")


def _mark(mark) -> str:
    """A heatmap cell's mark: a band verdict's symbol (a string), nothing otherwise."""
    return f" {mark}" if isinstance(mark, str) and mark else ""


def heatmap(pivot: pd.DataFrame, centre: float, title: str, label: str, marks: pd.DataFrame | None = None,
            fmt: str = "{:.2f}", low: pd.DataFrame | None = None, high: pd.DataFrame | None = None,
            min_span: float = 0.0) -> Figure:
    """Values of a rows x columns table as colours diverging from `centre`, each cell annotated
    with its value and its mark (`marks`: strings such as a band verdict's symbol); low, high:
    the intervals, shown on hover in the page. min_span: the colour scale reaches at least
    centre +- min_span, so differences inside a tolerance band stay pale."""
    fig, (ax,) = _figure(0.9 + 0.38 * len(pivot.index))
    values = pivot.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    lo, hi = (finite.min(), finite.max()) if finite.size else (centre, centre)
    eps = max(1e-6 + 1e-3 * max(abs(centre), hi - lo), min_span)
    norm = TwoSlopeNorm(centre, min(lo, centre - eps), max(hi, centre + eps))
    im = ax.imshow(values, cmap=DIVERGING, aspect="auto", norm=norm)
    ax.set_xticks(range(len(pivot.columns)), [str(c) for c in pivot.columns])
    ax.set_yticks(range(len(pivot.index)), [str(i) for i in pivot.index])
    for (i, j), v in np.ndenumerate(values):
        if np.isfinite(v):
            star = _mark(marks.iloc[i, j]) if marks is not None else ""
            dark = abs(norm(v) - 0.5) > 0.3
            ax.text(j, i, fmt.format(v) + star, ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    fig.colorbar(im, ax=ax, label=label, shrink=0.9)
    ax.set_title(title, fontsize=10)
    return _twin(fig, I.heatmap(pivot, centre, title, label, marks, fmt, low, high, min_span))


def bars(table: pd.DataFrame, group: str, value: str, title: str, ylabel: str, hue: str | None = None,
         reference: float | None = None, low: str = "low", high: str = "high", percent: bool = False,
         band: float | None = None) -> Figure:
    """Bars of `value` per `group` (side by side per `hue`), with the interval [low, high] as error
    bars and an optional reference line (a fair share, no change); percent: values are shares."""
    fig, (ax,) = _figure(3.8)
    pal = I.palette()
    groups = pal.order(group, table[group].astype(str))
    hues = pal.order(hue, table[hue].astype(str)) if hue else [None]
    width = 0.8 / len(hues)
    for k, h in enumerate(hues):
        part = table if h is None else table[table[hue].astype(str) == h]
        x = np.array([groups.index(g) for g in part[group].astype(str)]) + (k - (len(hues) - 1) / 2) * width
        v = part[value].to_numpy(float)
        err = np.vstack([v - part[low].to_numpy(float), part[high].to_numpy(float) - v]) \
            if low in part.columns and high in part.columns else None
        base = 0.0 if reference is None else reference
        ax.bar(x, v - base, width * 0.92, bottom=base, yerr=err, capsize=2, label=h, error_kw={"elinewidth": 0.8},
               **({"color": pal.colour(hue, h)} if h is not None else {}))
    if reference is not None:
        ax.axhline(reference, color="black", linewidth=0.8, linestyle="--")
        ends = [table[c].to_numpy(float) for c in (low, high, value) if c in table.columns]
        if band:
            _band(ax, reference, band)
            ends.append(np.array([reference - band, reference + band]))
        ends = np.concatenate(ends + [np.array([reference])])
        ends = ends[np.isfinite(ends)]
        pad = 0.08 * (ends.max() - ends.min()) or 0.05
        ax.set_ylim(ends.min() - pad, ends.max() + pad)
    if percent:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    long = max(map(len, groups)) > 8
    ax.set_xticks(range(len(groups)), groups, rotation=30 if long else 0, ha="right" if long else "center")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if hue:
        ax.legend(fontsize=7, title=hue.replace("_name", "").replace("_", " "), title_fontsize=7,
                  loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _twin(fig, I.bars(table, group, value, title, ylabel, hue, reference, low, high, percent, band))


def lines(table: pd.DataFrame, x: str, value: str, line: str, title: str, xlabel: str, ylabel: str,
          reference: float | None = None, low: str = "low", high: str = "high", percent: bool = False,
          band: float | None = None) -> Figure:
    """One line of `value` against `x` per `line`, with its interval as a shaded band; percent:
    values are shares."""
    fig, (ax,) = _figure(4.2)
    groups = I.in_order(table, line)
    xs_all = np.unique(table[x].to_numpy(float))
    step = float(np.min(np.diff(xs_all))) if xs_all.size > 1 else 1.0
    for k, (name, part) in enumerate(groups):
        colour = I.palette().colour(line, name)
        part = part.sort_values(x)
        # series nudged apart along x so that their intervals do not hide each other
        xs = part[x].to_numpy(float) + ((k - (len(groups) - 1) / 2) * 0.06 * step if len(groups) > 1 else 0.0)
        v = part[value].to_numpy(float)
        if low in part.columns and high in part.columns:
            err = np.vstack([v - part[low].to_numpy(float), part[high].to_numpy(float) - v])
            ax.errorbar(xs, v, yerr=err, marker="o", markersize=3, linewidth=1.2, capsize=2, elinewidth=0.8,
                        label=str(name), color=colour)
        else:
            ax.plot(xs, v, marker="o", markersize=3, linewidth=1.2, label=str(name), color=colour)
    if reference is not None:
        ax.axhline(reference, color="black", linewidth=0.8, linestyle="--")
        if band:
            _band(ax, reference, band)
    if percent:
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    xs = np.unique(table[x].to_numpy(float))
    if np.all(xs == np.round(xs)) and xs.size <= 12:
        ax.set_xticks(xs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    if groups:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _twin(fig, I.lines(table, x, value, line, title, xlabel, ylabel, reference, low, high, percent, band))


def stacked_shares(shares: pd.DataFrame, title: str, xlabel: str, legend: str) -> Figure:
    """Horizontal bars, one per row of `shares`, split into its columns' shares (a distribution)."""
    fig, (ax,) = _figure(0.9 + 0.35 * len(shares))
    left = np.zeros(len(shares))
    n = len(shares.columns)
    for k, c in enumerate(shares.columns):
        v = shares[c].fillna(0).to_numpy(float)
        ax.barh(np.arange(len(shares)), v, left=left, color=colormaps["viridis"](k / max(n - 1, 1)), label=str(c))
        left += v
    ax.set_yticks(range(len(shares)), [str(i) for i in shares.index])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, title=legend, title_fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _twin(fig, I.stacked_shares(shares, title, xlabel, legend))


def histograms(values: pd.DataFrame, column: str, by: str, title: str, xlabel: str) -> Figure:
    """The share of each integer value of `column`, one step line per `by` group."""
    fig, (ax,) = _figure(3.8)
    lo, hi = int(values[column].min()), int(values[column].max())
    edges = np.arange(lo, hi + 2) - 0.5
    for name, part in I.in_order(values, by):
        counts, _ = np.histogram(part[column], edges)
        ax.stairs(counts / max(counts.sum(), 1), edges, label=f"{name} (n={len(part):,})", linewidth=1.3,
                  color=I.palette().colour(by, name))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    return _twin(fig, I.histograms(values, column, by, title, xlabel))


__all__ = ["heatmap", "bars", "lines", "stacked_shares", "histograms"]
