"""The facts of the box (../shared/game-facts.md) hold in the shipped Blast data, whatever a balance
search changed (issue 17): the wax and bullet counts, Owens's bib 244 and high initiative, Olsson's
poor shooting and strong flats, Pinto's 3+ at medium pulse, and the cards the rulebook's worked
examples name. Every other value is a reconstruction a search may move. The example sets
`blast-unbalanced` (the values before any search) and `blast-balanced-before-default` (issue 17's
search, before issue 31's) keep them too."""
from __future__ import annotations

import pytest

from sim.blast.load import load_data


@pytest.fixture(scope="module", params=[None, "blast-unbalanced", "blast-balanced-before-default"],
                ids=["shipped", "blast-unbalanced", "blast-balanced-before-default"])
def data(request):
    return load_data(request.param)


def card(data, name):
    for b in data.biathletes:
        for c in b.cards:
            if c.name == name:
                return c
    raise KeyError(name)


def plain(v) -> int | None:
    return v.base if v.source is None else None


def test_the_box_gear(data):
    g = data.gear
    assert g.bullets == {"red": 4, "black": 3, "yellow": 3, "green": 3, "blue": 3, "white": 3}
    assert sum(g.bullets.values()) == 19
    assert g.wax["red"] == {}
    assert [sum(g.wax[c].values()) for c in ("black", "yellow", "green", "blue", "white")] == [2, 3, 4, 3, 2]
    assert sum(sum(w.values()) for w in g.wax.values()) == 14


def test_owens_and_olsson_and_pinto(data):
    by = {b.name: b for b in data.biathletes}
    assert set(by) >= {"Owens", "Olsson", "Wei", "Fischer", "Pinto", "Bakken"} and len(by) == 8
    assert by["Owens"].bib == "244"
    assert by["Pinto"].accuracy[1] == 3                       # the shooting example
    # Olsson shoots poorly: her tile's thresholds add up to the most (the worst) of the field, and
    # she needs 3+ or more at every pulse
    worst = {n: sum(b.accuracy) for n, b in by.items()}
    assert worst["Olsson"] == max(worst.values()) and min(by["Olsson"].accuracy) >= 3, worst
    # ... and skis the flats well: the most flat steps on her unique cards' top actions
    flat = {n: sum(plain(c.top.flat) or 0 for c in b.cards) for n, b in by.items()}
    assert flat["Olsson"] == max(flat.values()), flat
    # Owens has very high initiative: the highest printed initiative of any unique card is his
    top = {n: max(plain(c.initiative) or 0 for c in b.cards) for n, b in by.items()}
    assert top["Owens"] == max(top.values()), top


def test_the_cards_of_the_worked_examples(data):
    assert plain(card(data, "Virtuoso").initiative) == 9
    offset = card(data, "Offset")
    assert (offset.initiative.source, offset.initiative.mult) == ("red", 2) and offset.top.pulse == 1
    prime = card(data, "Prime Time").top
    assert (plain(prime.flat), plain(prime.downhill), prime.pulse) == (4, 6, 2)
    dragon = card(data, "Dragon Descent").top
    assert (plain(dragon.uphill), plain(dragon.downhill)) == (2, 5)
    assert plain(card(data, "Rush More").bottom.flat) == 2
    assert card(data, "Carnival").initiative.base == 5


def test_the_shipped_tiles_keep_their_descriptions():
    """Not facts of the box but of the reconstruction: the ship search's accuracy knobs are bounded by
    the biathletes' flags and descriptions (experiments/balance_blast_ship.toml, the
    flattened ship file), so the shipped tiles still say what the descriptions say. Pinto is "the sharpest shot in
    the field"; Girard "shoots almost perfectly while calm"; Leitner has "an ordinary rifle" and
    "sprays shots once tired"; Bakken's rifle is "steady rather than brilliant"; Wei's is
    "reliable", not the best; Fischer's "sharp while fresh and wild when tired"."""
    by = {b.name: b for b in load_data(None).biathletes}
    total = {n: sum(b.accuracy) for n, b in by.items()}
    assert total["Pinto"] == min(total.values()), total
    assert by["Pinto"].accuracy[0] == 1 and by["Girard"].accuracy[0] == 1
    assert list(by["Leitner"].accuracy) == [2, 4, 5]
    assert by["Bakken"].accuracy[0] >= 2 and by["Bakken"].accuracy[2] - by["Bakken"].accuracy[0] <= 1
    assert total["Wei"] > total["Pinto"] and by["Wei"].accuracy[0] >= 2
    # Wei "reliable": never more than two pips between calm and tired, no worse than 4+; Fischer
    # "sharp while fresh and wild when tired": 2+ or better calm, 4+ or worse tired
    assert by["Wei"].accuracy[2] - by["Wei"].accuracy[0] <= 2 and max(by["Wei"].accuracy) <= 4
    assert by["Fischer"].accuracy[0] <= 2 and by["Fischer"].accuracy[2] >= 4
