"""The balance report: sections of tables and figures from a study's results, a summary of findings
written from the numbers, and one self-contained report.html (docs/reports.md).

`build_report(source, out)` reads from a ResultsSource (sim.source) only the columns each
section needs, and writes:

    out/report.html            the verdict first, then every section: findings, interactive
                               figures, sortable tables (one self-contained file, no network)
    out/figures/NAME.png|svg   every figure
    out/tables/NAME.csv        every table (full precision)
    out/findings.txt           the findings, one per line

A section the study cannot support (no paired variants, a single persona) is replaced by a
sentence that says which cells would enable it. The verdict (every result against the tolerance
band, what to change first) and the health of the results open the report for every game.
"""
from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Callable

from . import blast, core, mania, skitour
from .base import Context, Report, ReportOptions, Section
from .blast import gear_section, gear_targets
from .core import robustness_section
from .skill import skill_section
from .html import figure_png, page
from .interactive import new_page
from sim.source import ResultsSource


def build_report(source: ResultsSource, out: str | Path, options: ReportOptions = ReportOptions(),
                 log: Callable[[str], None] = print) -> Report:
    """Every section the study supports, written to `out` (see the module docstring): the core
    sections every game shares (reports.core) and the game's own (reports.blast, reports.mania)."""
    out = Path(out)
    ctx = Context(source, options)
    # one colour per name and one order of the scenarios in every chart of the page
    new_page({ctx.sc: [*ctx.trails, "all"]})
    layout = layout_of(source)
    log("section: health")
    health, warnings = core.health_section(ctx)
    sections = [core.overview(ctx)]
    sections += layout(ctx, log)
    log("section: verdict")
    sections = [core.verdict_section(ctx), health, *sections]
    findings = [f for s in sections for f in [*s.findings, *s.details]]
    skipped = [f"{s.title}: skipped." for s in sections if s.skipped]
    return write_report(source, out, sections, warnings + findings + skipped, warnings)


def _main_rows(ctx: Context, columns: list[str], log):
    log(f"reading the {ctx.reference!r} balanced line-ups ({len(ctx.main_cells)} cells)")
    return ctx.main(columns)


def _no_main(ctx: Context) -> Section:
    return Section("win-rates", "Win rates", skipped=(
        f"No cell has balanced line-ups with one persona in every seat (the design that gives every "
        f"{ctx.entrant} a fair share of 1/racers): add cells without a fixed line-up, e.g. experiments/balance.toml."))


def blast_layout(ctx: Context, log) -> list[Section]:
    """Blast's report: the core win rates, dynamics and robustness around Blast's own ski colours,
    shooting and gear sections, in the order designers know."""
    sections = []
    if ctx.reference:
        main = _main_rows(ctx, blast.MAIN_COLUMNS, log)
        steps = ((core.win_rate_section, ()), (core.strength_section, ()), (blast.colour_section, ()),
                 (blast.shooting_section, ()), (core.dynamics_section, ((blast.icy_by_lap,),)),
                 (blast.table_time_section, ()))
        for make, extra in steps:
            log(f"section: {make.__name__.removesuffix('_section').replace('_', ' ')}")
            sections.append(make(ctx, main, *extra))
        del main
    else:
        sections.append(_no_main(ctx))
    log("section: rule readings")
    sections.append(blast.readings_section(ctx))
    log("section: gear")
    sections.append(blast.gear_section(ctx))
    sections.append(blast.cards_section(ctx))
    log("section: robustness")
    sections.append(core.robustness_section(ctx))
    sections.append(skill_section(ctx))
    return sections


def core_layout(ctx: Context, log, extra_sections=(), extra_columns=(), prepare=None) -> list[Section]:
    """Any game's report from the core columns: win rates, seats and turn order, how long a game
    lasts, shooting, dynamics, variants, robustness; `extra_sections`: the game's own, each
    (ctx, main rows) -> Section, reading `extra_columns` too; `prepare(ctx, rows)` may relabel
    the main rows first."""
    sections = []
    if ctx.reference:
        main = _main_rows(ctx, ["race", "team", "leg", "place", "rounds", "stalled", "lead_changes", "eliminated",
                                "elim_cause", "leader_after_range", "penalty_laps", "finished", *extra_columns], log)
        if prepare is not None:
            main = prepare(ctx, main)
        sections += [core.win_rate_section(ctx, main), core.strength_section(ctx, main), core.seat_section(ctx, main),
                     core.length_section(ctx, main)]
        sections.append(core.shooting_section(ctx))
        sections.append(core.dynamics_section(ctx, main))
        sections += [make(ctx, main) for make in extra_sections]
    else:
        sections.append(_no_main(ctx))
    sections.append(core.variants_section(ctx))
    sections.append(core.robustness_section(ctx))
    sections.append(skill_section(ctx))
    return sections


