"""The balance report: its statistics against exact values, its tables against counts from the raw
table, its files, the command's handling of bad input, and the page in a headless browser."""
import json
import textwrap
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports import metrics as M
from reports.report import ReportOptions, Context, build_report, gear_section, robustness_section
from sim.stats import (benjamini_hochberg, holm, kendall, paired_difference, ratio_of_means, spearman,
                           spearman_p, wilson_interval)
from sim.cli import main
from sim.results_folder import open_results
from sim.study import load_study, read_study, run_study

STUDY = """
title = "tiny balance"
seed = 11
chunk_size = 480

[defaults]
races = 960

[[variant]]
name = "green-wax+1"
set = [{ file = "game.toml", path = "gear.green.wax.green", value = 5 }]

[[variant]]
name = "green-bullet+1"
set = [{ file = "game.toml", path = "gear.green.bullets", value = 4 }]

[[variant]]
name = "pulse-floor-each-part"
description = "the pulse floored after each part."
set = [{ file = "game.toml", path = "switches.pulse_floor", value = "each_part" }]

[screen]
balance = "knobs.toml"

[[cell]]
name = "balanced"
trail = "Kurz"
racers = 3
variants = ["base", "green-wax+1", "green-bullet+1", "pulse-floor-each-part", "screen"]

[[cell]]
name = "balanced-Short"
trail = "Short"
racers = 4
races = 480

[[cell]]
name = "sprinter"
trail = "Kurz"
racers = 3
players = ["sprinter"]
races = 480
"""


#: the balance file whose knob the study's [screen] steps: Wei's accuracy tile at medium pulse (4 in
#: the shipped data, as at high pulse: one step up would make it better than at high pulse, which
#: the data forbids, so only the step down is played)
KNOBS = """
game = "blast"
title = "one knob to screen"
seed = 1
check_seed = 2
races = 480
check_races = 480
[designs]
scenarios = ["Kurz"]
racers = [3]
[[target]]
name = "biathletes"
metric = "win_rate"
by = "biathlete"
within_pp = 3
[[knob]]
name = "wei-accuracy-medium"
file = "biathletes/wei.toml"
path = "accuracy"
index = 1
min = 1
max = 6
step = 1
"""


def quiet(*_):
    pass


@pytest.fixture(scope="module")
def study_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    path = root / "study.toml"
    path.write_text(textwrap.dedent(STUDY))
    (root / "knobs.toml").write_text(textwrap.dedent(KNOBS))
    run_study(load_study(path), root / "results", progress=False, log=quiet)
    return root / "results"


@pytest.fixture(scope="module")
def report(study_dir, tmp_path_factory):
    return build_report(open_results(study_dir), tmp_path_factory.mktemp("out") / "report", log=quiet)


# --- statistics against exact values ---------------------------------------------------------------

def test_wilson_interval_matches_newcombe():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 .. 0.3662
    low, high = wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


def test_holm_and_benjamini_hochberg_on_a_known_vector():
    p = [0.01, 0.04, 0.03, 0.005, np.nan]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02, np.nan])
    # BH: times 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04 -> running min from the top
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02, np.nan])
    np.testing.assert_allclose(benjamini_hochberg(p[:4]), stats.false_discovery_control(p[:4]))


