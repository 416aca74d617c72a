"""The interactive twins of the report's figures (reports.figures): plotly figures drawn from the
same tables, for the HTML page. Hovering a point shows its value with its interval; clicking a
legend entry hides a series; axes fit the data (bars grow from the reference line, so a gap to a
fair share reads as a bar and the axis need not start at 0). Colours: Okabe and Ito's palette,
told apart with the common colour-vision deficiencies.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

#: Okabe & Ito (2008), "Color universal design": distinguishable with every common colour-vision
#: deficiency (yellow left out: too pale on white; black lines are solid, the reference line dashed)
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999"]
#: the colours of named series: Okabe & Ito's eight, then six of Paul Tol's "muted" scheme (wine,
#: teal, indigo, olive, rose, sand), all told apart with the common colour-vision deficiencies, so
#: that up to 14 entrants (Ski Tour's ten nations, say) each get their own
PALETTE = [*OKABE_ITO, "#882255", "#44AA99", "#332288", "#999933", "#CC6677", "#DDCC77"]
#: a diverging scale for heatmaps around a centre (blue under, orange over: colour-blind safe)
DIVERGING = [[0.0, "#0072B2"], [0.5, "#f7f7f7"], [1.0, "#D55E00"]]


class Palette:
    """One colour per name and one order per kind of series across a page: a biathlete, a nation or
    a trail keeps its colour and its place in every chart.

    orders: {column: names in the order the page shows them} (a report's scenarios, say); a name
    of a column without a given order takes the next colour the first time a chart shows it.
    Colours belong to (column, name), so a trail and a biathlete never compete for a colour."""

    def __init__(self, orders: dict[str, list] | None = None):
        self._orders = {k: list(dict.fromkeys(map(str, v))) for k, v in (orders or {}).items()}
        self._seen: dict[str, dict[str, int]] = {}

    def set_order(self, column: str, names) -> None:
        """Show `column`'s names in this order from now on (and colour them by it)."""
        self._orders[column] = list(dict.fromkeys(map(str, names)))

    def order(self, column: str | None, names) -> list[str]:
        """names (unique, as strings) in the page's order for `column`: named ones first in the
        order given, others after in the order they come."""
        names = list(dict.fromkeys(map(str, names)))
        known = self._orders.get(column or "", [])
        rank = {n: i for i, n in enumerate(known)}
        return sorted(names, key=lambda n: (rank.get(n, len(known)), names.index(n)))

    def colour(self, column: str | None, name) -> str:
        name = str(name)
        known = self._orders.get(column or "", [])
        if name in known:
            k = known.index(name)
        else:
            seen = self._seen.setdefault(column or "", {})
            k = seen.setdefault(name, len(known) + len(seen))
        return PALETTE[k % len(PALETTE)]


_PAGE = [Palette()]


def new_page(orders: dict[str, list] | None = None) -> Palette:
    """Start a page's colours and orders (reports.report calls it before the sections draw)."""
    _PAGE[0] = Palette(orders)
    return _PAGE[0]


def palette() -> Palette:
    """The current page's palette."""
    return _PAGE[0]


def _layout(fig: go.Figure, title: str, xlabel: str = "", ylabel: str = "", height: int = 380,
            percent: bool = False, legend: str = "") -> go.Figure:
    fig.update_layout(template="none", title={"text": title, "font": {"size": 14}}, height=height,
                      margin={"l": 60, "r": 20, "t": 40, "b": 50}, hovermode="closest",
                      font={"family": "system-ui, sans-serif", "size": 12}, colorway=OKABE_ITO,
                      legend={"title": {"text": legend}, "itemclick": "toggle"},
                      xaxis={"title": {"text": xlabel}, "gridcolor": "#eee", "automargin": True},
                      yaxis={"title": {"text": ylabel}, "gridcolor": "#eee", "automargin": True,
                             "tickformat": "~%" if percent else None})
    return fig


def _band(fig: go.Figure, reference: float, band: float) -> None:
    """The tolerance band around the reference, shaded, with a hover-free label."""
    fig.add_hrect(y0=reference - band, y1=reference + band, fillcolor="#009E73", opacity=0.08, line_width=0,
                  layer="below", annotation_text=f"band ±{band:.0%}", annotation_position="top left",
                  annotation_font_size=10, annotation_font_color="#2a7a5f")


def _fmt(percent: bool) -> str:
    return ".1%" if percent else ".3f"


def _pad_range(lo: np.ndarray, hi: np.ndarray, reference: float | None) -> list[float] | None:
    values = np.r_[lo[np.isfinite(lo)], hi[np.isfinite(hi)]]
    if reference is not None:
        values = np.r_[values, reference]
    if not values.size:
        return None
    a, b = float(values.min()), float(values.max())
    pad = 0.08 * (b - a) if b > a else 0.05 * max(abs(a), 1e-3)
    return [a - pad, b + pad]


def heatmap(pivot: pd.DataFrame, centre: float, title: str, label: str, marks: pd.DataFrame | None = None,
            fmt: str = "{:.2f}", low: pd.DataFrame | None = None, high: pd.DataFrame | None = None,
            min_span: float = 0.0) -> go.Figure:
    """Values of a rows x columns table as colours diverging from `centre`; each cell shows its
    value and mark, the hover adds the interval [low, high] where given."""
    z = pivot.to_numpy(dtype=float)
    text = [[("" if not np.isfinite(v) else fmt.format(v)) + (f" {marks.iloc[i, j]}" if marks is not None
                                                           and isinstance(marks.iloc[i, j], str) else "")
             for j, v in enumerate(row)] for i, row in enumerate(z)]
    if low is not None and high is not None:
        lo, hi = low.to_numpy(dtype=float), high.to_numpy(dtype=float)
        custom = np.dstack([lo, hi])
        hover = "%{y} · %{x}<br>" + label + ": %{z:.3f} [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<extra></extra>"
    else:
        custom, hover = None, "%{y} · %{x}<br>" + label + ": %{z:.3f}<extra></extra>"
    finite = z[np.isfinite(z)]
    span = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    span = max(span, min_span) or 1e-3
    fig = go.Figure(go.Heatmap(z=z, x=[str(c) for c in pivot.columns], y=[str(i) for i in pivot.index],
                               text=text, texttemplate="%{text}", customdata=custom, hovertemplate=hover,
                               colorscale=DIVERGING, zmin=centre - span, zmax=centre + span,
                               colorbar={"title": {"text": label}}))
    _layout(fig, title, height=max(260, 90 + 34 * len(pivot.index)))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    return fig


def bars(table: pd.DataFrame, group: str, value: str, title: str, ylabel: str, hue: str | None = None,
         reference: float | None = None, low: str = "low", high: str = "high", percent: bool = False,
         band: float | None = None) -> go.Figure:
    """Bars of `value` per `group` (side by side per `hue`) with error bars [low, high], growing
    from `reference` where given (a fair share, no change)."""
    fig = go.Figure()
    pal = palette()
    hues = pal.order(hue, table[hue].astype(str)) if hue else [None]
    groups = pal.order(group, table[group].astype(str))
    has_ci = low in table.columns and high in table.columns
    for h in hues:
        part = table if h is None else table[table[hue].astype(str) == h]
        v = part[value].to_numpy(float)
        f = _fmt(percent)
        if has_ci:
            lo, hi = part[low].to_numpy(float), part[high].to_numpy(float)
            kw = {"error_y": {"type": "data", "array": hi - v, "arrayminus": v - lo, "thickness": 1, "width": 3},
                  "customdata": np.c_[v, lo, hi],
                  "hovertemplate": f"%{{x}}: %{{customdata[0]:{f}}} [%{{customdata[1]:{f}}}, "
                                   f"%{{customdata[2]:{f}}}]<extra>{h or ''}</extra>"}
        else:
            kw = {"customdata": v[:, None], "hovertemplate": f"%{{x}}: %{{customdata[0]:{f}}}<extra>{h or ''}</extra>"}
        # bars grow from the reference: a gap to it is the bar
        y = v - reference if reference is not None else v
        if h is not None:
            kw["marker"] = {"color": pal.colour(hue, h)}
        fig.add_bar(x=part[group].astype(str), y=y, base=reference, name=h or value, **kw)
    _layout(fig, title, "", ylabel, percent=percent, legend=(hue or "").replace("_name", "").replace("_", " "))
    fig.update_layout(barmode="group", showlegend=bool(hue))
    if reference is not None:
        fig.add_hline(y=reference, line={"color": "black", "width": 1, "dash": "dash"})
        lo = table[low].to_numpy(float) if has_ci else table[value].to_numpy(float)
        hi = table[high].to_numpy(float) if has_ci else table[value].to_numpy(float)
        if band:
            _band(fig, reference, band)
            lo, hi = np.r_[lo, reference - band], np.r_[hi, reference + band]
        rng = _pad_range(lo, hi, reference)
        if rng:
            fig.update_yaxes(range=rng)
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=groups)
    return fig


