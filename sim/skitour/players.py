"""Ski Tour players by name: the random floor and heuristic personas (weight vectors in TOML).

A persona file (sim/data/players/skitour/*.toml, or any path ending in .toml):

    name = "sprinter"
    description = "..."
    kind = "heuristic"
    base = "balanced"           # optional: start from this persona's weights
    [weights]
    extra_min = 2.0

Weights are those of kernels/skitour/players.py (`PARAM_NAMES`); `balanced` is the default.
"""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

from kernels.skitour import consts as C
from kernels.skitour import engine as E
from kernels.skitour import players as K

PERSONA_DIR = Path(__file__).resolve().parent.parent / "data" / "players" / "skitour"
ALIASES = {"heuristic": "balanced", "default": "balanced"}


@dataclass(frozen=True)
class PlayerSpec:
    """What the kernel needs of a player: its kind (consts.PLAYER_*) and weights
    (kernels/skitour/players.py, P_*)."""

    name: str
    kind: int
    weights: tuple[float, ...]


RANDOM = PlayerSpec("random", C.PLAYER_RANDOM, tuple(float(w) for w in K.DEFAULT_PARAMS))


@functools.cache
def _docs() -> dict[str, dict]:
    out = {}
    for path in sorted(PERSONA_DIR.glob("*.toml")):
        doc = tomllib.loads(path.read_text())
        out[doc.get("name", path.stem)] = doc | {"_path": str(path)}
    return out


def _resolve(doc: dict, seen=()) -> list[float]:
    base = doc.get("base", "")
    if base:
        if base in seen:
            raise ValueError(f"persona {doc.get('name')!r}: base cycle through {base!r}")
        weights = _resolve(_doc(base), seen + (base,))
    else:
        weights = [float(w) for w in K.DEFAULT_PARAMS]
    for key, value in doc.get("weights", {}).items():
        if key not in K.PARAM_NAMES:
            raise ValueError(f"{doc.get('_path', 'persona')}: unknown weight {key!r}; known: "
                             f"{', '.join(K.PARAM_NAMES)}")
        lo, hi, _ = WEIGHTS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo <= value <= hi:
            raise ValueError(f"{doc.get('_path', 'persona')}: weights.{key}: expected a number from {lo:g} to "
                             f"{hi:g}, got {value!r}")
        weights[K.PARAM_NAMES.index(key)] = float(value)
    return weights


def _doc(name: str) -> dict:
    docs = _docs()
    if name not in docs:
        raise ValueError(f"no Ski Tour player named {name!r}; known: {', '.join(names())}")
    return docs[name]


def names() -> list[str]:
    return ["random", *_docs()]


def get_player(name: str) -> PlayerSpec:
    """A player by name ('random', a persona name, an alias, or a path to a persona file)."""
    if isinstance(name, PlayerSpec):
        return name
    name = ALIASES.get(name, name)
    if name == "random":
        return RANDOM
    if str(name).endswith(".toml"):
        doc = tomllib.loads(Path(name).read_text()) | {"_path": str(name)}
    else:
        doc = _doc(name)
    kind = doc.get("kind", "heuristic")
    if kind not in ("heuristic", "lookahead", "reference"):
        raise ValueError(f"{doc.get('_path', 'persona')}: kind: Ski Tour players are 'random' or "
                         f"personas of kind heuristic, lookahead or reference, got {kind!r}")
    return PlayerSpec(doc.get("name", str(name)), C.PLAYER_KINDS.index(kind), tuple(_resolve(doc)))


def description(name: str) -> str:
    name = ALIASES.get(name, name)
    if name == "random":
        return "Every choice uniformly among the legal ones: the floor."
    return _doc(name).get("description", "")


# --- ladders and tuning (sim.ladder, sim.tune) ------------------------------------------------

