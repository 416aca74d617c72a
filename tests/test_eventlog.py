"""The readable event log: every turn has its line, the ranking matches the results (the golden race:
tests/golden/blast, through the conformance suite's one golden-log runner)."""
import re
import subprocess
import sys

import numpy as np
import pytest

from kernels.blast import consts as C
from kernels.blast import events as E
from sim.blast.compile import load_bundle
from sim.blast.eventlog import describe_event, render_log
from sim.blast.play import make_setup, play_one

TURN_LINE = re.compile(r"^round (\d+) \| (\w+) \((\w+) skis\) plays ")
RANK_LINE = re.compile(r"^  (\d+)\. (\w+) \((\w+) skis\): (won|still racing|eliminated)")

RACES = [  # trail, biathletes, players, seed, race
    ("Kurz", ("Owens", "Olsson", "Wei", "Pinto"), "heuristic", 1, 3),
    ("Lang", ("Bakken", "Fischer"), "random", 7, 0),
    ("Lang", ("Leitner", "Girard"), "heuristic", 2, 5),
    ("Short", ("Bakken", "Fischer", "Girard", "Leitner", "Olsson", "Owens"), "heuristic", 4, 1),
    ("Long", ("Pinto", "Wei", "Owens", "Olsson", "Girard", "Fischer"), "random", 5, 2),
    ("Kurz", ("Wei", "Pinto", "Owens"), ["heuristic", "random", "heuristic"], 3, 9),
]


@pytest.fixture(scope="module")
def bundle():
    # the data these logs were written with: the illustrative set before the balance search of issue 17
    return load_bundle("blast-unbalanced")


def race(bundle, trail, biathletes, players, seed, race_index):
    return play_one(bundle, make_setup(bundle, trail, biathletes, players=players), seed, race_index)


@pytest.fixture(scope="module")
def rendered(bundle):
    out = []
    for spec in RACES:
        log = race(bundle, *spec)
        out.append((log, render_log(bundle, log)))
    return out


def test_every_turn_has_its_line(bundle, rendered):
    for log, text in rendered:
        turns = [(int(r[E.COL_ROUND]), int(r[E.COL_SEAT])) for r in log.events if r[E.COL_KIND] == E.TURN]
        lines = [m for m in map(TURN_LINE.match, text.splitlines()) if m]
        assert len(lines) == len(turns) > 0
        for (rnd, seat), m in zip(turns, lines):
            assert int(m.group(1)) == rnd
            assert m.group(2) == bundle.biathlete_names[log.setup.biathletes[seat]]
            assert m.group(3) == C.COLOUR_NAMES[log.setup.colours[seat]]
        rounds = {int(r[E.COL_ARG]) for r in log.events if r[E.COL_KIND] == E.ROUND}
        for rnd in rounds:
            assert re.search(rf"^round {rnd} \| wind (N|E|S|W|still)$", text, re.M)


def test_ranking_matches_results(bundle, rendered):
    winners = 0
    for log, text in rendered:
        ranks = [m for m in map(RANK_LINE.match, text.splitlines()) if m]
        assert len(ranks) == log.setup.n
        for m in ranks:
            seat = next(s for s in range(log.setup.n)
                        if bundle.biathlete_names[log.setup.biathletes[s]] == m.group(2)
                        and C.COLOUR_NAMES[log.setup.colours[s]] == m.group(3))
            assert log.results[seat]["place"] == int(m.group(1))
            assert (m.group(4) == "won") == bool(log.results[seat]["won"])
        won = [m for m in ranks if m.group(4) == "won"]
        if log.results["won"].any():
            winners += 1
            (m,) = won
            assert m.group(1) == "1"
            seat = int(np.flatnonzero(log.results["won"])[0])
            assert m.group(2) == bundle.biathlete_names[log.setup.biathletes[seat]]
            assert re.search(rf"\| {m.group(2)} \({m.group(3)} skis\) .*\| WINS: ", text)
        else:
            assert not won
            assert f"stalled after {log.rounds} rounds" in text or log.results["eliminated"].all()
    assert winners >= 3


def test_shoot_lines_show_the_dice(bundle, rendered):
    shots = 0
    for log, text in rendered:
        rolls = [r[E.COL_ARG:E.COL_ARG + len(bundle.data.rules.dice)] for r in log.events if r[E.COL_KIND] == E.ROLL]
        lines = [line for line in text.splitlines() if ": Shoot on mat " in line]
        assert len(lines) == len(rolls)
        for faces, line in zip(rolls, lines):
            dice = ", ".join(f"{c} {int(f)}" for c, f in zip(bundle.data.rules.dice, faces))
            assert f"| rolls {dice} |" in line
            assert re.search(r"\| \d+ dice hits? \(accuracy \d\+ at pulse \d+\).* -> \d hits? \|", line)
            assert "| steps U" in line and ("moves " in line or "stays on " in line)
        shots += len(rolls)
    assert shots >= 5


