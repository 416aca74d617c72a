"""One self-contained HTML page: a verdict first, then each section's short findings, figures and
tables, in a page people explore.

Figures are interactive (plotly: hover for a value and its interval, click a legend entry to hide a
series) with plotly.js embedded inline, so the page needs no network: the cartesian partial bundle
(reports/vendor/plotly-cartesian.min.js, plotly.js-cartesian-dist-min from npm, the same plotly.js
version as the plotly package's full bundle, MIT licence beside it), 1.5 MB against the full
bundle's 4.8 MB, and it holds every trace the report draws (bar, scatter, heatmap), so a page stays
under 2 MB. The toolbar keeps only what stays on the reader's machine (zoom, pan, reset, save as
PNG): plotly.js 4 offers a "Share chart" button that uploads the chart, and it is turned off;
a figure without an interactive twin is shown as its PNG. Tables have people's headers (units,
percentages, an interval as one column), sort on a click of a header and filter as one types;
wide tables scroll inside their box and long ones are collapsed behind their caption. The few
lines of script that sort and filter are inline too (no library: sorting rows by a data attribute
is all it takes).

`page` serves the balance report and `command_page` every command that answers a question
(compare, ladder, worldcup, tune, exact), so all of them look and read the same.
"""
from __future__ import annotations

import base64
import html
import io
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

