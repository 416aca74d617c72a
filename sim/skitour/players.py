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
from pathlib import Path

from kernels.skitour import consts as C
from kernels.skitour import players as K

from .play import PlayerSpec

PERSONA_DIR = Path(__file__).resolve().parent.parent / "data" / "players" / "skitour"
ALIASES = {"heuristic": "balanced", "default": "balanced"}
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
    if kind not in ("heuristic", "lookahead"):
        raise ValueError(f"Ski Tour players are 'random' or personas of kind heuristic or lookahead, "
                         f"got kind {kind!r}")
    return PlayerSpec(doc.get("name", str(name)), C.PLAYER_KINDS.index(kind), tuple(_resolve(doc)))


def description(name: str) -> str:
    name = ALIASES.get(name, name)
    if name == "random":
        return "Every choice uniformly among the legal ones: the floor."
    return _doc(name).get("description", "")
