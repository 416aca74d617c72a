"""Every kind of page in a real browser: a Blast study's report (linking the command pages written
into its folder), a Mania study's report, and the pages of compare, ladder, worldcup, tune and
Mania's exact, each opened in headless Chromium (Debian's chromium, driven by playwright): every
figure renders, clicking a header sorts a table's rows, typing in a filter hides rows, hovering a
chart shows a value, and the console stays free of errors.

`make test` installs chromium where apt can; without it these tests skip and say how to install it.
"""
import shutil
import textwrap
from pathlib import Path

import pytest

from reports.report import build_report
from sim.cli import main
from sim.results_folder import open_results
from sim.study import load_study, run_study

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
INSTALL = ("no Chromium for the page tests: install it with `apt-get install -y chromium` (Debian; `make test` "
           "tries this) and playwright with `pip install -e '.[test]'`")

BLAST_STUDY = """
title = "tiny pages"
seed = 5
chunk_size = 480

[defaults]
races = 480

[[variant]]
name = "green-wax+1"
set = [{ file = "game.toml", path = "gear.green.wax.green", value = 5 }]

[[cell]]
name = "balanced"
trail = "Kurz"
racers = 3
variants = ["base", "green-wax+1"]

[[cell]]
name = "sprinter"
trail = "Kurz"
racers = 3
players = ["sprinter"]
"""

MANIA_STUDY = """
title = "tiny mania pages"
game = "mania"
seed = 3
chunk_size = 800

[defaults]
races = 800

[[cell]]
name = "sprint"
track = "red"
racers = [2, 4]
options = { format = "sprint" }
"""


def quiet(*_):
    pass


