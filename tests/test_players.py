"""Players by name: persona files, the look-ahead player's rules and determinism, the referee on
races of every player."""
import numpy as np
import pytest

from kernels.blast import players as K
from sim.blast import load_bundle
from sim.blast.play import make_setup, play_block, play_one
from sim import games
from sim.blast.design import Design
from sim.blast.players import available, read_persona, resolve
from sim.blast.referee import referee_race
from sim.validation import DataError, Problems


@pytest.fixture(scope="module")
def bundle():
    return load_bundle()


def test_shipped_personas_load_and_differ():
    known = available()
    for name in ("random", "balanced", "distilled", "sprinter", "conservative", "sharpshooter", "lookahead",
                 "reference"):
        assert name in known, name
    assert resolve("heuristic") == known["balanced"]
    # the default player (sim.games' default_player) is the distilled card policy
    assert resolve("DEFAULT") == known["distilled"] == known[games.game("blast").default_player]
    assert Design("Kurz").resolved() == (known["distilled"],)
    # the balanced file spells out the kernel's default weights
    assert np.allclose(known["balanced"].weights, K.DEFAULT_PARAMS)
    styles = {tuple(known[n].weights) for n in ("balanced", "sprinter", "conservative", "sharpshooter")}
    assert len(styles) == 4
    la = known["lookahead"]
    assert la.kind == K.LOOKAHEAD and la.weight("rollouts") >= 1
    assert la.weight("progress") == known["balanced"].weight("progress")     # built on balanced
    ref = known["reference"]
    assert ref.kind == K.REFERENCE and ref.weight("rollouts") >= 1 and ref.weight("depth") == 0
    # the reference rolls out, and plays every choice but its card, as the default does
    same = [k for k in K.PARAM_NAMES if k not in ("rollouts", "place_credit", "depth")]
    assert all(ref.weight(k) == known["distilled"].weight(k) for k in same)


@pytest.mark.parametrize("body, message", [
    ('name = "x"\n[weights]\nprogres = 1.0\n', "weights.progres: is not a known field (did you mean 'progress'?)"),
    ('name = "x"\n[weights]\npulse = -1\n', "weights.pulse: must be a number from 0.0 to 10.0, got -1"),
    ('name = "x"\nbase = "nobody"\n', "base: must name a persona defined before this one"),
    ('name = "x"\nkind = "genius"\n', "kind: must be one of heuristic, lookahead"),
    ('name = "x"\nkind = "lookahead"\n', "a lookahead player needs at least 1 rollout"),
    ('name = "x"\nkind = "reference"\n', "a reference player needs at least 1 rollout"),
    ('[weights]\npulse = 1\n', "name: is missing"),
    ('name = "x"\n[weights]\ncoach_first = 0.5\n', "weights.coach_first: must be 0 or 1 (a switch), got 0.5"),
    ('name = "x"\n[weights]\nband_window = 31\n', "weights.band_window: must be a number from 0.0 to 30.0, got 31"),
    ('name = "x"\n[weights]\nworth_icy = -1\n', "weights.worth_icy: must be a number from 0.0 to 10.0, got -1"),
])
def test_bad_persona_files_are_explained(tmp_path, body, message):
    path = tmp_path / "x.toml"
    path.write_text(body)
    problems = Problems(tmp_path)
    read_persona(path, available(), problems)
    assert any(message in str(p) for p in problems.items), [str(p) for p in problems.items]
    with pytest.raises(DataError):
        resolve(str(path))


def test_unknown_player_names_the_known_ones():
    with pytest.raises(KeyError, match="sharpshooter"):
        resolve("genius")


def test_a_persona_file_is_a_player(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\nbase = "sprinter"\n[weights]\nwind_spite = 2.0\n')
    p = resolve(str(path))
    assert p.name == "mine" and p.weight("wind_spite") == 2.0
    assert p.weight("progress") == resolve("sprinter").weight("progress")


def test_lookahead_without_rollouts_plays_exactly_as_balanced(bundle):
    """The look-ahead hook alone changes nothing: with 0 rollouts it is the heuristic, move for
    move; so whatever it changes with rollouts comes from the rollouts' choice of card."""
    bal = resolve("balanced")
    la0 = resolve("lookahead").with_weights("la0", [0.0 if i in (K.P_ROLLOUTS, K.P_PLACE_CREDIT) else w
                                                    for i, w in enumerate(bal.weights)])
    la0 = type(la0)(la0.name, K.LOOKAHEAD, la0.weights)
    races = np.arange(60)
    a = play_block(bundle, [make_setup(bundle, "Kurz", ["Owens", "Wei", "Pinto"], None, [bal] * 3)] * 60, 4, races)
    b = play_block(bundle, [make_setup(bundle, "Kurz", ["Owens", "Wei", "Pinto"], None, [la0, bal, la0])] * 60, 4,
                   races)
    a["player"] = b["player"] = 0
    assert (a == b).all()


def legal_race(bundle, setup, seed, race):
    """Race `race` of `seed` played and its log passed by the referee."""
    log = play_one(bundle, setup, seed, race)
    report = referee_race(bundle, setup.trail, list(setup.biathletes), list(setup.colours), log.events)
    assert report.ok, report.message
    return log


def test_lookahead_races_are_legal_deterministic_and_differ(bundle):
    la = resolve("lookahead")
    la = la.with_weights("la-small", [3.0 if i == K.P_ROLLOUTS else w for i, w in enumerate(la.weights)])
    la = type(la)(la.name, K.LOOKAHEAD, la.weights)
    bal = resolve("balanced")
    setup = make_setup(bundle, "Short", ["Fischer", "Olsson", "Bakken", "Girard"], None, [la, bal, la, bal])
    differs = 0
    for race in range(6):
        log = legal_race(bundle, setup, 9, race)
        again = play_one(bundle, setup, 9, race)
        assert (again.events == log.events).all()
        block = play_block(bundle, [setup], 9, [race])
        assert (block["place"] == log.results["place"]).all()        # place: the same race in a block
        plain = play_one(bundle, make_setup(bundle, "Short", ["Fischer", "Olsson", "Bakken", "Girard"], None, bal), 9, race)
        differs += plain.events.shape != log.events.shape or bool((plain.events != log.events).any())
    assert differs >= 3          # the rollouts do change choices


def test_the_distilled_persona_reads_its_card_weights_and_plays_legal_races(bundle):
    """`distilled` is balanced with fitted card weights (docs/players.md, "A distilled card policy"):
    the file's weights reach the kernel, change the card choice, and the races stay legal."""
    d = resolve("distilled")
    bal = resolve("balanced")
    assert d.kind == K.HEURISTIC
    card = K.PARAM_NAMES[K.P_CARD0:K.P_CARDX0]
    assert len(card) == 2 * (K.N_CARD_FEATURES - 1) and K.P_CARDX0 + 2 * K.N_CARD_EXTRA == K.P_CARD_ENDS
    assert any(d.weight(n) != 0 for n in card) and all(bal.weight(n) == 0 for n in K.PARAM_NAMES[K.P_CARD0:K.P_SEARCH_FROM])
    names = ["Fischer", "Olsson", "Bakken", "Girard"]
    setup = make_setup(bundle, "Kurz", names, None, [d, bal, d, bal])
    plain = make_setup(bundle, "Kurz", names, None, bal)
    differs = 0
    for race in range(8):
        log = legal_race(bundle, setup, 5, race)
        other = play_one(bundle, plain, 5, race)
        differs += log.events.shape != other.events.shape or bool((log.events != other.events).any())
    assert differs >= 4          # the card weights do change choices