#: the range each weight may take when tuned, and what it means (docs/skitour/players.md); the
#: 0/1 switches (range_extra, bonus, flip) are read by the kernel as "above one half"
WEIGHTS: dict[str, tuple[float, float, str]] = {
    "extra_min": (0.0, 10.0, "dice an additional column must bring to be worth a stamina"),
    "reserve": (0.0, 10.0, "voluntary stamina only while the highest marker value is above this"),
    "range_extra": (0.0, 1.0, "1: additional columns on shooting turns too; 0: never"),
    "six_sprint": (0.0, 10.0, "value of a six in the sprint column"),
    "six_box": (0.0, 10.0, "value of a six in a box, times the column's share of full"),
    "occupied": (0.0, 10.0, "cost (rows) of paying a stamina for an occupied space"),
    "draft_pay": (0.0, 10.0, "most stamina a draft may cost"),
    "bonus": (0.0, 1.0, "1: take downhill bonus steps"),
    "wax_price": (0.0, 10.0, "gain (dice) a token must bring before it is spent"),
    "sprint_min": (0.0, 10.0, "sprint-column dice that make a sprint icon worth using"),
    "flip": (0.0, 1.0, "1: trade a flip-box six for a token turned face up again"),
    "green": (0.0, 10.0, "value (rows) of ending behind a racer on green"),
    "red": (0.0, 10.0, "cost (rows) of ending on red"),
    **{f"token_{icon}": (-10.0, 10.0, f"set-up value of the {icon.replace('_', ' ')} wax icon")
       for icon in ("reroll_shot", "sprint", "free_column", "reroll_one", "reroll_all", "plus_one",
                    "minus_one", "stamina")},
    "plan": (0.0, 1.0, "1: plan the whole move and count only what the turn can use; 0: step by "
                       "step"),
    "icon_free_column": (-10.0, 10.0, "value (dice) of a free column over the second-fullest "
                                      "column's dice"),
    "icon_reroll_shot": (-10.0, 10.0, "value (dice) of re-rolling a missed shot"),
    "icon_reroll_one": (-10.0, 10.0, "value (dice) of re-rolling one die"),
    "icon_reroll_all": (-10.0, 10.0, "value (dice) of re-rolling a nearly empty board"),
    "icon_stamina": (-10.0, 10.0, "value (dice) of a stamina icon's payment"),
    "tie_right": (0.0, 1.0, "1: a tie for the highest stamina value pays from the rightmost "
                            "column; 0: the leftmost"),
    # the strength reference's budget (kind "reference"; every other kind ignores them)
    "rollouts": (0.0, float(E.MAX_ROLLOUTS), "reference: rollouts per option of a searched decision "
                                             "(0: none)"),
    "horizon": (0.0, 200.0, "reference: rounds a rollout plays, the current one first (0: to the "
                            "race's end)"),
    "decisions": (0.0, float(E.MAX_SEARCHED), "reference: decisions of its turn searched, first "
                                              "to last"),
    "place_credit": (0.0, 10.0, "reference: a rollout scores won + place_credit * share of the "
                                "rivals behind"),
    "confidence": (0.0, 10.0, "reference: standard errors an option's mean gain over the default's "
                              "own pick must exceed to replace it"),
    "pace": (0.0, 2.0, "stamina per row still to go the racer keeps; ahead of it the surplus "
                       "weights apply"),
    "extra_surplus": (0.0, 10.0, "dice an additional column must bring while ahead of the pace"),
    "icon_stamina_surplus": (-10.0, 10.0, "value (dice) of a stamina icon's payment while ahead "
                                          "of the pace"),
    "first_waste": (0.0, 10.0, "cost (dice) of each die of the mandatory column beyond what the "
                               "turn can use"),
    "pace_share": (0.0, 2.0, "more stamina kept per row to go, as a share of the race's own pace "
                             "(start stamina over the course's rows)"),
    "first_high": (-1.0, 1.0, "the mandatory column among equals: the highest (1) or the lowest "
                              "(-1)"),
    "stamina_rows": (0.0, 10.0, "reference: rows a stamina point left is worth when a rollout's end "
                                "compares the racers still racing (0: rows alone)"),
    "stamina_cap": (0.0, 2.0, "reference: stamina counted there at most this much per row still to "
                              "go (0: all of it)"),
    "draft_spot": (0.0, 10.0, "value (rows) of ending a move directly behind a racer one may draft "
                              "on"),
    "look_extra": (0.0, 1.0, "1: an additional column, or a +1 / -1 / sprint icon after the "
                             "columns, is worth the rows the planned move gains with it; 0: the "
                             "moves it adds"),
    "look_first": (0.0, 1.0, "1: the mandatory column on a moving turn is worth the rows of the "
                             "planned move it gives; 0: the dice it brings"),
    "draft_next": (0.0, 10.0, "value (rows) added to draft_spot where the racer ahead moves before "
                              "this racer's next turn (it has yet to move this round, or did not "
                              "open it)"),
    "bonus_stay": (0.0, 10.0, "value (rows) of stopping a downhill bonus directly behind a racer "
                              "that moves before this racer's next turn"),
    "last_spend": (0.0, 1.0, "share of the pace no longer kept once past the last range"),
    "occupied_cut": (0.0, 0.95, "share of occupied taken off while ahead of the pace (and able to "
                                "pay an entry into every other racer's space)"),
}
assert tuple(WEIGHTS) == K.PARAM_NAMES, "sim.skitour.players.WEIGHTS must follow the kernel's P_* order"