#: the mark of every band verdict, and its CSS class (colour-blind-safe colours, and a symbol so
#: colour is never the only cue)
MARKS = {"in band": ("✓", "in"), "over": ("▲", "over"), "under": ("▼", "under"),
         "not enough races": ("?", "unsure")}

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 68rem; margin: 1.5rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.3rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; margin-top: 2.2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.4rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #555; }
.plot { width: 100%; min-height: 320px; }
.tablebox { max-width: 100%; overflow: auto; max-height: 36rem; border: 1px solid #e3e3e3; margin: 0.3rem 0; }
table { border-collapse: collapse; font-size: 0.8rem; }
th, td { border-bottom: 1px solid #eee; padding: 3px 8px; text-align: right; white-space: nowrap; }
th { background: #f5f5f5; position: sticky; top: 0; cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; font-size: 0.7em; }
th[aria-sort=descending]::after { content: " \\25BC"; font-size: 0.7em; }
td.text, th.text { text-align: left; }
.filter { font-size: 0.8rem; padding: 2px 6px; margin: 0.2rem 0; width: 16rem; }
details { margin: 0.5rem 0 1rem; } summary { cursor: pointer; color: #224; }
.caption { font-size: 0.88rem; color: #333; margin: 0.6rem 0 0.1rem; }
.skipped { color: #855; font-style: italic; } .meta { color: #555; font-size: 0.9rem; margin: 0.2rem 0; }
.findings li { margin: 0.25rem 0; }
.warning { background: #fff4e0; border-left: 4px solid #e69f00; padding: 0.5rem 0.8rem; margin: 0.8rem 0; }
.verdict { background: #f7f9fc; border: 1px solid #d8e0ea; padding: 0.6rem 1rem 0.8rem; }
.mark-in { background: #dff2ec; } .mark-over { background: #fbe3cf; } .mark-under { background: #d9e8f5; }
.mark-unsure { background: #efefef; color: #444; }
.legend span { display: inline-block; padding: 1px 8px; margin-right: 6px; border-radius: 3px; font-size: 0.85rem; }
ol.actions li { margin: 0.35rem 0; }
nav ul { columns: 2; font-size: 0.9rem; }
"""

#: sorting and filtering, inline: click a header to sort by it (numbers and verdicts by their data-v
#: value, empty cells last),
#: type in a table's filter box to keep the rows that contain the text
SCRIPT = """
function sortTable(th) {
  const table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
  const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
  for (const h of th.parentNode.children) h.removeAttribute('aria-sort');
  th.setAttribute('aria-sort', dir);
  const key = r => { const c = r.cells[col]; const v = c.dataset.v;
                     if (v !== undefined && v !== '') return parseFloat(v);
                     return c.textContent === '' ? null : c.textContent; };
  const rows = Array.from(body.rows);
  rows.sort((a, b) => { const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);   // empty cells last
    const c = (typeof x === 'number' && typeof y === 'number') ? x - y : String(x).localeCompare(String(y));
    return dir === 'ascending' ? c : -c; });
  for (const r of rows) body.appendChild(r);
}
function filterTable(input) {
  const words = input.value.toLowerCase().split(/\\s+/).filter(w => w);
  const table = document.getElementById(input.dataset.table);
  for (const r of table.tBodies[0].rows) {
    const text = r.textContent.toLowerCase();
    r.style.display = words.every(w => text.includes(w)) ? '' : 'none';
  }
}
document.addEventListener('click', e => { const th = e.target.closest('th[data-sort]'); if (th) sortTable(th); });
document.addEventListener('input', e => { if (e.target.matches('input.filter')) filterTable(e.target); });
"""

#: people's words for the columns of the tables (a column not named here: its name, with spaces)
HEADERS = {
    "n_racers": "racers", "races": "races", "wins": "wins", "fair_share": "fair share",
    "gap": "gap to fair share", "ratio": "wins / fair share", "units": "paired races",
    "base_rate": "base rate", "p": "p (one test)", "n": "n", "count": "count", "mean_place": "mean place",
    "stalled": "stalled races", "stalled_rate": "stalled share", "verdict": "verdict",
    "sd": "sd", "p10": "10th pct", "p90": "90th pct", "currency_p": "p (currency's gain = 0)",
    "token_gain": "token's gain (pp)", "currency_gain": "currency's gain (pp)", "line_ups": "line-ups",
    "spearman_p": "p (no relation)", "rerun_low": "a rerun: from", "rerun_high": "a rerun: to",
    "races_to_decide": "races to decide", "used_share": "share who used it",
    "widest_half_width_pp": "widest half-width (pp)", "sized_to_a_target": "sized to a target", "target_pp": "target half-width (pp)",
    "target_met": "target met",
    "changed": "races changed", "token_id": "token (data id)", "relative_pct": "relative change (%)",
}
#: value columns that carry an interval, and the names of its ends
INTERVALS = [("win_rate", "low", "high"), ("diff", "low", "high"), ("rate", "low", "high"), ("mean", "low", "high"),
             ("change", "low", "high"), ("ratio", "ratio_low", "ratio_high"),
             ("stalled_rate", "stalled_low", "stalled_high"), ("mean_dice", "low_dice", "high_dice"),
             ("used_share", "low", "high"), ("title_odds", "low", "high"),
             ("base_win", "base_low", "base_high"), ("changed_win", "changed_low", "changed_high")]
#: columns kept in the CSV files but not shown: the test statistics behind the verdicts, and the
#: design effect that widens the intervals (a section's details say so in words)
HIDDEN = {"z", "p_holm", "q_bh", "significant", "expected", "variance", "p_adjusted", "design_effect"}
#: columns shown as percentages (rates and their intervals, changes in win rate in points)
PERCENT = {"win_rate", "low", "high", "fair_share", "rate", "base_rate", "stalled_rate", "used_share",
           "title_odds", "odds_when_drafted", "base_win", "changed_win", "base_low", "base_high", "changed_low",
           "changed_high"}
POINTS = {"gap", "change", "diff"}
PROBABILITY = {"p", "p_holm", "q_bh", "spearman_p", "currency_p", "b_p"}


def figure_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def p_text(p: float) -> str:
    """A p-value to two significant figures; below 1e-6 as '<1e-6' (the normal tail's rounding)."""
    return "" if np.isnan(p) else ("<1e-6" if p < 1e-6 else f"{p:.2g}")


def header(name: str, confidence: float = 0.95) -> str:
    """A column's header in people's words."""
    if name in HEADERS:
        return HEADERS[name]
    return re.sub(r"_name$", "", name).replace("_", " ")


def _number(v, kind: str) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    if kind == "percent":
        return f"{100 * v:.1f}%"
    if kind == "points":
        return f"{100 * v:+.2f} pp"
    if kind == "probability":
        return p_text(float(v))
    if kind == "int":
        return f"{int(v):,}"
    a = abs(v)
    if a < 5e-4:
        return "0.000"                  # no "-0.000"
    return f"{v:.3f}" if a < 100 else f"{v:,.1f}"


def _kind(name: str, col: pd.Series, percent: bool) -> str:
    if name in PROBABILITY:
        return "probability"
    if pd.api.types.is_integer_dtype(col):
        return "int"
    if percent and (name in PERCENT or name.startswith("share_")):
        return "percent"
    if percent and name in POINTS:
        return "points"
    return "float"


#: a verdict's cell: its mark, then the value it is sorted by ("▲ 1.23 [1.10, 1.31]")
_MARKED = re.compile(r"^[" + "".join(sym for sym, _ in MARKS.values()) + r"] ([-+]?\d[\d,]*(?:\.\d+)?)")


def _marked_values(texts: list[str]) -> list | None:
    """Sort values for a column of marked verdicts (the number after the mark), so that a click on
    its header sorts by value, not by symbol; None where the column holds other text."""
    found = [_MARKED.match(t) for t in texts]
    if not any(found) or any(m is None and t for m, t in zip(found, texts)):
        return None
    return [_sort_key(float(m.group(1).replace(",", ""))) if m else "" for m in found]


def _sort_key(v: float) -> str:
    """A cell's sort value, to 6 significant figures (finer than any value the page shows; the CSV
    files keep full precision): the pages of a big study stay light."""
    return "" if np.isnan(v) else f"{v:.6g}"


def present(table: pd.DataFrame, percent: bool = True) -> list[tuple[str, list[str], list, str]]:
    """The columns a page shows: (header, cell texts, sort values or None, css class) each.
    An interval joins its value as one column ("25.1% [24.0%, 26.2%]"), sorted by the value;
    test statistics behind the verdicts stay in the CSV."""
    cols = list(table.columns)
    merged: dict[str, tuple[str, str]] = {}
    used = set()
    for v, lo, hi in INTERVALS:
        if v in cols and lo in cols and hi in cols and lo not in used and v not in merged:
            merged[v] = (lo, hi)
            used |= {lo, hi}
    out = []
    for c in cols:
        if c in used or c in HIDDEN:
            continue
        col = table[c]
        if col.dtype == bool:
            out.append((header(c), ["yes" if x else "no" for x in col], None, "text"))
            continue
        if not pd.api.types.is_numeric_dtype(col):
            texts = ["" if (isinstance(x, float) and np.isnan(x)) else str(x) for x in col]
            out.append((header(c), texts, _marked_values(texts), "text"))
            continue
        kind = _kind(c, col, percent)
        vals = col.to_numpy()
        if c in merged:
            lo, hi = (table[x].to_numpy() for x in merged[c])
            texts = [f"{_number(v, kind)} [{_number(a, kind)}, {_number(b, kind)}]"
                     if not (np.isnan(a) or np.isnan(b)) else _number(v, kind) for v, a, b in zip(vals, lo, hi)]
            title = f"{header(c)} [interval]"
        else:
            texts = [_number(v, kind) for v in vals]
            title = header(c) + (" (pp)" if kind == "points" else "")
        out.append((title, texts, [_sort_key(v) for v in vals.astype(float)], "num"))
    return out


_TABLE_IDS = iter(range(1, 10 ** 9))


def table_html(table: pd.DataFrame, percent: bool = True, max_rows: int = 2000, caption: str = "",
               open_up_to: int = 15) -> str:
    """A table as a sortable, filterable block: people's headers, percentages, intervals as one
    column, counts with thousands separators; at most max_rows rows (the CSV holds them all).
    Tables longer than `open_up_to` rows start collapsed behind their caption."""
    e = html.escape
    shown = table.head(max_rows).reset_index(drop=True)
    cols = present(shown, percent)
    tid = f"t{next(_TABLE_IDS)}"
    head = "".join(f"<th data-sort class='{cls}' scope='col'>{e(h)}</th>" for h, _, _, cls in cols)
    body = []
    for i in range(len(shown)):
        cells = []
        for _, texts, sort, cls in cols:
            text = texts[i]
            mark = next((k for k, (sym, _) in MARKS.items() if text == k or text.startswith(sym + " ")), None)
            # the text columns align left by the table's own rule: only marks carry a class (lighter pages)
            klass = f"mark-{MARKS[mark][1]}" if mark else ""
            dv = f" data-v='{sort[i]}'" if sort is not None and sort[i] != "" else ""
            cells.append(f"<td{f' class={chr(39)}{klass}{chr(39)}' if klass else ''}{dv}>{e(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = (f"<p class='meta'>{len(table) - max_rows:,} more rows in the CSV file.</p>"
            if len(table) > max_rows else "")
    filt = f"<input class='filter' type='search' placeholder='filter rows…' data-table='{tid}' aria-label='filter'>"
    left = ",".join(f"#{tid} td:nth-child({k + 1})" for k, (_, _, _, cls) in enumerate(cols) if cls == "text")
    style = f"<style>{left}{{text-align:left}}</style>" if left else ""
    block = (f"{filt}{style}<div class='tablebox'><table id='{tid}'><thead><tr>{head}</tr></thead>"
             f"<tbody>{''.join(body)}</tbody></table></div>{more}")
    if not caption:
        return block
    if len(table) > open_up_to:
        return f"<details><summary>{e(caption)}</summary>{block}</details>"
    return f"<p class='caption'>{e(caption)}</p>{block}"


#: the partial plotly.js bundle every page embeds (bar, scatter, heatmap and the other cartesian
#: traces), vendored with its licence: see the module's docstring
PLOTLY_BUNDLE = Path(__file__).with_name("vendor") / "plotly-cartesian.min.js"

#: plotly's toolbar: nothing that leaves the reader's machine (no "Share chart" upload, whose
#: button plotly.js 4 shows by default; no logo linking to plotly.com), no selection tools (the
#: report has no use for them)
PLOT_CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False,
               "modeBarButtonsToRemove": ["sendChartToCloud", "select2d", "lasso2d", "toggleSpikelines"]}


@lru_cache(maxsize=1)
def plotly_js() -> str:
    """The partial plotly.js bundle, embedded inline: no network needed. Its major version must be
    the plotly package's own bundle's (the figures' JSON is written for that version; within a
    major version plotly.js reads it alike)."""
    js = PLOTLY_BUNDLE.read_text(encoding="utf-8")
    try:
        from plotly.offline import get_plotlyjs_version

        want = get_plotlyjs_version()
    except ImportError:         # an older plotly without the helper: trust the vendored bundle
        return js
    have = re.search(r"plotly\.js \(cartesian - minified\) v([\d.]+)", js[:300])
    if have is None or have.group(1).split(".")[0] != want.split(".")[0]:
        raise RuntimeError(f"{PLOTLY_BUNDLE} is plotly.js {have.group(1) if have else '?'} but the plotly package "
                           f"draws for plotly.js {want}: vendor plotly.js-cartesian-dist-min@{want} from npm")
    return js


def plot_html(fig, div_id: str) -> str:
    """An interactive figure's div and the call that draws it (plotly.js must be on the page)."""
    import plotly.io as pio

    return pio.to_html(fig, include_plotlyjs=False, full_html=False, div_id=div_id, config=PLOT_CONFIG)


def figure_html(name: str, png: bytes, caption: str, interactive=None, files: str = "figures") -> str:
    e = html.escape
    where = f"{files}/{e(name)}.png, .svg" if files else ""
    cap = f"<figcaption>{e(caption)}" + (f" ({where})" if where else "") + "</figcaption>"
    if interactive is not None:
        return f"<figure id='fig-{e(name)}' class='figure'>{plot_html(interactive, 'plot-' + name)}{cap}</figure>"
    data = base64.b64encode(png).decode("ascii")
    return (f"<figure id='fig-{e(name)}' class='figure'><img alt='{e(caption)}' "
            f"src='data:image/png;base64,{data}'>{cap}</figure>")


def _head(title: str, kind: str = "report") -> list[str]:
    e = html.escape
    return ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<meta name='biathlon-sim-page' content='{e(kind)}'>",
            "<link rel='icon' href='data:,'>", f"<title>{e(title)}</title><style>{STYLE}</style>",
            f"<script>{plotly_js()}</script><script>{SCRIPT}</script></head><body>", f"<h1>{e(title)}</h1>"]


def legend_html() -> str:
    return ("<p class='legend'>" + "".join(f"<span class='mark-{cls}'>{sym} {e}</span>"
                                           for e, (sym, cls) in MARKS.items()) + "</p>")


def _section_html(s, files: str = "figures") -> list[str]:
    e = html.escape
    out = [f"<section id='{e(s.key)}'><h2>{e(s.title)}</h2>"]
    if s.intro:
        out.append(f"<p>{e(s.intro)}</p>")
    if s.skipped:
        out.append(f"<p class='skipped'>{e(s.skipped)}</p></section>")
        return out
    if s.findings:
        out.append("<ul class='findings'>" + "".join(f"<li>{e(f)}</li>" for f in s.findings) + "</ul>")
    for block in getattr(s, "blocks", []):
        out.append(block)
    if getattr(s, "details", None):
        out.append("<details class='jargon'><summary>Details: the statistics behind this section</summary><ul>"
                   + "".join(f"<li>{e(d)}</li>" for d in s.details) + "</ul></details>")
    for name, png, caption, *rest in s.figures:
        out.append(figure_html(name, png, caption, rest[0] if rest else None, files))
    for name, table, caption, percent in s.tables:
        tables = files[: -len("figures")] + "tables" if files.endswith("figures") else "tables"
        where = f" ({len(table):,} rows; {tables}/{name}.csv)" if files else f" ({len(table):,} rows)"
        if name in getattr(s, "csv_only", ()):
            out.append(f"<p class='meta'>{e(caption + where)}: in the CSV file only.</p>")
            continue
        out.append(table_html(table, percent, caption=caption + where))
    out.append("</section>")
    return out


def page(title: str, meta: list[str], warnings: list[str], sections: list, links: list[tuple[str, str]] = ()) -> str:
    """The report page: warnings at the top, then every section in order (the verdict first).
    sections: objects with key, title, intro, skipped, blocks (trusted HTML), findings, figures
    (name, png bytes, caption, interactive figure or None) and tables (name, table, caption,
    percent). links: (href, text) of pages that belong to the study (compare, ladder, ...)."""
    e = html.escape
    out = _head(title)
    out += [f"<p class='meta'>{e(m)}</p>" for m in meta]
    out += [f"<p class='warning'>{e(w)}</p>" for w in warnings]
    out.append("<nav><ul>" + "".join(f"<li><a href='#{e(s.key)}'>{e(s.title)}</a></li>" for s in sections)
               + ("<li><a href='#pages'>Pages of this study's other questions</a></li>" if links else "")
               + "</ul></nav>")
    for s in sections:
        out += _section_html(s)
    if links:
        out.append("<section id='pages'><h2>Pages of this study's other questions</h2><ul>"
                   + "".join(f"<li><a href='{e(h)}'>{e(t)}</a></li>" for h, t in links) + "</ul></section>")
    out.append("</body></html>")
    return "\n".join(out)


def command_page(command: str, title: str, meta: list[str], sections: list, warnings: list[str] = (),
                 files: str = "figures") -> str:
    """A command's page (compare, ladder, worldcup, tune, exact) in the report's style: warnings,
    then the sections' findings, figures and tables. The head names the command
    (<meta name='biathlon-sim-page'>), which is how a study's report finds the pages that belong
    to it."""
    e = html.escape
    out = _head(title, command)
    out += [f"<p class='meta'>{e(m)}</p>" for m in meta]
    out += [f"<p class='warning'>{e(w)}</p>" for w in warnings]
    for s in sections:
        out += _section_html(s, files=files)
    out.append("</body></html>")
    return "\n".join(out)


__all__ = ["MARKS", "figure_png", "p_text", "header", "present", "table_html", "plot_html", "figure_html",
           "legend_html", "page", "command_page", "plotly_js"]