def test_motivation_cards_are_real(bundle, rendered):
    names = {c.name for c in bundle.data.motivation}
    taken = 0
    for log, text in rendered:
        rows = [int(r[E.COL_ARG + 1]) for r in log.events if r[E.COL_KIND] == E.MOTIVATION]
        found = re.findall(r"takes Motivation card (.+?) (?:from face-up slot [12]|blind from the deck)", text)
        assert found == [bundle.card_names[c] for c in rows]
        assert set(found) <= names
        face_up = re.search(r"face up: slot 1 (.+?), slot 2 (.+)$", text, re.M)
        assert {face_up.group(1), face_up.group(2)} <= names
        taken += len(found)
    assert taken >= 10


def test_setup_names_every_seat(bundle, rendered):
    for log, text in rendered:
        for seat in range(log.setup.n):
            name = bundle.biathlete_names[log.setup.biathletes[seat]]
            m = re.search(rf"^  seat {seat}: {name}, (\w+) skis, (\w+) player \| .* \| set-up discard (.+?) "
                          rf"\(initiative \d+\) \| starts on \d+ \(grid \d, lane [12]\), placed \d", text, re.M)
            assert m, f"no set-up line for seat {seat}"
            assert m.group(1) == C.COLOUR_NAMES[log.setup.colours[seat]]
            discard = next(int(r[E.COL_ARG]) for r in log.events
                           if r[E.COL_KIND] == E.SETUP_DISCARD and r[E.COL_SEAT] == seat)
            assert m.group(3) == bundle.card_names[discard]
        assert re.search(r"^  initial dice: red \d, black \d, yellow \d, green \d, blue \d$", text, re.M)


def test_describe_event(bundle, rendered):
    log = rendered[0][0]
    kinds = log.events[:, E.COL_KIND]
    i = int(np.flatnonzero(kinds == E.MOVE)[0])
    text = describe_event(bundle, log, i)
    assert text.startswith("round 1 | ") and " moves " in text
    assert describe_event(bundle, log, log.events[i]) == text
    j = int(np.flatnonzero(kinds == E.HITS)[0])
    assert "accuracy" in describe_event(bundle, log, j)
    for k in range(len(log.events)):
        assert "?" not in describe_event(bundle, log, log.events[k])


def test_states_lines(bundle, rendered):
    log = rendered[0][0]
    text = render_log(bundle, log, states=True)
    assert re.search(r"^    Owens: on \d+ \(.+\), pulse \d+, \d bullets, .*hand \d, discard pile \d", text, re.M)


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True, text=True)


def test_cli_replay():
    r = run_cli("replay", "--trail", "Kurz", "--biathletes", "Owens,Olsson,Wei,Pinto", "--seed", "1", "--race", "17")
    assert r.returncode == 0, r.stderr
    assert any(line.startswith("round 1") for line in r.stdout.splitlines())
    assert "final ranking" in r.stdout


def test_cli_replay_with_colours_and_players():
    r = run_cli("replay", "--trail", "lang", "--biathletes", "Owens, Wei", "--colours", "blue,white",
                "--players", "heuristic,random", "--race", "2")
    assert r.returncode == 0, r.stderr
    assert "seat 0: Owens, blue skis, balanced player" in r.stdout
    assert "seat 1: Wei, white skis, random player" in r.stdout


@pytest.mark.parametrize("args, expected", [
    (("--biathletes", "Owens,Nobody"), "no biathlete named 'Nobody'; known: "),
    (("--biathletes", "Owens,Wei", "--colours", "red,pink"), "no ski colour named 'pink'; known: red, "),
    (("--biathletes", "Owens,Wei", "--players", "smart"), "no player named 'smart'; known: "),
    (("--biathletes", "Owens,Wei", "--trail", "Nope"), "no trail named 'Nope'; known: "),
    (("--biathletes", "Owens"), "racers must lie in 2..6, got 1"),
])
def test_cli_replay_bad_names(args, expected):
    r = run_cli("replay", "--trail", "Kurz", *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0]


def test_cli_replay_help_has_examples():
    r = run_cli("replay", "--help")
    assert r.returncode == 0 and "examples:" in r.stdout and "--race 17" in r.stdout
