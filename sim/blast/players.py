"""Players by name: the random floor, heuristic personas (weight vectors in TOML files) and the
look-ahead player (docs/players.md).

A persona file (sim/data/players/blast/*.toml, or any path ending in .toml) names a player kind
and the weights it differs in from the persona it builds on:

    name = "sprinter"
    description = "Spends pulse and wax to gain ground; ..."
    kind = "heuristic"          # or "lookahead", "reference"
    base = "balanced"           # optional: start from this persona's weights
    [weights]
    progress = 1.4

A look-ahead or reference player's weights are those of its rollout policy plus `rollouts` and
`place_credit` (and the reference's `depth`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from kernels.blast import players as K

from ..validation import Problems, Table

PERSONA_DIR = Path(__file__).resolve().parent.parent / "data" / "players" / "blast"

#: the range each weight may take, and what it means (docs/players.md has the long form)
WEIGHTS: dict[str, tuple[float, float, str]] = {
    "progress": (0.0, 10.0, "value of one space of progress"),
    "pulse": (0.0, 10.0, "cost of one point of pulse after the action"),
    "pulse_high": (0.0, 10.0, "extra cost per squared point of pulse above high_from"),
    "high_from": (0.0, 20.0, "pulse from which the extra cost starts"),
    "band": (0.0, 10.0, "cost of one point of accuracy threshold when arriving near the range"),
    "icy": (0.0, 20.0, "cost of an icy action (a card removed) before the last lap"),
    "wax": (0.0, 20.0, "gain a wax token must bring before it is spent"),
    "bullet_reserve": (0.0, 6.0, "bullets kept back at the first range visit, for pick-ups"),
    "wait_gain": (0.0, 5.0, "expected extra hits that make a Wait worth a turn"),
    "coach": (0.0, 5.0, "value of ending a move in a coach zone, per token of its strength"),
    "late_wax": (0.0, 1.0, "wax price on the last lap, as a share of wax"),
    "wind_spite": (0.0, 5.0, "when setting the wind, weight of the others' gain against its own"),
    "pickup_hand": (0.0, 10.0, "pays a bullet to pick up when its hand is down to this many cards"),
    "rollouts": (0.0, 1000.0, "look-ahead, reference: rollouts per candidate card"),
    "place_credit": (0.0, 1.0, "look-ahead, reference: credit for a better place in a lost rollout"),
    "depth": (0.0, 200.0, "reference: rounds a rollout plays before it is judged (0: to the finish)"),
    "wait_max": (0.0, 10.0, "Waits at most this many turns in a row on a shooting mat"),
    "pickup_discard": (0.0, 40.0, "a bullet pick-up needs at least this many cards in the discard pile"),
    "pickup_bullets": (0.0, 10.0, "a bullet pick-up needs at least this many bullets held"),
    "white_calm": (0.0, 10.0, "white wax spent (at most) to calm the wind when a move reaches the range"),
    "worth_uphill": (0.0, 5.0, "a card's worth (the Motivation choice, the card feature worth): per uphill step"),
    "worth_flat": (0.0, 5.0, "a card's worth: per flat step"),
    "worth_downhill": (0.0, 5.0, "a card's worth: per downhill step"),
    "worth_pulse": (0.0, 5.0, "a card's worth: less this per point of the action's pulse cost"),
    "worth_icy": (0.0, 10.0, "a card's worth: less this for an icy action"),
    "worth_wind": (-5.0, 5.0, "a card's worth: plus this for an action with the wind symbol"),
    "wind_ahead": (0.0, 20.0, "judges the wind for the space this many spaces ahead (whole spaces)"),
    "coach_first": (0.0, 1.0, "a switch: 1 spends the red coach boost's bullets before its own at a Shoot, "
                              "0 its own first (dominated, docs/players.md)"),
    "band_window": (0.0, 30.0, "spaces before the range within which the accuracy band counts"),
    "card_worth": (-50.0, 50.0, "card choice off a mat: weight of the card's position-free worth (as for Motivation cards) (distilled policy; 0: the heuristic)"),
    "card_init": (-50.0, 50.0, "card choice off a mat: weight of its initiative with the dice as they show (distilled policy; 0: the heuristic)"),
    "card_gain": (-50.0, 50.0, "card choice off a mat: weight of spaces its better action gains from here (distilled policy; 0: the heuristic)"),
    "card_pulse": (-50.0, 50.0, "card choice off a mat: weight of pulse cost of its better action (distilled policy; 0: the heuristic)"),
    "card_steps": (-50.0, 50.0, "card choice off a mat: weight of steps of its better action (distilled policy; 0: the heuristic)"),
    "card_icy": (-50.0, 50.0, "card choice off a mat: weight of 1 if either action is icy (distilled policy; 0: the heuristic)"),
    "card_wind": (-50.0, 50.0, "card choice off a mat: weight of 1 if either action shows the wind symbol (distilled policy; 0: the heuristic)"),
    "mat_worth": (-50.0, 50.0, "card choice on a shooting mat: weight of the card's position-free worth (as for Motivation cards) (distilled policy; 0: the heuristic)"),
    "mat_init": (-50.0, 50.0, "card choice on a shooting mat: weight of its initiative with the dice as they show (distilled policy; 0: the heuristic)"),
    "mat_gain": (-50.0, 50.0, "card choice on a shooting mat: weight of spaces its better action gains from here (distilled policy; 0: the heuristic)"),
    "mat_pulse": (-50.0, 50.0, "card choice on a shooting mat: weight of pulse cost of its better action (distilled policy; 0: the heuristic)"),
    "mat_steps": (-50.0, 50.0, "card choice on a shooting mat: weight of steps of its better action (distilled policy; 0: the heuristic)"),
    "mat_icy": (-50.0, 50.0, "card choice on a shooting mat: weight of 1 if either action is icy (distilled policy; 0: the heuristic)"),
    "mat_wind": (-50.0, 50.0, "card choice on a shooting mat: weight of 1 if either action shows the wind symbol (distilled policy; 0: the heuristic)"),
    "card_top": (-50.0, 50.0, "card choice off a mat: weight of the best card's lead in worth over the next best in hand (0 for the others; below 0 keeps the best card)"),
    "card_late": (-50.0, 50.0, "card choice off a mat: weight of its worth times the share of the race run (above 0 plays big cards late)"),
    "card_late_gain": (-50.0, 50.0, "card choice off a mat: weight of the spaces it gains times the share of the race run"),
    "mat_top": (-50.0, 50.0, "card choice on a shooting mat: weight of the best card's lead in worth over the next best in hand (0 for the others)"),
    "mat_late": (-50.0, 50.0, "card choice on a shooting mat: weight of its worth times the share of the race run"),
    "mat_late_gain": (-50.0, 50.0, "card choice on a shooting mat: weight of the spaces it gains times the share of the race run"),
    "card_ends": (0.0, 1.0, "a switch: 1 judges a card off a mat by the best legal end of its better action (occupancy, drafting, wind, coach zones), as the move chooses it; 0 by the furthest space it reaches"),
    "finish_first": (0.0, 1.0, "a switch: 1 plays, when a card can cross the finish (or on a mat a Shoot with every hit could), the one of highest initiative among them: the first to cross wins; 0 as scored"),
    "search_from": (0.0, 1.0, "reference: searches only from this share of the race run ..."),
    "search_to": (0.0, 1.0, "reference: ... up to this share (elsewhere the heuristic's card)"),
    "search_mat": (0.0, 2.0, "reference: 0 searches on and off a shooting mat, 1 only off one, 2 only on one"),
}
assert tuple(WEIGHTS) == K.PARAM_NAMES, "sim.blast.players.WEIGHTS must follow kernels' P_* order"
#: weights that are switches: only the two ends of their range mean anything
SWITCHES = ("coach_first", "card_ends", "finish_first")
#: weights that name one of a few choices: whole numbers only
WHOLE = ("search_mat",)

KINDS = {"heuristic": K.HEURISTIC, "lookahead": K.LOOKAHEAD, "reference": K.REFERENCE}
SEARCH_KINDS = (K.LOOKAHEAD, K.REFERENCE)       # kinds that choose their card by rollouts
ALIASES = {"heuristic": "balanced", "default": "distilled"}    # default: sim.games' default_player


@dataclass(frozen=True)
class Player:
    """A named player: its kernel kind and its weight vector (kernels.blast.players.P_*)."""

    name: str
    kind: int
    weights: tuple[float, ...]
    description: str = ""
    source: str = "built-in"

    @property
    def kind_name(self) -> str:
        return K.PLAYER_KINDS[self.kind]

    def weight(self, key: str) -> float:
        return self.weights[K.PARAM_NAMES.index(key)]

    def with_weights(self, name: str, weights) -> "Player":
        return replace(self, name=name, weights=tuple(float(w) for w in weights), source="")


DEFAULT_WEIGHTS = tuple(float(w) for w in K.DEFAULT_PARAMS)
RANDOM = Player("random", K.RANDOM, DEFAULT_WEIGHTS, "Every choice uniformly among the legal ones: the floor.")
SCRIPTED = Player("scripted", K.SCRIPTED, DEFAULT_WEIGHTS, "Tests: plays a script, else the default heuristic.")


def read_persona(path: Path, known: dict[str, Player], problems: Problems, doc: dict | None = None) -> Player | None:
    """One persona file (or its parsed `doc`), building on the personas in `known`; None (with
    problems) if bad."""
    doc = problems.read_toml(path) if doc is None else doc
    if doc is None:
        return None
    file = problems.rel(path)
    t = Table(problems, file, "", doc)
    name = t.name()
    t.entry = name
    description = t.str("description", "")
    kind = t.choice("kind", list(KINDS), "heuristic")
    base_name = t.str("base", "balanced" if name != "balanced" else "")
    weights = list(DEFAULT_WEIGHTS)
    if base_name:
        base = known.get(ALIASES.get(base_name.lower(), base_name.lower()))
        if base is None:
            t.problem("base", f"must name a persona defined before this one ({', '.join(sorted(known))}); "
                              f"got {base_name!r}")
        else:
            weights = list(base.weights)
    wt = t.table("weights", {})
    for key, (lo, hi, _) in WEIGHTS.items():
        if wt.has(key):
            value = wt.number(key, None, lo, hi)
            if key in SWITCHES and lo < value < hi:
                wt.problem(key, f"must be {lo:g} or {hi:g} (a switch), got {value:g}")
            if key in WHOLE and value != int(value):
                wt.problem(key, f"must be a whole number from {lo:g} to {hi:g}, got {value:g}")
            weights[K.PARAM_NAMES.index(key)] = value
    wt.done(hint=WEIGHTS)
    t.done()
    if KINDS[kind] in SEARCH_KINDS and weights[K.P_ROLLOUTS] < 1:
        t.problem("weights.rollouts", f"a {kind} player needs at least 1 rollout per card")
    if weights[K.P_SEARCH_FROM] >= weights[K.P_SEARCH_TO]:
        t.problem("weights.search_from", f"must be below search_to ({weights[K.P_SEARCH_TO]:g}): the reference "
                                         f"would never search; got {weights[K.P_SEARCH_FROM]:g}")
    if not name:
        return None
    return Player(name.lower(), KINDS[kind], tuple(weights), description, file)


def _base_of(doc: dict) -> str:
    """The persona a parsed file builds on (lower case, aliases resolved); "" for none."""
    name = str(doc.get("name", "")).lower()
    base = doc.get("base", "" if name == "balanced" else "balanced")
    return ALIASES.get(base.lower(), base.lower()) if isinstance(base, str) else ""


def _load_dir(folder: Path, known: dict[str, Player], problems: Problems) -> None:
    """Every persona in `folder`, each read after the persona it builds on, in any file order."""
    pending = {path: doc for path in sorted(folder.glob("*.toml"))
               if (doc := problems.read_toml(path)) is not None}
    while pending:
        waiting_for = {str(doc.get("name", "")).lower() for doc in pending.values()}
        ready = [path for path, doc in pending.items() if _base_of(doc) not in waiting_for]
        for path in ready or list(pending):      # none ready: a cycle, read to report it
            player = read_persona(path, known, problems, pending.pop(path))
            if player is not None:
                if player.name in known:
                    problems.add(problems.rel(path), player.name, "name",
                                 f"is already used by {known[player.name].source}")
                known[player.name] = player


_SHIPPED: dict[tuple, dict[str, Player]] = {}


def _shipped() -> dict[str, Player]:
    """Random and the shipped personas, read once per state of their folder (each file's name,
    size and modification time): a study or test set-up resolves a player per seat, and reading
    every persona file again each time cost a thousand set-ups 60 s."""
    key = tuple((p.name, st.st_size, st.st_mtime_ns)
                for p in sorted(PERSONA_DIR.glob("*.toml")) for st in (p.stat(),))
    if key not in _SHIPPED:
        known: dict[str, Player] = {"random": RANDOM}
        problems = Problems(Path.cwd())
        _load_dir(PERSONA_DIR, known, problems)
        problems.raise_if_any()
        _SHIPPED.clear()
        _SHIPPED[key] = known
    return dict(_SHIPPED[key])


def available(extra: list[str | Path] = ()) -> dict[str, Player]:
    """Every player by name: random, the shipped personas and those in `extra` folders or files."""
    known = _shipped()
    problems = Problems(Path.cwd())
    for item in extra:
        item = Path(item)
        if item.is_dir():
            _load_dir(item, known, problems)
        else:
            player = read_persona(item, known, problems)
            if player is not None:
                known[player.name] = player
    problems.raise_if_any()
    return known


def resolve(name: str | Player, known: dict[str, Player] | None = None) -> Player:
    """The player a name (or a persona file path) stands for; KeyError naming the known ones."""
    if isinstance(name, Player):
        return name
    if known is None:
        known = available()
    key = name.strip()
    if key.lower().endswith(".toml"):
        problems = Problems(Path.cwd())
        player = read_persona(Path(key), known, problems)
        problems.raise_if_any()
        return player
    key = ALIASES.get(key.lower(), key.lower())
    if key == "scripted":
        return SCRIPTED
    if key not in known:
        raise KeyError(f"no player named {name!r}; known: {', '.join(sorted(known))}, "
                       f"or a persona file (.toml)")
    return known[key]


def write_persona(player: Player, path: Path, base: str = "balanced", description: str = "",
                  note: str = "") -> None:
    """Write a persona file that builds on nothing: every weight spelled out."""
    lines = [f"# {note}" for note in note.splitlines()] + [
        f'name = "{player.name}"',
        f'description = "{description or player.description}"',
        f'kind = "{player.kind_name}"',
        'base = ""',
        "",
        "[weights]",
    ]
    for key, w in zip(K.PARAM_NAMES, player.weights):
        lines.append(f"{key} = {round(w, 4)!r:<10} # {WEIGHTS[key][2]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


__all__ = ["Player", "available", "resolve", "read_persona", "write_persona", "PERSONA_DIR", "WEIGHTS"]
