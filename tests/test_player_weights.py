"""The Blast heuristic's last strategic constants are persona weights (issue 27, item 3): the card
worth of the Motivation choice (worth_*), the wind's target (wind_ahead), coach bullets first
(coach_first) and the accuracy band's window (band_window). Each test plays one hand-built turn
with the engine's own play_turn_nb (as tests/test_rulebook_examples.py does) twice: with the
weights of a persona file that changes one of them, and with those of the file's base, and checks
that the decision changes. A bad value is refused with the file, persona and field, exit status 2.
The card choice's hand and race weights (card_top, card_late, ...: issue 27 item 2) are checked on
the card choice itself (choose_card_nb) on a hand-built hand.
"""
import numpy as np
import pytest

from kernels.blast import consts as C
from kernels.blast import events as E
from kernels.blast import players as K
from kernels.blast.players import HEURISTIC, SC_ACTION, SC_DEST, SC_LANE
from kernels.blast.state import (
    G_FACE0, G_MN, G_MTOP, G_WIND, SEAT_BOOST_C, SEAT_BOOST_ROUND, SEAT_BOOST_S, SEAT_BULLETS, SEAT_HAND_N,
    SEAT_PLAYER, SEAT_POS, SEAT_WAITS,
)
from kernels.jit import python_callable
from sim.blast import load_bundle
from sim.blast.players import resolve
from sim.cli import main
from test_rulebook_examples import events_of, give_card, place, play, reach_nb, rng_state_for, scenario


@pytest.fixture(scope="module")
def shipped():
    return load_bundle()


def persona(tmp_path, weights: str, base: str = "balanced"):
    """The weight vector of a persona file building on `base` with these `[weights]` lines."""
    path = tmp_path / "p.toml"
    path.write_text(f'name = "p"\nbase = "{base}"\n[weights]\n{weights}\n')
    return np.array(resolve(str(path)).weights)


def test_the_worth_weights_choose_the_motivation_card(shipped, tmp_path):
    """Crossing a start line with the deck empty and two face-up cards: Cheering Crowd (2 uphill
    and 1 flat step, worth 3.4) over Hot Tea (pulse -3, worth 2.7) by default; a persona that
    prices pulse at 2 a point (worth_pulse) takes Hot Tea."""
    b = shipped
    t = b.trail_id("Kurz")
    line = int(np.flatnonzero(b.tables.start_line[t])[1])
    tea, crowd = b.card_id("Hot Tea"), b.card_id("Cheering Crowd")
    taken = {}
    for name, w in (("default", persona(tmp_path, "")), ("pulse", persona(tmp_path, "worth_pulse = 2.0"))):
        st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
        st.params[0] = w
        place(st, 0, line - 1)
        give_card(b, st, 0, "Rush More")
        assert reach_nb(b.tables, t, line - 1, *b.tables.card_steps[b.card_id("Rush More"), C.BOTTOM, :, 0]) >= line
        st.script[0, SC_ACTION] = C.BOTTOM
        st.script[0, SC_DEST] = line
        st.script[0, SC_LANE] = 0
        st.g[G_FACE0], st.g[G_FACE0 + 1] = tea, crowd
        st.g[G_MTOP] = st.g[G_MN]                      # no blind draw
        play(b, st, 0, t)
        taken[name] = events_of(st, E.MOTIVATION, 0)[0, 1]
    assert taken == {"default": crowd, "pulse": tea}


def test_wind_ahead_sets_the_tailwind_for_that_space(shipped, tmp_path):
    """A card whose action shows the wind symbol, played where the trail turns: the heuristic
    (wind_spite 0) sets a tailwind for the space 3 ahead by default, for its own space with
    wind_ahead = 0."""
    b = shipped
    tb = b.tables
    t = b.trail_id("Kurz")
    card, action = (int(x) for x in np.argwhere(tb.card_wind[:len(b.card_names)] == 1)[0])
    h = tb.heading[t]
    pos = next(p for p in range(1, tb.route_len[t] - 4)
               if h[p] != h[p + 3] and not tb.is_range[t, p] and not tb.start_line[t, p])
    new = {}
    for name, w in (("default", persona(tmp_path, "")), ("here", persona(tmp_path, "wind_ahead = 0"))):
        st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
        st.params[0] = w
        place(st, 0, pos)
        give_card(b, st, 0, b.card_names[card])
        st.script[0, SC_ACTION] = action
        st.script[0, SC_DEST] = pos                   # stays: the wind is judged from pos
        st.script[0, SC_LANE] = 0
        play(b, st, 0, t)
        new[name] = events_of(st, E.WIND, 0)[0, 1]
    assert new == {"default": (h[pos + 3] + 2) % 4, "here": (h[pos] + 2) % 4}