def chromium_path() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name) if not name.startswith("/") else (name if Path(name).exists() else None)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason=INSTALL)
    path = chromium_path()
    if path is None:
        pytest.skip(INSTALL)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Every kind of page, written by the library and the commands: {kind: path}."""
    root = tmp_path_factory.mktemp("pages")
    blast = root / "blast"
    (root / "blast.toml").write_text(textwrap.dedent(BLAST_STUDY))
    run_study(load_study(root / "blast.toml"), blast, progress=False, log=quiet)
    # command pages inside the study's folder: the report links them
    assert main(["compare", "--set", "game.toml:gear.red.bullets=5", "--trails", "Kurz", "--racers", "3",
                 "--races", "480", "--jobs", "1", "--quiet", "--out", str(blast / "what-if")]) == 0
    (blast / "ladder").mkdir()
    assert main(["ladder", "--players", "balanced,sprinter", "--trail", "Kurz", "--racers", "4", "--races", "480",
                 "--jobs", "1", "--quiet", "--out", str(blast / "ladder" / "ladder.csv")]) == 0
    assert main(["worldcup", "--cups", "30", "--jobs", "1", "--quiet", "--out", str(root / "cup")]) == 0
    assert main(["tune", "--trails", "Kurz", "--generations", "2", "--population", "4", "--races-per-candidate",
                 "96", "--check-races", "96", "--jobs", "1", "--out", str(root / "mine.toml")]) == 0
    assert main(["--game", "mania", "exact", "--track", "red", "--format", "sprint", "--out", str(root / "exact")]) == 0
    report = build_report(open_results(blast), root / "report", log=quiet)
    (root / "mania.toml").write_text(textwrap.dedent(MANIA_STUDY))
    run_study(load_study(root / "mania.toml"), root / "mania", progress=False, log=quiet)
    mania = build_report(open_results(root / "mania"), root / "mania-report", log=quiet)
    return {"blast report": report.out / "report.html", "mania report": mania.out / "report.html",
            "compare": blast / "what-if" / "page.html", "ladder": blast / "ladder" / "ladder.html",
            "worldcup": root / "cup" / "page.html", "tune": root / "mine.html", "exact": root / "exact" / "page.html"}


def test_a_study_report_links_the_command_pages_in_its_folder(pages):
    html = pages["blast report"].read_text()
    assert "id='pages'" in html
    assert "compare: What-if" in html and "ladder: Player ladder" in html
    assert "../blast/what-if/page.html" in html


def test_every_page_is_one_file_that_needs_no_network(pages):
    for kind, path in pages.items():
        html = path.read_text()
        assert "<script src=" not in html and "<link rel='stylesheet'" not in html, kind


SORTABLE = """() => {
  const key = c => c.dataset.v !== undefined && c.dataset.v !== '' ? parseFloat(c.dataset.v) : null;
  for (const table of document.querySelectorAll('table')) {
    const rows = Array.from(table.tBodies[0].rows);
    if (rows.length < 2) continue;
    const heads = table.tHead.rows[0].cells;
    for (let c = 0; c < heads.length; c++) {
      const v = rows.map(r => key(r.cells[c]));
      if (v.some(x => x === null || isNaN(x))) continue;
      const sorted = v.every((x, i) => i === 0 || v[i - 1] <= x);
      if (!sorted && new Set(v).size > 1) return {table: table.id, col: c};
    }
  }
  return null;
}"""


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the page is self-contained: any request beyond the file itself is an error
    page.on("request", lambda r: errors.append(f"request {r.url}")
            if not r.url.startswith(("file:", "data:", "blob:", "about:")) else None)
    page.goto(path.resolve().as_uri(), wait_until="load")
    return page, errors


@pytest.mark.parametrize("kind", ["blast report", "mania report", "compare", "ladder", "worldcup", "tune", "exact"])
def test_page_in_headless_chromium(browser, pages, kind):
    page, errors = _open(browser, pages[kind])
    try:
        # every figure renders: each plot div drew its SVG
        figures = page.locator("figure.figure").count()
        assert figures > 0
        page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot .main-svg').length >= {figures}",
                               timeout=20_000)
        drawn = page.eval_on_selector_all(
            "figure.figure", "fs => fs.map(f => !!f.querySelector('.js-plotly-plot svg.main-svg'))")
        assert all(drawn) and len(drawn) == figures

        # sorting a table reorders its rows
        target = page.evaluate(SORTABLE)
        if target is not None:
            table = page.locator(f"#{target['table']}")
            if not table.is_visible():
                table.locator("xpath=ancestor::details").locator("summary").click()
            before = table.locator("tbody tr").all_inner_texts()
            table.locator("thead th").nth(target["col"]).click()
            after = table.locator("tbody tr").all_inner_texts()
            assert after != before and sorted(after) == sorted(before)
            keys = page.eval_on_selector(f"#{target['table']}", f"t => Array.from(t.tBodies[0].rows)"
                                                                 f".map(r => parseFloat(r.cells[{target['col']}].dataset.v))")
            assert keys == sorted(keys)
            table.locator("thead th").nth(target["col"]).click()
            keys = page.eval_on_selector(f"#{target['table']}", f"t => Array.from(t.tBodies[0].rows)"
                                                                 f".map(r => parseFloat(r.cells[{target['col']}].dataset.v))")
            assert keys == sorted(keys, reverse=True)
        else:
            pytest.fail("no table with a column to sort")

        # typing in a filter hides the rows without the text
        box = page.locator("input.filter").first
        table_id = box.get_attribute("data-table")
        if not box.is_visible():
            box.locator("xpath=ancestor::details").locator("summary").click()
        box.fill("zzz-no-such-text")
        visible = page.eval_on_selector(f"#{table_id}", "t => Array.from(t.tBodies[0].rows)"
                                                          ".filter(r => r.style.display !== 'none').length")
        assert visible == 0
        box.fill("")

        # hovering a bar or a point shows its value
        point = page.locator(".js-plotly-plot .point").first
        point.scroll_into_view_if_needed()
        point.hover(force=True)
        page.wait_for_selector(".hoverlayer .hovertext", timeout=5_000)
        text = page.locator(".hoverlayer .hovertext").first.text_content()
        assert any(ch.isdigit() for ch in text), text
    finally:
        page.close()
    assert errors == []


#: every drawn axis's tick labels, per chart: [{plot, axis, labels}]
TICKS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).flatMap(gd =>
  ['xtick', 'ytick'].map(kind => ({plot: gd.id, axis: kind,
    labels: Array.from(gd.querySelectorAll('.' + kind + ' text')).map(t => t.textContent)})))"""

