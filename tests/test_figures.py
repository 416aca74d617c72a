"""The report's figures read alike across a page: one colour per name and one order per kind of
series whatever order a table brings them in, enough distinct colours for ten nations, relays on an
axis of their own, percentage ticks that tell small shares apart, and a toolbar that sends nothing."""
import pandas as pd

from reports import figures as F
from reports import interactive as I
from reports.html import PLOT_CONFIG, plotly_js


def _colours(fig, key="marker"):
    return {t.name: getattr(t, key).color for t in fig.interactive.data}


def test_a_name_keeps_its_colour_and_its_place_in_every_chart():
    I.new_page({"trail_name": ["Lang", "Kurz", "Short"]})
    one = pd.DataFrame({"who": ["A", "A", "B", "B"], "trail_name": ["Kurz", "Lang", "Kurz", "Lang"],
                        "v": [1.0, 2.0, 3.0, 4.0]})
    two = pd.DataFrame({"who": ["B", "B", "B"], "trail_name": ["Short", "Lang", "Kurz"], "v": [1.0, 2.0, 3.0]})
    a = F.bars(one, "who", "v", "one", "v", hue="trail_name")
    b = F.bars(two, "who", "v", "two", "v", hue="trail_name")
    assert [t.name for t in a.interactive.data] == ["Lang", "Kurz"]            # the page's order, not the table's
    assert [t.name for t in b.interactive.data] == ["Lang", "Kurz", "Short"]
    ca, cb = _colours(a), _colours(b)
    assert ca["Lang"] == cb["Lang"] and ca["Kurz"] == cb["Kurz"] and cb["Short"] not in (ca["Lang"], ca["Kurz"])
    # the matplotlib twin draws the same colours
    bars = a.axes[0].containers
    assert [c.get_label() for c in bars] == ["Lang", "Kurz"]
    assert bars[0].patches[0].get_facecolor()[:3] == tuple(int(ca["Lang"][k:k + 2], 16) / 255 for k in (1, 3, 5))
    # lines: a name first met in a later chart keeps the colour it got there
    lines = pd.DataFrame({"n_racers": [2, 3, 2, 3], "who": ["Y", "Y", "X", "X"], "r": [1.0, 1.1, 0.9, 1.0]})
    first = _colours(F.lines(lines, "n_racers", "r", "who", "t", "racers", "r"), "line")
    again = _colours(F.lines(lines.iloc[::-1], "n_racers", "r", "who", "t", "racers", "r"), "line")
    assert first == again


def test_ten_nations_get_ten_distinct_colours():
    I.new_page()
    names = [f"nation {k}" for k in range(10)]
    assert len({I.palette().colour("nation_name", n) for n in names}) == 10
    assert len(set(I.PALETTE)) == len(I.PALETTE) >= 14


def test_percentage_ticks_keep_their_decimals():
    t = pd.DataFrame({"trail": ["a", "b"], "rate": [0.001, 0.004], "low": [0.0005, 0.003], "high": [0.002, 0.005]})
    fig = F.bars(t, "trail", "rate", "small shares", "share", percent=True).interactive
    # "~%": as many decimals as a tick needs (0.1%, 0.2%, ...), never "0%" on every tick
    assert fig.layout.yaxis.tickformat == "~%"


def test_no_toolbar_control_sends_a_chart_anywhere():
    assert PLOT_CONFIG["showSendToCloud"] is False and PLOT_CONFIG["displaylogo"] is False
    assert "sendChartToCloud" in PLOT_CONFIG["modeBarButtonsToRemove"]
    js = plotly_js()
    assert len(js) < 1_600_000 and "plotly.js (cartesian - minified)" in js[:200]


def test_relays_get_an_axis_of_their_own():
    from reports.base import Section
    from reports.core import lines_by_racers

    I.new_page()
    t = pd.DataFrame({"track_name": ["red sprint", "red sprint", "red relay", "red relay"],
                      "n_racers": [2, 4, 8, 16], "mean": [50.0, 52.0, 240.0, 246.0]})
    s = Section("length", "length")
    lines_by_racers(s, "rounds", t, "track_name", {"red relay": 4}, "mean", "Rounds", "rounds", "caption")
    (solo, fig, _), (relay, rfig, _) = s.figures
    assert (solo, relay) == ("rounds", "rounds_relays")
    assert list(fig.interactive.data[0].x) == [2, 4] and [t.name for t in fig.interactive.data] == ["red sprint"]
    assert list(rfig.interactive.data[0].x) == [2, 4]                     # 8 racers = 2 teams of 4
    assert rfig.interactive.layout.xaxis.title.text == "teams"