def test_coach_first_off_spends_own_bullets_first(shipped, tmp_path):
    """A shot of 3 hits (room for 2 more) with a red boost of 2 bullets and 3 bullets of its own:
    by default the boost's 2 bullets add the hits; with coach_first = 0 its own 2 (over the reserve
    of 1) do, and the boost expires."""
    b = shipped
    t = b.trail_id("Short")                            # Port Rock: the Shoot gives 2 uphill steps a hit
    rng = b.tables.range_pos[t, 0]
    dice = b.data.rules.dice
    faces = [0] * len(dice)
    for colour in ("black", "blue", "yellow"):
        faces[dice.index(colour)] = 4                  # 3 hits at Pinto's 3+ (pulse 5)
    spent = {}
    for name, w in (("default", persona(tmp_path, "")), ("own", persona(tmp_path, "coach_first = 0"))):
        st = scenario(b, t, [b.biathlete_id("Pinto")], [C.GREEN])
        st.params[0] = w
        st.seat[SEAT_PLAYER, 0] = HEURISTIC
        place(st, 0, rng, 0, on_mat=1, pulse=5)
        give_card(b, st, 0, "Carnival")
        st.seat[SEAT_WAITS, 0] = 2                     # waited its most: it shoots
        st.seat[SEAT_BULLETS, 0] = 3
        st.seat[SEAT_BOOST_C, 0], st.seat[SEAT_BOOST_S, 0], st.seat[SEAT_BOOST_ROUND, 0] = C.RED, 2, 4
        st.rng[0] = rng_state_for(faces)
        st.g[G_WIND] = b.tables.heading[t, rng]        # a headwind at the mats: no hit adjustment
        play(b, st, 0, t)
        dice_hits, _, own, coach, hits = events_of(st, E.HITS, 0)[0, :5]
        assert dice_hits == 3 and hits == 5
        spent[name] = (own, coach)
    assert spent == {"default": (0, 2), "own": (2, 0)}


def test_band_window_decides_when_the_range_counts(tmp_path):
    """Nine spaces before the range, a racer that prices the accuracy band high (band 10) plays
    Rush More's top action to 7 spaces before it, just outside the band's window of 6 spaces (the
    default band_window); when the band counts within 20 spaces, every space nearer costs, and it
    plays the bottom action and stays where it is. Rush More's values as they were shipped before
    issue 31's search (the example `blast-balanced-before-default`): the scene is built on them."""
    b = load_bundle("blast-balanced-before-default")
    t = b.trail_id("Kurz")
    rng = int(b.tables.range_pos[t, 0])
    played = {}
    for name, w in (("near", persona(tmp_path, "band = 10")),
                    ("far", persona(tmp_path, "band = 10\nband_window = 20"))):
        st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
        st.params[0] = w
        place(st, 0, rng - 9, pulse=2)
        give_card(b, st, 0, "Rush More")
        play(b, st, 0, t)
        played[name] = (events_of(st, E.ACTION, 0)[0, 1], st.seat[SEAT_POS, 0] - rng)
    assert played == {"near": (C.TOP, -7), "far": (C.BOTTOM, -9)}