def mania_layout(ctx: Context, log) -> list[Section]:
    return core_layout(ctx, log, mania.SECTIONS, mania.MAIN_COLUMNS, mania.by_format)


def skitour_layout(ctx: Context, log) -> list[Section]:
    return core_layout(ctx, log, skitour.SECTIONS, skitour.MAIN_COLUMNS, skitour.by_variant)


def layout_of(source: ResultsSource) -> Callable:
    """The game's report layout, as its registration names it ("module:function", handed over by
    the source), or core_layout for a game that names none."""
    if not source.layout:
        return core_layout
    import importlib

    module, _, name = source.layout.partition(":")
    return getattr(importlib.import_module(module), name)


def write_figures_and_tables(out: Path, sections: list[Section]) -> list[Section]:
    """Every figure as PNG and SVG in out/figures, every table as CSV in out/tables; returns the
    sections with each figure as (name, png bytes, caption, interactive twin or None)."""
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    rendered = []
    for s in sections:
        figs = []
        for name, fig, caption in s.figures:
            fig.savefig(out / "figures" / f"{name}.svg")
            png = figure_png(fig)
            (out / "figures" / f"{name}.png").write_bytes(png)
            figs.append((name, png, caption, getattr(fig, "interactive", None)))
        for name, table, *_ in s.tables:
            table.to_csv(out / "tables" / f"{name}.csv", index=False)
        rendered.append(Section(s.key, s.title, s.intro, s.skipped, figs, s.tables, s.findings, s.blocks,
                                s.csv_only, s.details))
    return rendered


def study_pages(source: ResultsSource, out: Path) -> list[tuple[str, str]]:
    """The pages of other commands (compare, ladder, worldcup, tune, exact) written with --out into
    subfolders of the study's output folder: (link relative to `out`, text) each."""
    import os

    root = Path(source.path)
    links = []
    if not root.is_dir():
        return links
    # the results' own folders hold thousands of chunk files and no page: not walked
    folders = [d for d in sorted(root.iterdir()) if d.is_dir() and d.name not in ("results", "visits")]
    for path in (p for d in folders for p in sorted(d.rglob("*.html"))):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                head = f.read(8000)
        except OSError:
            continue
        kind = re.search(r"<meta name='biathlon-sim-page' content='([^']*)'>", head)
        title = re.search(r"<title>([^<]*)</title>", head)
        if kind and kind.group(1) != "report":
            href = os.path.relpath(path.resolve(), out.resolve())
            name = html.unescape(title.group(1)) if title else path.name
            links.append((Path(href).as_posix(), f"{html.unescape(kind.group(1))}: {name}"))
    return links


def report_title(source: ResultsSource) -> str:
    """The page's title: it names the game, whatever the study's own title says."""
    game = source.game_title
    if game.lower() in source.title.lower():
        return f"Balance report: {source.title}"
    return f"{game} balance report: {source.title}"


def write_report(source: ResultsSource, out: Path, sections: list[Section], findings: list[str],
                 warnings: list[str] = ()) -> Report:
    rendered = write_figures_and_tables(out, sections)
    meta = [f"Results: {source.path}" + (f" ({source.command})" if source.command else "")]
    meta += [source.description] if source.description else []
    (out / "report.html").write_text(page(report_title(source), meta, list(warnings), rendered,
                                          study_pages(source, out)), encoding="utf-8")
    (out / "findings.txt").write_text("\n".join(findings) + "\n", encoding="utf-8")
    return Report(out, sections, findings)


# gear_section and robustness_section are re-exported for the tests and callers that import them from here
__all__ = ["ReportOptions", "Section", "Report", "Context", "build_report", "write_report", "gear_targets",
           "gear_section", "robustness_section", "layout_of"]