#: the reference's budget, not a style: `tune` leaves it as it is
SEARCH = ("rollouts", "horizon", "decisions", "place_credit", "confidence", "stamina_rows",
          "stamina_cap")

#: the weights `tune` moves: all of them but the search budget (no weight is the unit of the
#: others: the scores mix rows, dice and stamina)
TUNED = tuple(k for k in K.PARAM_NAMES if k not in SEARCH)

#: the initial spread of each weight in a tuning. Measured one weight at a time (balanced with one
#: weight moved up or down, against three balanced, 4,000 seats on Starter and Long): the weights
#: compared with whole dice or rows act as thresholds, and moving extra_min by 0.75, six_sprint by
#: 0.5 or six_box by 0.4 costs 10 to 20 points of win rate, while reserve, draft_pay and the
#: switches change nothing at +-1 or +-0.4. So the spreads are small where a step is costly (about
#: the move that costs a few points) and wide where it is cheap (0.4 for the switches: about one
#: draw in ten flips one).
SPREAD = {
    "extra_min": 0.3, "reserve": 1.0, "range_extra": 0.4, "six_sprint": 0.25, "six_box": 0.15,
    "occupied": 0.2, "draft_pay": 1.0, "bonus": 0.4, "wax_price": 0.3, "sprint_min": 0.5, "flip": 0.4,
    "green": 0.4, "red": 0.4, "token_reroll_shot": 0.5, "token_sprint": 0.5, "token_free_column": 0.5,
    "token_reroll_one": 0.5, "token_reroll_all": 0.5, "token_plus_one": 0.5, "token_minus_one": 0.5,
    "token_stamina": 0.5, "plan": 0.4, "icon_free_column": 0.5, "icon_reroll_shot": 0.5,
    "icon_reroll_one": 0.3, "icon_reroll_all": 0.5, "icon_stamina": 0.5, "tie_right": 0.4,
    "pace": 0.05, "extra_surplus": 0.3, "icon_stamina_surplus": 0.5, "first_waste": 0.3,
    "pace_share": 0.1, "first_high": 0.4, "draft_spot": 0.3, "look_extra": 0.4, "look_first": 0.4,
    "draft_next": 0.3, "bonus_stay": 0.3, "last_spend": 0.3, "occupied_cut": 0.3,
}
assert tuple(SPREAD) == TUNED


def available() -> dict[str, PlayerSpec]:
    """Every player by name: random and the shipped personas."""
    return {name: get_player(name) for name in names()}


def resolve(name: str | PlayerSpec, known: dict[str, PlayerSpec] | None = None) -> PlayerSpec:
    """The player a name (any case, aliases too) or a persona file path (.toml) stands for;
    KeyError naming the known ones, ValueError for a persona file that cannot be read."""
    if isinstance(name, PlayerSpec):
        return name
    key = str(name).strip()
    if key.lower().endswith(".toml"):
        try:
            return get_player(key)
        except OSError as exc:
            raise ValueError(f"cannot read persona file {key!r}: {exc.strerror or exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"persona file {key!r} is not valid TOML: {exc}") from None
    known = available() if known is None else known
    key = ALIASES.get(key.lower(), key.lower())
    if key not in known:
        raise KeyError(f"no player named {name!r}; known: {', '.join(sorted(known))}, "
                       f"or a persona file (.toml)")
    return known[key]


def source(name: str) -> str | None:
    """The file a shipped persona is read from (None for random or an unknown name)."""
    return _docs().get(ALIASES.get(name, name), {}).get("_path")


def with_weights(player: PlayerSpec, name: str, weights) -> PlayerSpec:
    """The player's kind with other weights and another name (a candidate of a tuning)."""
    return PlayerSpec(name, player.kind, tuple(float(w) for w in weights))


def write_persona(player: PlayerSpec, path: Path, description: str = "", note: str = "") -> None:
    """Write a persona file that builds on nothing: every weight spelled out."""
    text = description.replace("\\", "\\\\").replace('"', '\\"')
    lines = [f"# {line}" for line in note.splitlines()] + [
        f'name = "{player.name}"',
        f'description = "{text}"',
        f'kind = "{C.PLAYER_KINDS[player.kind]}"',
        'base = ""',
        "",
        "[weights]",
    ]
    for key, w in zip(K.PARAM_NAMES, player.weights):
        lines.append(f"{key} = {round(w, 4)!r:<10} # {WEIGHTS[key][2]}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