def test_the_hand_and_race_card_weights_change_the_card(shipped, tmp_path):
    """The card choice's hand and race features (docs/players.md, "Closer to the reference"): with
    Skate, Virtuoso and Fjord Climb in hand on Kurz, the plain heuristic plays Virtuoso, the move
    that reaches furthest at no pulse. Virtuoso is also the hand's best card by worth (5.4, 0.4
    over Fjord Climb's 5.0): card_top = -2 keeps it and plays Skate. card_late = -3 (big cards
    early, a worth times the share of the race run) changes nothing on the start line, where the
    share is 0, and plays Skate 40 spaces on."""
    b = shipped
    tb = b.tables
    t = b.trail_id("Kurz")
    features = python_callable(K.card_features_nb)
    choose = python_callable(K.choose_card_nb)
    hand = [b.card_id(n) for n in ("Skate", "Virtuoso", "Fjord Climb")]

    def card(weights, pos):
        st = scenario(b, t, [b.biathlete_id("Owens")], [C.RED])
        st.seat[SEAT_PLAYER, 0] = HEURISTIC
        st.params[0] = persona(tmp_path, weights)
        place(st, 0, pos)
        st.hand[0, :3] = hand
        st.seat[SEAT_HAND_N, 0] = 3
        out = np.zeros((3, len(K.CARD_FEATURES)))
        features(st, tb, t, 0, out)
        return b.card_names[choose(st, tb, t, 0)], out

    plain, out = card("", 5)
    assert plain == "Virtuoso"
    assert out[:, K.F_TOP] == pytest.approx([0.0, 0.4, 0.0])
    assert out[:, K.F_LATE] == pytest.approx(out[:, K.F_WORTH] * 5 / tb.finish_pos[t])
    assert card("card_top = -2", 5)[0] == "Skate"
    assert card("mat_top = -2", 5)[0] == "Virtuoso"         # the mat's weights count only on a mat
    assert card("card_late = -3", 0)[0] == "Virtuoso"
    assert card("card_late = -3", 40)[0] == "Skate"