def in_order(table: pd.DataFrame, column: str) -> list[tuple[str, pd.DataFrame]]:
    """The table's rows per name of `column`, in the page's order for it."""
    # grouped by each distinct value's text, in order of first appearance, without writing every
    # row's value as text (a histogram's table has millions of rows)
    # (missing values are left out, as their text is missing too)
    col = table[column]
    if isinstance(col.dtype, pd.CategoricalDtype):
        cat = col.cat.codes.to_numpy()
        codes, uniques = pd.factorize(np.where(cat < 0, np.nan, cat))
        texts = [str(col.cat.categories[int(u)]) for u in uniques]
    else:
        codes, uniques = pd.factorize(col.to_numpy())
        texts = [str(u) for u in uniques]
    first = list(dict.fromkeys(texts))             # values with the same text make one group
    group = np.r_[np.array([first.index(x) for x in texts], dtype=np.int64), -1][codes]
    parts = {first[k]: g for k, g in table.groupby(group, sort=True) if k >= 0}
    return [(k, parts[k]) for k in palette().order(column, parts)]


def lines(table: pd.DataFrame, x: str, value: str, line: str, title: str, xlabel: str, ylabel: str,
          reference: float | None = None, low: str = "low", high: str = "high", percent: bool = False,
          band: float | None = None) -> go.Figure:
    """One line of `value` against `x` per `line` with error bars [low, high]; the series are
    nudged apart along x so their intervals do not hide each other."""
    fig = go.Figure()
    groups = in_order(table, line)
    xs_all = np.unique(table[x].to_numpy(float))
    step = float(np.min(np.diff(xs_all))) if xs_all.size > 1 else 1.0
    has_ci = low in table.columns and high in table.columns
    for k, (name, part) in enumerate(groups):
        part = part.sort_values(x)
        shift = (k - (len(groups) - 1) / 2) * 0.06 * step if len(groups) > 1 else 0.0
        v = part[value].to_numpy(float)
        kw = {}
        if has_ci:
            lo, hi = part[low].to_numpy(float), part[high].to_numpy(float)
            kw = {"error_y": {"type": "data", "array": hi - v, "arrayminus": v - lo, "thickness": 1, "width": 2},
                  "customdata": np.c_[part[x].to_numpy(float), lo, hi],
                  "hovertemplate": f"{xlabel} %{{customdata[0]}}: %{{y:{_fmt(percent)}}} "
                                   f"[%{{customdata[1]:{_fmt(percent)}}}, %{{customdata[2]:{_fmt(percent)}}}]"
                                   f"<extra>{name}</extra>"}
        else:
            kw = {"customdata": part[x].to_numpy(float)[:, None],
                  "hovertemplate": f"{xlabel} %{{customdata[0]}}: %{{y:{_fmt(percent)}}}<extra>{name}</extra>"}
        fig.add_scatter(x=part[x].to_numpy(float) + shift, y=v, mode="lines+markers", name=str(name),
                        marker={"size": 6, "color": palette().colour(line, name)},
                        line={"width": 1.5, "color": palette().colour(line, name)}, **kw)
    _layout(fig, title, xlabel, ylabel, percent=percent, legend=line.replace("_name", "").replace("_", " "))
    if reference is not None:
        fig.add_hline(y=reference, line={"color": "black", "width": 1, "dash": "dash"})
        if band:
            _band(fig, reference, band)
            if has_ci:
                lo = np.r_[table[low].to_numpy(float), reference - band]
                hi = np.r_[table[high].to_numpy(float), reference + band]
                rng = _pad_range(lo, hi, reference)
                if rng:
                    fig.update_yaxes(range=rng)
    if xs_all.size <= 12 and np.all(xs_all == np.round(xs_all)):
        fig.update_xaxes(tickmode="array", tickvals=xs_all, ticktext=[f"{v:g}" for v in xs_all])
    return fig