#: what a chart's toolbar offers, and its configuration
TOOLBAR = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(gd => ({plot: gd.id,
  buttons: Array.from(gd.querySelectorAll('.modebar-btn')).map(b => (b.getAttribute('data-title') || '') + ' '
           + (b.getAttribute('href') || '')),
  cloud: !!gd._context.showSendToCloud, logo: !!gd._context.displaylogo}))"""


@pytest.mark.parametrize("kind", ["blast report", "mania report", "compare", "worldcup"])
def test_axes_label_their_ticks_and_no_control_sends_anything(browser, pages, kind):
    """Each axis's ticks read differently (not "0%" on every tick of a chart of small shares), and
    no toolbar control uploads or shares a chart (plotly.js offers "Share chart", to a public cloud)
    or links out."""
    page, errors = _open(browser, pages[kind])
    try:
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0", timeout=20_000)
        ticks = page.evaluate(TICKS)
        assert ticks
        for t in ticks:
            labels = [x for x in t["labels"] if x.strip()]
            assert len(labels) == len(set(labels)), (t["plot"], t["axis"], labels)
        for chart in page.evaluate(TOOLBAR):
            assert not chart["cloud"] and not chart["logo"], chart
            for b in chart["buttons"]:
                assert not any(w in b.lower() for w in ("share", "cloud", "upload", "studio", "http")), (chart, b)
    finally:
        page.close()
    assert errors == []


def test_a_verdict_grid_sorts_by_value_not_by_symbol(browser, pages):
    page, errors = _open(browser, pages["blast report"])
    try:
        grid = page.locator("#verdict table").first
        if not grid.is_visible():
            grid.locator("xpath=ancestor::details").locator("summary").click()
        heads = grid.locator("thead th")
        column = next(k for k in range(1, heads.count()) if heads.nth(k).inner_text().strip() == "all")
        values = ("t => Array.from(t.tBodies[0].rows).map(r => r.cells[%d].textContent)"
                  ".filter(x => x).map(x => parseFloat(x.split(' ')[1]))" % column)
        heads.nth(column).click()
        up = grid.evaluate(values)
        assert up == sorted(up) and len(set(up)) > 1, up
        heads.nth(column).click()
        assert grid.evaluate(values) == sorted(up, reverse=True)
    finally:
        page.close()
    assert errors == []


def test_a_page_is_at_most_2_mb(pages):
    for kind, path in pages.items():
        assert path.stat().st_size <= 2_000_000, (kind, path.stat().st_size)


def test_jargon_sits_behind_details_and_mania_advice_fits_mania(pages):
    """Issue 30, item 7: outside the scripts, the statistics' names (Plackett-Luce, design effect,
    chi-square) appear only behind a "Details" control; Mania's verdict puts its colours (identical
    pieces, a check of the simulation) last and never advises personas, which Mania has none of."""
    import re

    for kind in ("blast report", "mania report"):
        body = re.sub(r"<script.*?</script>", "", pages[kind].read_text(), flags=re.S)
        assert "<details class='jargon'>" in body, kind
        outside = re.sub(r"<details class='jargon'>.*?</details>", "", body, flags=re.S)
        for word in ("Plackett", "design effect", "chi-square", "chi2"):
            assert word not in outside, (kind, word)
    mania = pages["mania report"].read_text()
    questions = mania.split("<ul class='questions'>", 1)[1].split("</ul>", 1)[0].split("<li>")[1:]
    assert questions[-1].startswith("Are the colours even?") and len(questions) >= 2
    verdict = mania.split("id='verdict'", 1)[1].split("id='health'", 1)[0]
    assert "persona" not in verdict.lower()


def test_a_legend_click_hides_a_series(browser, pages):
    page, errors = _open(browser, pages["blast report"])
    try:
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0", timeout=20_000)
        plot = page.locator(".js-plotly-plot", has=page.locator(".legend .traces")).first
        plot.scroll_into_view_if_needed()
        item = plot.locator(".legend .traces").first
        item.locator(".legendtoggle").click(force=True)
        # plotly waits out its double-click delay before it toggles
        page.wait_for_function("gd => gd.data.some(t => t.visible === 'legendonly')", arg=plot.element_handle(),
                               timeout=5_000)
        hidden = plot.evaluate("gd => gd.data.filter(t => t.visible === 'legendonly').length")
        assert hidden == 1
    finally:
        page.close()
    assert errors == []