def test_a_bad_weight_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "half.toml"
    path.write_text('name = "half"\n[weights]\ncoach_first = 0.5\n')
    code = main(["run", "--trail", "Kurz", "--players", str(path), "--races", "4", "--jobs", "1"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert code == 2 and 1 <= len(lines) <= 2 and "Traceback" not in err     # the problem (under a count)
    assert "half.toml: half: weights.coach_first: must be 0 or 1 (a switch), got 0.5" in lines[-1]


@pytest.mark.parametrize("weights, message", [
    ("search_mat = 1.5", "weights.search_mat: must be a whole number from 0 to 2, got 1.5"),
    ("search_from = 0.8\nsearch_to = 0.5",
     "weights.search_from: must be below search_to (0.5): the reference would never search; got 0.8"),
])
def test_the_reference_search_weights_are_refused_in_one_line_when_meaningless(tmp_path, capsys, weights, message):
    """search_mat names one of three choices, and search_from .. search_to must leave the reference
    somewhere to search: anything else is refused with the file, persona and field, exit status 2."""
    path = tmp_path / "gate.toml"
    path.write_text(f'name = "gate"\nkind = "reference"\nbase = "distilled"\n[weights]\nrollouts = 2\n{weights}\n')
    code = main(["run", "--trail", "Kurz", "--players", str(path), "--races", "4", "--jobs", "1"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert code == 2 and 1 <= len(lines) <= 2 and "Traceback" not in err
    assert f"gate.toml: gate: {message}" in lines[-1]


def test_a_weight_added_at_its_default_leaves_the_recorded_players_as_before():
    """A results folder's identity holds each player's recorded weights: the six card weights of
    the hand and the race, added after folders were written, are recorded only where a persona
    moves them off their default, so `distilled` records the 43 weights it did before they came
    (its folders stay extensible), `distilled2` records them, and both read back to the weights
    they play with."""
    from sim.blast import game as G
    from sim.blast.design import Design

    d = Design("Kurz", 4, None, None, ("distilled", "distilled2"))
    rec = G.player_records(d)
    assert len(rec["distilled"]["weights"]) == G.RECORDED_WEIGHTS == 43 < len(K.DEFAULT_PARAMS)
    assert len(rec["distilled2"]["weights"]) > G.RECORDED_WEIGHTS
    back = G.design_from_dict(G.design_dict(d), rec)
    for p, q in zip(back.players, d.resolved()):
        assert p.weights == tuple(float(w) for w in q.weights) and len(p.weights) == len(K.DEFAULT_PARAMS)
    # ladders and World Cups record their players the same way (the roster's recorded_weights)
    from sim.ladder import player_record, roster

    for name in ("distilled", "distilled2"):
        assert player_record(resolve(name), roster("blast"))["weights"] == rec[name]["weights"]


def _hand_card(b, weights, hand, pos, others=(), on_mat=0, wax=None):
    """The card choose_card_nb plays for Owens (seat 0, heuristic) on Kurz at `pos` with `hand`,
    Wei's and Pinto's racers standing on `others`, and the given wax (colour: tokens; none else)."""
    tb = b.tables
    t = b.trail_id("Kurz")
    names = ("Owens", "Wei", "Pinto")[:1 + len(others)]
    st = scenario(b, t, [b.biathlete_id(n) for n in names], [C.RED, C.BLACK, C.YELLOW][:len(names)])
    st.seat[SEAT_PLAYER, :len(names)] = HEURISTIC
    st.params[0] = weights
    place(st, 0, pos, on_mat=on_mat)
    for i, q in enumerate(others):
        place(st, 1 + i, q)
    st.wax[0, :] = 0
    for colour, k in (wax or {}).items():
        st.wax[0, colour] = k
    ids = [b.card_id(n) for n in hand]
    st.hand[0, :len(ids)] = ids
    st.seat[SEAT_HAND_N, 0] = len(ids)
    return b.card_names[python_callable(K.choose_card_nb)(st, tb, t, 0)]


def test_card_ends_judges_a_card_by_the_end_it_can_take(shipped, tmp_path):
    """card_ends (issue 27): from space 7 of Kurz, Virtuoso's bottom action (2 uphill, 3 flat, no
    pulse) reaches space 12, as Skate's top (5 flat) does for 1 pulse, and the plain card choice,
    which judges a card by its furthest reach, plays Virtuoso. With Wei on 12 (a single-lane space)
    that reach is worth nothing: every move stops on 11 at best, where Skate's bottom action (1
    uphill, 3 flat, no pulse) arrives as well, so judged by the end each can take (card_ends) the
    two are equal and the first in hand, Skate, is played and Virtuoso kept. Without Wei both
    choices are Virtuoso."""
    b = shipped
    assert b.tables.lanes[b.trail_id("Kurz"), 12] == 1
    hand = ("Skate", "Virtuoso", "Fjord Climb")
    plain, ends = persona(tmp_path, ""), persona(tmp_path, "card_ends = 1")
    assert _hand_card(b, plain, hand, 7, others=(12,)) == "Virtuoso"
    assert _hand_card(b, ends, hand, 7, others=(12,)) == "Skate"
    assert _hand_card(b, plain, hand, 7) == _hand_card(b, ends, hand, 7) == "Virtuoso"


def test_finish_first_plays_the_highest_initiative_home(shipped, tmp_path):
    """finish_first (issue 27): four spaces from Kurz's run-out (75), Adrenaline (initiative 10) and
    Diesel (initiative 4) both cross the finish; the plain choice plays Diesel, whose bottom action
    costs no pulse, though the pulse after the finish is worth nothing and a rival with a higher
    initiative that also crosses wins first. finish_first plays Adrenaline. On the range's mat (64),
    where the card is only its initiative, a Shoot with every hit (5 hits, 10 flat steps) reaches
    74; with one yellow or black wax token it would reach the run-out, and finish_first then plays
    the higher initiative (Adrenaline, not Alpine Lungs, initiative 2); with no wax it chooses as
    the plain player does."""
    b = shipped
    plain, first = persona(tmp_path, ""), persona(tmp_path, "finish_first = 1")
    assert _hand_card(b, plain, ("Adrenaline", "Diesel"), 71) == "Diesel"
    assert _hand_card(b, first, ("Adrenaline", "Diesel"), 71) == "Adrenaline"
    mat = ("Adrenaline", "Alpine Lungs")
    assert _hand_card(b, plain, mat, 64, on_mat=1, wax={C.YELLOW: 1}) == "Alpine Lungs"
    for colour in (C.YELLOW, C.BLACK):
        assert _hand_card(b, first, mat, 64, on_mat=1, wax={colour: 1}) == "Adrenaline"
    assert _hand_card(b, first, mat, 64, on_mat=1) == "Alpine Lungs"