def stacked_shares(shares: pd.DataFrame, title: str, xlabel: str, legend: str) -> go.Figure:
    """Horizontal bars, one per row of `shares`, split into its columns' shares."""
    fig = go.Figure()
    n = len(shares.columns)
    for k, c in enumerate(shares.columns):
        fig.add_bar(y=[str(i) for i in shares.index], x=shares[c].fillna(0).to_numpy(float), orientation="h",
                    name=str(c), marker={"color": _sequential(k, n)},
                    hovertemplate=f"%{{y}}, {legend} {c}: %{{x:.1%}}<extra></extra>")
    _layout(fig, title, xlabel, "", height=max(260, 90 + 30 * len(shares)), legend=legend)
    fig.update_layout(barmode="stack")
    fig.update_xaxes(tickformat=".0%", range=[0, 1])
    fig.update_yaxes(autorange="reversed", type="category")
    return fig


def _sequential(k: int, n: int) -> str:
    """Viridis (perceptually uniform, colour-blind safe) at k of n."""
    from plotly.colors import sample_colorscale

    return sample_colorscale("Viridis", [k / max(n - 1, 1)])[0]


def histograms(values: pd.DataFrame, column: str, by: str, title: str, xlabel: str) -> go.Figure:
    """The share of each integer value of `column`, one step line per `by` group."""
    fig = go.Figure()
    lo, hi = int(values[column].min()), int(values[column].max())
    xs = np.arange(lo, hi + 1)
    for name, part in in_order(values, by):
        counts = np.bincount(part[column].to_numpy(int) - lo, minlength=xs.size)[: xs.size]
        share = counts / max(counts.sum(), 1)
        fig.add_scatter(x=xs, y=share, mode="lines",
                        line={"shape": "hvh", "width": 1.5, "color": palette().colour(by, name)},
                        name=f"{name} (n={len(part):,})",
                        hovertemplate=f"{xlabel} %{{x}}: %{{y:.1%}}<extra>{name}</extra>")
    _layout(fig, title, xlabel, "share", percent=True, legend=by.replace("_name", "").replace("_", " "))
    return fig


__all__ = ["OKABE_ITO", "PALETTE", "Palette", "new_page", "palette", "in_order", "heatmap", "bars", "lines", "stacked_shares", "histograms"]