def test_rank_correlations_match_scipy_and_the_exact_permutation_count():
    rng = np.random.default_rng(3)
    x = rng.normal(size=8)
    y = x + rng.normal(size=8)
    assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert kendall(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)
    ties = ([1, 2, 2, 3, 4], [2, 1, 3, 3, 5])
    assert spearman(*ties) == pytest.approx(stats.spearmanr(*ties).statistic)
    assert kendall(*ties) == pytest.approx(stats.kendalltau(*ties).statistic)
    # 4 items in the same order: only the same and the reversed ordering reach |rho| = 1: 2 of 24
    assert spearman_p([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(2 / 24)


def test_ratio_of_means_of_proportional_measurements():
    b = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    r = ratio_of_means(2 * b, b)
    assert r["ratio"] == pytest.approx(2) and r["low"] == pytest.approx(2) and r["high"] == pytest.approx(2)


def test_ratio_of_means_over_a_currency_that_never_changed_is_nan_without_a_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # a divide-by-zero RuntimeWarning would raise
        r = ratio_of_means(np.array([0.1, 0.0, 0.2]), np.zeros(3))
    assert np.isnan(r["ratio"]) and np.isnan(r["low"]) and np.isnan(r["high"])
    assert r["b_mean"] == 0 and r["a_mean"] == pytest.approx(0.1) and r["units"] == 3


def test_paired_changes_on_a_constructed_table():
    # 4 races x 2 seats on base and on a variant; the green seat wins 1 race more on the variant,
    # so its change per race is (+1, 0, 0, 0) and the interval that of those four numbers
    won = {"base": [1, 0, 0, 1, 0, 1, 1, 0], "v": [0, 1, 0, 1, 0, 1, 1, 0]}
    rows = pd.concat([pd.DataFrame({
        "cell": "c", "variant": v, "race": np.repeat([0, 1, 2, 3], 2), "seat": np.tile([0, 1], 4),
        "won": w, "trail_name": "T", "colour_name": ["red", "green"] * 4, "biathlete_name": list("ABBAABBA")})
        for v, w in won.items()], ignore_index=True)
    wide = M.paired_outcomes(rows, "base")
    t = M.paired_changes(wide, "base", "v", [], wide.colour_name == "green")
    expected = paired_difference([1, 0, 0, 0])
    assert t.change[0] == pytest.approx(0.25) and t.units[0] == 4
    assert (t.low[0], t.high[0]) == pytest.approx((expected["low"], expected["high"]))
    assert t.base_rate[0] == pytest.approx(0.5)
    red = M.paired_changes(wide, "base", "v", ["biathlete_name"], wide.colour_name == "red")
    assert list(red.change) == [-0.5, 0.0]      # A on red lost race 0 of its races 0, 2; B: no change


def test_win_rates_against_a_mixed_fair_share():
    rows = pd.DataFrame({"who": ["a"] * 4, "won": [1, 0, 1, 0], "n_racers": [2, 2, 4, 4]})
    t = M.win_rates(rows, ["who"]).iloc[0]
    assert t.fair_share == pytest.approx(0.375) and t.ratio == pytest.approx(2 / 1.5)
    assert t.z == pytest.approx((2 - 1.5) / np.sqrt(0.25 + 0.25 + 0.1875 + 0.1875))


# --- the report from a tiny study --------------------------------------------------------------------

def test_report_folder_holds_html_figures_and_tables(report):
    out = report.out
    assert (out / "report.html").is_file() and (out / "findings.txt").is_file()
    assert len(report.figure_names) >= 14 and len(set(report.figure_names)) == len(report.figure_names)
    for name in report.figure_names:
        assert (out / "figures" / f"{name}.png").stat().st_size > 1000
        assert (out / "figures" / f"{name}.svg").read_text().lstrip().startswith("<?xml")
    for name in report.table_names:
        assert len(pd.read_csv(out / "tables" / f"{name}.csv")) > 0
    # the per-card view says why it cannot be drawn (no card-play counts in the results)
    assert {s.key for s in report.sections if s.skipped} == {"cards", "skill"}      # no strength reference in this study: said, not drawn
    html = (out / "report.html").read_text()
    # every figure is interactive on the page (its PNG and SVG are the files)
    assert html.count("class='figure'") == len(report.figure_names)
    assert html.count("Plotly.newPlot") == len(report.figure_names) and "<img " not in html
    assert "Exchange rates: " in html and "Red question" in html
    assert html.index("id='verdict'") < html.index("id='health'") < html.index("id='overview'")
    assert "significant" not in (out / "findings.txt").read_text()


def test_win_rate_table_agrees_with_the_raw_table(report, study_dir):
    t = pd.read_csv(report.out / "tables" / "win_rates_by_trail.csv")
    raw = read_study(study_dir, columns=["won"], cells=["balanced", "balanced-Short"])
    raw = raw[raw.variant == "base"]
    counts = raw.groupby(["trail_name", "biathlete_name"], observed=True).won.agg(["size", "sum"])
    for (trail, who), row in counts.iterrows():
        got = t[(t.trail_name == trail) & (t.biathlete_name == who)].iloc[0]
        assert (got.races, got.wins) == (row["size"], row["sum"])
        # the Wilson interval, widened by the design effect of balanced blocks (clustered races)
        low, high = wilson_interval(row["sum"], row["size"])
        root = got.design_effect ** 0.5
        assert got.design_effect >= 1
        assert (got.low, got.high) == pytest.approx((got.win_rate - (got.win_rate - low) * root,
                                                     got.win_rate + (high - got.win_rate) * root))
    pooled = t[t.trail_name == "all"]
    assert pooled.races.sum() == len(raw) and pooled.wins.sum() == raw.won.sum()


def test_gear_value_agrees_with_race_by_race_differences(report, study_dir):
    """A token's value is the race-by-race change of its colour's win rate; where it changed fewer
    than M.MIN_CHANGED races it is "not measurable with these players", with no number (never a
    zero), in the tables, the exchange rates and the findings."""
    t = pd.read_csv(report.out / "tables" / "gear_value.csv")
    raw = read_study(study_dir, columns=["race", "seat", "won"], cells=["balanced"])
    green = raw[raw.colour_name == "green"].pivot_table(index=["race", "seat"], columns="variant", values="won",
                                                        observed=True)
    kinds = set()
    for variant in ("green-wax+1", "green-bullet+1"):
        got = t[(t.variant == variant) & (t.trail_name == "all")].iloc[0]
        d = (green[variant] - green["base"]).groupby(level="race").mean()
        changed = int((d != 0).sum())
        assert got.units == len(d) and got.changed == changed and got.colour == "green"
        if changed >= M.MIN_CHANGED:
            assert got.measurable == "yes" and got.change == pytest.approx(d.mean())
        else:
            assert got.measurable.startswith("not measurable with these players")
            assert np.isnan(got.change) and np.isnan(got.low)
            rates = pd.read_csv(report.out / "tables" / "exchange_rates.csv")
            mine = rates[(rates.token == variant) | (rates.currency == variant)]
            assert len(mine) and mine.rate.isna().all()
            assert any(f"Value of {variant} to green" in f and "not measurable with these players" in f
                       for f in report.findings)
        kinds.add(got.measurable == "yes")
    assert kinds == {True, False}, "the tiny study has one measurable token and one that is not"


def test_sections_the_study_cannot_support_say_what_would(study_dir):
    source = open_results(study_dir)
    only_base = replace(source, cells=tuple(replace(c, variants=("base",)) for c in source.cells
                                            if c.persona == "balanced"))
    ctx = Context(only_base, ReportOptions())
    gear, robust = gear_section(ctx), robustness_section(ctx)
    assert "variants = [" in gear.skipped and "players = [" in robust.skipped
    assert gear.figures == robust.figures == []


def test_report_of_a_single_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["run", "--trail", "Short", "--racers", "3", "--races", "480", "--out", str(run), "--quiet"]) == 0
    assert main(["report", str(run), "--out", str(tmp_path / "r"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "report: " in out and "Value of wax and bullets: skipped." in out
    assert (tmp_path / "r" / "figures" / "win_rate_heatmap.svg").is_file()


@pytest.mark.parametrize("make", [lambda p: p / "missing", lambda p: p, lambda p: (p / "study.json").write_text("{")
                                  or p])
def test_bad_results_folder_is_one_line_and_status_2(tmp_path, capsys, make):
    target = make(tmp_path)
    assert main(["report", str(target), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("biathlon-sim report: ") and err.count("\n") == 1 and "Traceback" not in err


def test_report_help_has_examples(capsys):
    try:                                    # the CLI returns 0 after --help (it used to exit)
        assert main(["report", "--help"]) == 0
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "--band" in out


# --- the page in a browser: tests/test_pages.py opens every kind of page in headless Chromium -------


# --- the verdict, the band, the caveats ---------------------------------------------------------------

def test_band_verdict_holds_the_whole_interval_against_the_band():
    t = pd.DataFrame({"ratio": [1.00, 1.06, 1.30, 0.70, 1.09, 1.10], "ratio_low": [0.95, 1.04, 1.2, 0.6, 1.0, 1.0],
                      "ratio_high": [1.05, 1.08, 1.4, 0.8, 1.18, 1.2], "races": [100] * 6})
    v = M.band_verdict(t, 0.1)
    # 1.06 on a tight interval is in band (significant, but it does not matter for play)
    assert list(v.verdict) == ["in band", "in band", "over", "under", "not enough races", "not enough races"]
    # 1.09 [1.00, 1.18]: half-width 0.09 must shrink to 0.01 (the distance to 1.1): (0.09 / 0.01)^2 x 100
    assert v.races_to_decide[4] == pytest.approx(8100) and np.isinf(v.races_to_decide[5])
    assert v.races_to_decide[:4].isna().all()
    # a narrower band: 1.06 [1.04, 1.08] straddles 1.05, 1.30 [1.2, 1.4] stays over
    assert list(M.band_verdict(t, 0.05).verdict)[1:3] == ["not enough races", "over"]


def test_report_opens_with_the_verdict_and_the_health_panel(report):
    first = report.sections[0]
    assert first.key == "verdict" and report.sections[1].key == "health"
    verdicts = pd.read_csv(report.out / "tables" / "verdicts.csv")
    assert set(verdicts.dimension) == {"biathlete", "ski colour", "seat"}
    assert set(verdicts.verdict) <= {"in band", "over", "under", "not enough races"}
    off = (verdicts.ratio_low > 1.1) | (verdicts.ratio_high < 0.9)
    assert (verdicts.verdict[off] != "in band").all() and (verdicts.verdict[off] != "not enough races").all()
    health = pd.read_csv(report.out / "tables" / "health.csv").set_index("measure").value
    assert health["cells missing"] == "none" and "distilled" in health["personas used"]
    assert health["tolerance band"].startswith("0.90 to 1.10")
    assert any(f.startswith("At a glance") for f in first.findings)


def test_band_from_the_command_line_and_from_the_study_file(study_dir, tmp_path, capsys):
    assert main(["report", str(study_dir), "--out", str(tmp_path / "b"), "--band", "0.05", "--quiet"]) == 0
    health = pd.read_csv(tmp_path / "b" / "tables" / "health.csv").set_index("measure").value
    assert health["tolerance band"].startswith("0.95 to 1.05")
    assert main(["report", str(study_dir), "--out", str(tmp_path / "c"), "--band", "1.5", "--quiet"]) == 2
    assert "--band must lie strictly between 0 and 1" in capsys.readouterr().err
    source = open_results(study_dir)
    ctx = Context(replace(source, settings={"band": 0.2}), ReportOptions())
    assert ctx.band == 0.2 and Context(replace(source, settings={"band": 0.2}), ReportOptions(band=0.05)).band == 0.05


def test_a_token_never_used_is_not_measurable():
    from reports.blast import _token_value, token_usage
    from sim.source import ResultsSource, VariantInfo

    rows = pd.DataFrame({"colour_name": ["white"] * 4 + ["green"] * 4, "variant": ["v"] * 8,
                         "wax_white": [2, 2, 1, 2, 0, 0, 0, 0], "wax_green": [0, 0, 0, 0, 5, 4, 5, 3],
                         "bullets_left": [1] * 8})
    variants = {"v": VariantInfo("v", "", ({"path": "gear.white.wax.white", "value": 3},)),
                "g": VariantInfo("g", "", ({"path": "gear.green.wax.green", "value": 5},))}
    src = ResultsSource("t", "", ".", (), lambda *a: None, variants)
    usage = token_usage(rows.assign(variant=np.where(rows.colour_name == "green", "g", "v")), src,
                        {"v": "white", "g": "green"}).set_index("variant")
    assert usage.loc["v", "used"] == 0 and usage.loc["v", "measurable"] == "no"
    assert usage.loc["g", "used"] == 2 and usage.loc["g", "used_share"] == 0.5
    zero = pd.Series({"change": 0.0, "low": 0.0, "high": 0.0})
    assert "not measurable with these players" in _token_value(zero, usage.loc["v"])


def test_red_question_never_reads_not_enough_races_as_equal(report):
    red = [f for f in report.findings if f.startswith("Red question")]
    assert len(red) == 1
    assert "makes up for its missing wax within the band" in red[0] or "cannot tell" in red[0] \
        or "does not make up" in red[0] or "more than makes up" in red[0]
    assert "significant" not in red[0]


def test_health_warns_of_stalled_races_missing_cells_and_partial_results():
    from reports.core import health_section
    from sim.source import CellInfo, ResultsSource

    rows = pd.DataFrame({"seat": [0, 1] * 100, "stalled": [1, 1] * 3 + [0, 0] * 97, "eliminated": [0, 1] * 100})
    cells = (CellInfo("a", "Kurz", 2, True, ("balanced",), 100, ("base",)),)
    src = ResultsSource("t", "", ".", cells, lambda cols, c=None, v=None: rows[list(cols)], planned=150,
                        planned_cells=("a", "b"))
    s, warnings = health_section(Context(src, ReportOptions()))
    text = " ".join(warnings)
    assert "Partial results: 100 of the 150 races" in text and "Cells missing: b" in text
    assert "3.0% of races stalled" in text          # 3 of 100 races: above 1%
    health = s.tables[0][1].set_index("measure").value
    assert health["racers eliminated"] == "100 (50.0%)" and health["personas used"] == "balanced"


def test_races_played_are_counted_from_the_finished_chunks(study_dir, tmp_path):
    import shutil

    copy = tmp_path / "partial"
    shutil.copytree(study_dir, copy)
    cell = copy / "results" / "cell=balanced" / "variant=green-wax+1"
    part = sorted(cell.rglob("part-*.parquet"))[-1]
    first, end = (int(x) for x in part.stem.split("-")[1:])
    # an interrupted study: the last chunk neither written nor in the ledger
    part.unlink()
    (copy / "visits" / "cell=balanced" / "variant=green-wax+1" / part.name).unlink()
    ledger = json.loads((cell / "_ledger.json").read_text())
    ledger["parts"] = [p for p in ledger["parts"] if p["first"] != first]
    (cell / "_ledger.json").write_text(json.dumps(ledger))
    full, partial = open_results(study_dir), open_results(copy)
    assert partial.played == full.played - (end - first) and partial.planned == full.planned == full.played
    from reports.core import health_section

    _, warnings = health_section(Context(partial, ReportOptions()))
    assert warnings and warnings[0].startswith(f"Partial results: {partial.played:,} of the {full.planned:,}")


def test_colours_fixed_by_the_box_are_ranked_by_size_with_the_reason(report):
    """What to change first ranks every dimension by size, the ski colours among them; while every
    ski colour's gear is the box's, a colour says it is fixed by the box, and why (the reason once,
    at the first colour); the colour section says so too."""
    from sim.blast.game import load_bundle, report_params
    from sim.validation import Patch

    assert "ski colour" in report_params(load_bundle())["fixed"]
    assert "fixed" not in report_params(load_bundle(None, [Patch("game.toml", "gear.green.wax.green", 5)]))
    html = (report.out / "report.html").read_text()
    items = html.split("What to change first", 1)[1].split("</ol>", 1)[0].split("<li>")[1:]
    colour = [("(ski colour)" in i) for i in items]
    assert any(colour), "the tiny study's colours are out of band on the shipped data"
    sizes = [float(i.split(": ", 1)[1].split(" x a fair share")[0]) for i in items]
    assert [abs(x - 1) for x in sizes] == sorted((abs(x - 1) for x in sizes), reverse=True), sizes
    assert all("fixed by the box" in i for i, c in zip(items, colour) if c)
    assert sum("bullets and wax are the box" in i for i in items) == 1
    assert not any("fixed by the box" in i for i, c in zip(items, colour) if not c)
    assert any(f.startswith("The ski colours' gear is fixed by the box") for f in report.findings)


def test_the_verdict_answers_each_design_question_in_a_sentence_and_the_title_names_the_game(report):
    html = (report.out / "report.html").read_text()
    assert "<title>Biathlon Blast balance report: tiny balance</title>" in html
    questions = html.split("<ul class='questions'>", 1)[1].split("</ul>", 1)[0].split("<li>")[1:]
    heads = [q.split("?")[0] for q in questions]
    assert {"Are the biathletes even", "Are the ski colours even", "Are the seats (turn order) even"} <= set(heads)
    assert any(q.startswith("Does Red&#x27;s extra bullet make up") for q in questions)
    # the farthest from fair first: the ski colours, out of band on the shipped data, before the seats
    assert heads.index("Are the ski colours even") < heads.index("Are the seats (turn order) even")


def test_every_racer_count_has_its_verdict_and_pooled_rows_are_one_measure(report):
    verdicts = pd.read_csv(report.out / "tables" / "verdicts.csv")
    for dim in ("biathlete", "ski colour", "seat"):
        assert {"3 racers", "4 racers"} <= set(verdicts[verdicts.dimension == dim]["where"]), dim
    for name in ("win_rates_by_trail", "ski_colours"):
        t = pd.read_csv(report.out / "tables" / f"{name}.csv")
        assert (np.sign(t.gap.round(12)) == np.sign((t.ratio - 1).round(12))).all(), name
        pooled = t[t.iloc[:, 0] == "all"]
        assert np.allclose(pooled.win_rate, pooled.ratio * pooled.fair_share)


def test_rows_that_repeat_one_finding_make_one_item_biggest_first():
    from reports.core import _findings, where_text

    v = pd.DataFrame({"dimension": ["biathlete"] * 4 + ["ski colour"] * 2,
                      "who": ["Olsson", "Olsson", "Olsson", "Wei", "white", "white"],
                      "where": ["all", "Kurz", "6 racers", "Kurz", "all", "2 racers"],
                      "ratio": [0.85, 0.8, 0.76, 1.2, 0.39, 0.5]})
    v["size"] = v.ratio - 1
    items = _findings(v)
    assert [(g.who.iloc[0], g["where"].iloc[0]) for g in items] == [("white", "all"), ("Olsson", "6 racers"),
                                                                     ("Wei", "Kurz")]
    assert list(items[1]["where"]) == ["6 racers", "Kurz", "all"]       # one item, its largest first
    assert where_text("6 racers", "trail") == "at 6 racers" and where_text("all", "trail") == "over all trails"


def test_each_cell_shows_its_half_width_against_its_target_or_that_it_was_not_sized(tmp_path, study_dir):
    """Issue 30: the page shows each cell's achieved half-width against the precision target the
    cell was sized to (--precision-pp), and says when a cell played a fixed count."""
    from reports.base import Section
    from reports.core import precision_table

    run = tmp_path / "run"
    assert main(["run", "--trail", "Short", "--racers", "3", "--races", "4800", "--precision-pp", "9",
                 "--out", str(run), "--quiet"]) == 0
    for folder, sized in ((run, True), (study_dir, False)):
        ctx = Context(open_results(folder), ReportOptions())
        s = Section("x", "x")
        precision_table(ctx, s, ctx.main([]))
        name, table, *_ = s.tables[0]
        assert name == "precision_by_cell"
        if sized:
            r = table.iloc[0]
            assert r.target_pp == "±9.00"
            met = r.widest_half_width_pp <= 9
            assert r.target_met.startswith("yes" if met else f"no: ±{r.widest_half_width_pp:.2f} against ±9.00")
            assert "1 of 1 cells were sized to a precision target, " + ("1" if met else "0") + " of them met it" \
                in s.findings[0]
            assert "fixed count" not in s.findings[0]          # every cell was sized: no "rest" to speak of
        else:
            assert set(table.target_pp) == {"not sized"} and set(table.target_met) == {"not sized: a fixed count"}
            assert "0 of 2 cells were sized" in s.findings[0]


def test_a_game_played_per_side_ranks_what_to_change_within_each_side_and_names_the_sides():
    """Issue 30: Ski Tour's nations come as basic and advanced sides; the verdict says which
    nations are which and ranks each side's findings apart, the seats (every side) after."""
    import re
    from types import SimpleNamespace

    from reports.core import verdict_section

    who = ["Finland", "Italy", "France", "Norway", "seat 0"]
    ratio = [1.7, 0.6, 0.38, 1.0, 1.21]
    v = pd.DataFrame({"dimension": ["nation"] * 4 + ["seat"], "who": who, "where": "all", "races": 400,
                      "ratio": ratio, "ratio_low": [r - 0.05 for r in ratio], "ratio_high": [r + 0.05 for r in ratio],
                      "verdict": ["over", "under", "under", "in band", "over"]})
    sides = {"Finland": "advanced side", "Italy": "advanced side", "France": "basic side", "Norway": "basic side"}
    ctx = SimpleNamespace(verdicts=[v], strong={}, scenario="course", o=ReportOptions(), band_text="1 ± 0.1", fixed={},
                          groups={"nation": sides}, entrant="nation", questions=[], readings=[], trails=["Starter"],
                          source=SimpleNamespace(cells=(), base="base"))
    html = " ".join(verdict_section(ctx).blocks)
    text = re.sub(r"<[^>]+>", "|", html.split("What to change first", 1)[1])
    heads = re.findall(r"\|(Advanced side: [^|]*|Basic side: [^|]*|Whatever the side)\|", text)
    assert heads == ["Advanced side: Finland, Italy", "Basic side: France, Norway", "Whatever the side"]
    order = [w for w in re.findall(r"\|(Finland|Italy|France|seat 0)\|", text)]
    assert order == ["Finland", "Italy", "France", "seat 0"]        # Italy (0.60) before France (0.38): per side
    assert "(nation, advanced side) over all courses: 1.70 x" in text and "(seat) over all courses: 1.21" in text


def test_teams_are_counted_apart_from_racers_racing_alone():
    """Ski Tour's two-player game (two sides of two racers) and a 1-against-1 race both have two
    units; the per-count rows keep them apart ("2 teams", "2 racers") instead of pooling them."""
    from reports.core import _teams, racer_keys

    rows = pd.DataFrame({"cell": ["two"] * 4 + ["duel"] * 2, "variant": "base", "race": 0,
                         "seat": [0, 1, 2, 3, 0, 1], "team": [0, 1, 0, 1, 0, 1], "leg": [0, 0, 1, 1, 0, 0],
                         "n_racers": [4, 4, 4, 4, 2, 2], "won": [1, 0, 1, 0, 0, 1]})
    out = _teams(rows)
    assert list(out.n_racers) == [2, 2, 2, 2] and list(out.unit) == ["teams", "teams", "racers", "racers"]
    assert racer_keys(out) == ["n_racers", "unit"] and racer_keys(rows) == ["n_racers"]
    assert "unit" not in _teams(rows[rows.cell == "duel"]).columns      # no teams anywhere: as before


def test_every_game_says_how_long_a_game_takes_at_the_table(study_dir, report):
    """Issue 28: race length in turns per player and minutes at the table, with the pace assumed, in
    Blast's report as in Mania's and Ski Tour's (reports.core.table_time_section)."""
    from reports import blast, skitour
    from reports.core import race_tables

    ctx = Context(open_results(study_dir), ReportOptions())
    rows = ctx.main(["turns", "rounds"])
    s = blast.table_time_section(ctx, rows)
    assert not s.skipped and s.tables[0][0] == "table_time"
    assert "30 seconds per turn and 20 seconds a round" in s.intro
    per_race = race_tables(rows, (ctx.sc,), blast.PACE)
    one = rows[(rows.cell == per_race.cell[0]) & (rows.race == per_race.race[0])]
    assert per_race.minutes[0] == pytest.approx((one.turns.sum() * 30 + one.rounds.iloc[0] * 20) / 60)
    assert per_race.turns_per_player[0] == pytest.approx(one.turns.mean())
    assert "table-time" in {x.key for x in report.sections if not x.skipped}
    assert skitour.table_time_section in skitour.SECTIONS and "turns" in skitour.MAIN_COLUMNS


def test_blast_readings_are_paired_on_the_same_races_and_ranked(report, study_dir):
    """Issue 28: every Blast switch variant of the study, paired with the base on the same races, its
    change of each headline figure (entrants, seat 0, ski colours, length) agrees with the raw table,
    and the gear section takes no reading for a token."""
    eff = pd.read_csv(report.out / "tables" / "readings_effects.csv")
    ranked = pd.read_csv(report.out / "tables" / "readings_ranked.csv")
    assert list(ranked.variant) == ["pulse-floor-each-part"] and ranked["rank"].tolist() == [1]
    raw = read_study(study_dir, columns=["race", "seat", "won", "rounds", "turns"], cells=["balanced"])
    e = eff.set_index("measure")
    rounds = raw.groupby(["variant", "race"], observed=True).rounds.first()
    seat0 = raw[raw.seat == 0].groupby("variant", observed=True).won.mean()
    for variant, col in (("base", "base"), ("pulse-floor-each-part", "value")):
        assert e.loc["rounds per race", col] == pytest.approx(rounds[variant].mean())
        # a rate in %, its change in percentage points: never a fraction beside points
        assert e.loc["seat 0's win rate (the first seat)", col] == pytest.approx(100 * seat0[variant])
        one = raw[raw.variant == variant]
        for name, g in one.groupby("biathlete_name", observed=True):
            assert e.loc[f"{name}'s win rate", col] == pytest.approx(100 * g.won.mean())
        for name, g in one.groupby("colour_name", observed=True):
            assert e.loc[f"{name}'s win rate (ski colour)", col] == pytest.approx(100 * g.won.mean())
    assert {"largest biathlete gap (best minus worst biathlete's win rate)", "turns per player",
            "share of racers eliminated"} <= set(e.index)
    assert (eff.races == raw.race.nunique()).all()
    assert "pulse-floor-each-part" not in set(pd.read_csv(report.out / "tables" / "gear_value.csv").variant)
    assert "rule readings change the answer" in (report.out / "report.html").read_text()


def test_a_screen_steps_every_knob_and_its_levers_are_the_paired_changes(study_dir, report):
    """Issue 31, item 3: a study's [screen] plays one step each way of every knob of a balance file
    (a step whose data is invalid is left out, and said), the report reads those steps as levers
    of "What to change first" (not as gear, readings or the study's own variants), and each lever's
    change and side effects are the paired per-race differences of the raw table."""
    doc = json.loads((study_dir / "study.json").read_text())
    assert doc["variants"]["wei-accuracy-medium-1"]["group"] == "screen"
    assert doc["variants"]["wei-accuracy-medium-1"]["knob"] == "wei-accuracy-medium"
    assert doc["variants"]["wei-accuracy-medium-1"]["patches"] == [
        {"file": "biathletes/wei.toml", "path": "accuracy", "value": [2, 3, 4]}]
    assert "wei-accuracy-medium+1" not in doc["variants"]
    assert "accuracy: must not get better" in doc["screen_left_out"]["wei-accuracy-medium+1"]
    balanced = next(c for c in doc["cells"] if c["name"] == "balanced")
    assert balanced["variants"][-1] == "wei-accuracy-medium-1"
    tables = report.out / "tables"
    assert "wei-accuracy-medium-1" not in set(pd.read_csv(tables / "gear_value.csv").variant)
    assert "wei-accuracy-medium-1" not in set(pd.read_csv(tables / "readings_effects.csv").get("variant", []))
    levers = pd.read_csv(tables / "levers.csv")
    mine = levers[(levers.variant == "wei-accuracy-medium-1") & (levers.dimension == "biathlete")]
    assert len(mine), "the tiny study has an out-of-band biathlete whose levers the screen's step joins"
    raw = read_study(study_dir, columns=["race", "seat", "won", "biathlete_name", "trail_name", "n_racers"],
                     cells=["balanced"])
    wide = raw.pivot_table(index=["race", "biathlete_name"], columns="variant", values="won", observed=True)
    d = (wide["wei-accuracy-medium-1"] - wide["base"]).groupby(level="biathlete_name").agg(["mean", "count"])
    for r in mine.itertuples():         # the step is played on one cell (Kurz, 3 racers): every row of it
        assert r.measured_on == "Kurz" and r.where != "4 racers" and r.units == d.loc[r.who, "count"]
        if r.moves.startswith("not measurable"):        # too few races changed: no number (issue 30)
            assert np.isnan(r.change) and r.changed < 30
            continue
        assert r.change == pytest.approx(d.loc[r.who, "mean"])
        want = paired_difference(wide["wei-accuracy-medium-1"].xs(r.who, level=1)
                                 - wide["base"].xs(r.who, level=1))
        assert (r.low, r.high) == pytest.approx((want["low"], want["high"]))
        if r.side_effects != "none measurable":
            first = r.side_effects.split(" pp")[0].rsplit(" ", 1)
            assert first[0] != r.who and float(first[1]) == pytest.approx(100 * d.loc[first[0], "mean"], abs=0.051)


def test_a_run_of_other_cells_keeps_the_invalid_screen_step_left_out(study_dir, tmp_path):
    """A run of some cells loads only their variants, so it cannot see that a screen step's data is
    invalid; the folder's study.json keeps the step left out (from its earlier run) instead of
    listing it again among the screened cell's variants."""
    import shutil

    copy = tmp_path / "results"
    shutil.copytree(study_dir, copy)
    study = load_study(study_dir.parent / "study.toml")
    run_study(study, copy, progress=False, log=quiet, only=["sprinter"])
    doc = json.loads((copy / "study.json").read_text())
    balanced = next(c for c in doc["cells"] if c["name"] == "balanced")
    assert "wei-accuracy-medium-1" in balanced["variants"]
    assert "wei-accuracy-medium+1" not in balanced["variants"] and "wei-accuracy-medium+1" not in doc["variants"]
    assert "accuracy: must not get better" in doc["screen_left_out"]["wei-accuracy-medium+1"]


def test_a_lever_that_changed_too_few_races_has_no_number(report):
    """Issue 30, item 4: a paired variant that changed fewer than MIN_CHANGED of an out-of-band
    result's races is "not measurable with these players", with its count and no +0.00 pp, in the
    levers table as everywhere else; one that changed enough has its number."""
    from reports.metrics import MIN_CHANGED

    lev = pd.read_csv(report.out / "tables" / "levers.csv")
    few = lev.changed < MIN_CHANGED
    assert few.any() and (~few).any(), lev[["variant", "changed"]]
    assert lev[few].change.isna().all() and lev[few].ratio_after.isna().all()
    assert lev[few].moves.str.startswith("not measurable with these players (").all()
    assert lev[~few].change.notna().all() and not lev[~few].moves.str.startswith("not measurable").any()


def test_the_fewest_screen_steps_that_reach_the_band_are_named_with_a_command_to_check_them(tmp_path):
    """Issue 31, item 3: for an out-of-band result, the screen's steps toward fair, largest first, one
    per knob and never two on the same value of a file, until their effects (added, as the balance
    search's model step adds them) reach the band; with a compare command that checks them together
    on fresh races. Steps of the study's own variants are not knob steps; a band out of reach says so."""
    import html
    from types import SimpleNamespace

    from reports.core import _combined_steps
    from sim.source import VariantInfo

    def step(name, file, path, value, group="screen"):
        knob = name[:max(name.rfind("+"), name.rfind("-"))] if group else ""      # "a-low+2": knob a-low
        return VariantInfo(name, "", ({"file": file, "path": path, "value": value},), group, knob)

    variants = {v.name: v for v in (
        step("a-low+1", "biathletes/a.toml", "accuracy", [3, 3, 4]),
        step("a-medium-1", "biathletes/a.toml", "accuracy", [2, 2, 4]),      # the same value of a file as a-low+1
        step("b-flat+1", "cards.toml", "card[X].top.flat", 4),
        step("a-low+2", "biathletes/a.toml", "accuracy", [4, 3, 4]),         # a second step of knob a-low
        step("c+1", "game.toml", "gear.c", {"green": 1}),
        step("own", "game.toml", "gear.red.bullets", 3, group=""))}
    src = SimpleNamespace(variants=variants, game="blast", path=str(tmp_path), data=None)
    ctx = SimpleNamespace(source=src, band=0.1, scenario="trail", reference="distilled")
    r = pd.Series({"ratio": 1.40, "where": "Kurz"})
    good = pd.DataFrame({"variant": ["own", "a-low+2", "a-low+1", "a-medium-1", "b-flat+1", "c+1"],
                         "ratio_now": 1.40, "ratio_after": [1.0, 1.20, 1.25, 1.30, 1.33, 1.38]})
    # a-low+2, then b-flat+1 (a-low+1 and a-medium-1 are knob a-low again, or its file's value), c+1:
    # 1.40 - 0.20 - 0.07 - 0.02 = 1.11, just out of the band
    assert "reach 1.11 x at best: no combination of single steps" in _combined_steps(ctx, r, good)
    # a step that would carry it past the band's far side (1.40 - 0.55 = 0.85) is passed over
    big = pd.DataFrame({"variant": ["d-1"], "ratio_now": [1.40], "ratio_after": [0.85]})
    variants["d-1"] = step("d-1", "biathletes/d.toml", "pulse", 2)
    assert "reach 1.11 x at best" in _combined_steps(ctx, r, pd.concat([big, good], ignore_index=True))
    good.loc[good.variant == "c+1", "ratio_after"] = 1.35
    text = html.unescape(_combined_steps(ctx, r, good))
    assert "3 steps" in text and "a-low+2, b-flat+1, c+1 → 1.08 x, in band" in text
    assert ("biathlon-sim --game blast compare --set 'biathletes/a.toml:accuracy=[4, 3, 4]' --set "
            "'cards.toml:card[X].top.flat=4' --set 'game.toml:gear.c={ green = 1 }' --trail Kurz --players distilled "
            "--seed 2") in text
    ctx.band = 0.02
    assert "reach 1.08 x at best: no combination of single steps brings it into the band" in _combined_steps(ctx, r, good)
    assert _combined_steps(ctx, r, good[good.variant == "own"]) == ""
