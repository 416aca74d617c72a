"""The shipped data sets: each game's illustrative default (sim/data/GAME/) and named example sets
(sim/data/examples/NAME/), which a data option may name instead of a path."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def examples_dir() -> Path:
    return Path(str(resources.files("sim.data") / "examples"))


def example_names() -> list[str]:
    root = examples_dir()
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def resolve(path: str | Path) -> Path:
    """`path` itself when it is a directory (or does not name an example set); otherwise the shipped
    example set of that name, so `--data blast-unbalanced` works from any folder."""
    p = Path(path)
    if p.is_dir() or p.parent != Path(".") or str(path) not in example_names():
        return p
    return examples_dir() / str(path)
