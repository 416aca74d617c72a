"""One self-contained HTML page: findings, then each section's text, figures (embedded PNG) and
tables. No scripts and nothing fetched: the page opens offline and from any folder."""
from __future__ import annotations

import base64
import html
import io

import numpy as np
import pandas as pd

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; margin-top: 2.5rem; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #555; }
table { border-collapse: collapse; font-size: 0.78rem; margin: 0.5rem 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
details { margin: 0.5rem 0 1rem; } summary { cursor: pointer; color: #225; }
.skipped { color: #855; font-style: italic; } .meta { color: #555; font-size: 0.9rem; }
.findings li { margin: 0.3rem 0; }
"""

#: columns shown as percentages (rates and their intervals, changes in win rate)
PERCENT = {"win_rate", "low", "high", "fair_share", "gap", "rate", "change", "base_rate"}
PROBABILITY = {"p", "p_holm", "q_bh", "spearman_p", "currency_p"}


def figure_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return buf.getvalue()


def p_text(p: float) -> str:
    """A p-value to two significant figures; below 1e-6 as '<1e-6' (the normal tail's rounding)."""
    return "" if np.isnan(p) else ("<1e-6" if p < 1e-6 else f"{p:.2g}")


def _format_column(name: str, col: pd.Series, percent: bool) -> pd.Series:
    if col.dtype == bool or not pd.api.types.is_numeric_dtype(col):
        return col.astype(str)
    if pd.api.types.is_integer_dtype(col):
        return col.map("{:,}".format)
    if name in PROBABILITY:
        return col.map(p_text)
    if percent and (name in PERCENT or name.startswith("share_")):
        return col.map(lambda v: "" if np.isnan(v) else f"{100 * v:.2f}%")
    return col.map(lambda v: "" if np.isnan(v) else f"{v:.3f}")


def table_html(table: pd.DataFrame, percent: bool = True, max_rows: int = 200) -> str:
    """A table as HTML: rates and intervals as percentages (percent=True), p-values to two
    significant figures, counts with thousands separators; at most max_rows rows."""
    shown = table.head(max_rows)
    shown = pd.DataFrame({c: _format_column(c, shown[c], percent) for c in shown.columns})
    more = f"<p class='meta'>{len(table) - max_rows:,} more rows in the CSV file.</p>" if len(table) > max_rows else ""
    return shown.to_html(index=False, escape=True, border=0) + more


def page(title: str, meta: list[str], findings: list[str], sections: list) -> str:
    """The report page. sections: objects with key, title, intro, skipped, figures (name, png bytes,
    caption), tables (name, table, caption, percent)."""
    e = html.escape
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           "<link rel='icon' href='data:,'>", f"<title>{e(title)}</title><style>{STYLE}</style></head><body>",
           f"<h1>{e(title)}</h1>"]
    out += [f"<p class='meta'>{e(m)}</p>" for m in meta]
    out.append("<nav><ul>" + "".join(f"<li><a href='#{s.key}'>{e(s.title)}</a></li>" for s in sections) + "</ul></nav>")
    out.append("<section id='findings'><h2>Findings</h2><ul class='findings'>"
               + "".join(f"<li>{e(f)}</li>" for f in findings) + "</ul></section>")
    for s in sections:
        out.append(f"<section id='{s.key}'><h2>{e(s.title)}</h2>")
        if s.intro:
            out.append(f"<p>{e(s.intro)}</p>")
        if s.skipped:
            out.append(f"<p class='skipped'>{e(s.skipped)}</p></section>")
            continue
        for name, png, caption in s.figures:
            data = base64.b64encode(png).decode("ascii")
            out.append(f"<figure id='fig-{e(name)}'><img alt='{e(caption)}' src='data:image/png;base64,{data}'>"
                       f"<figcaption>{e(caption)} (figures/{e(name)}.png, .svg)</figcaption></figure>")
        for name, table, caption, percent in s.tables:
            out.append(f"<details><summary>{e(caption)} ({len(table):,} rows; tables/{e(name)}.csv)</summary>"
                       f"{table_html(table, percent)}</details>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out)


__all__ = ["figure_png", "p_text", "table_html", "page"]
