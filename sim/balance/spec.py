"""What a balance file says (docs/balance.md): the knobs a designer allows to move and the
paths they move, the targets, the designs to play, and the file as read (BalanceFile)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import games


# --- the balance file -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Member:
    """One path a knob moves: file, dotted path, and optionally an element of the value found
    there (index: of a list; key: a field of that element, a table without a name such as a coach
    zone; token: of a whitespace-separated string, or of a list of such strings counted across its
    strings)."""

    file: str
    path: str
    index: int | None = None
    token: int | None = None
    key: str | None = None

    def element(self) -> str:
        """The element of the value at the path ("[2].speed token 1"; "" for the whole value)."""
        where = ""
        if self.index is not None:
            where += f"[{self.index}]"
        if self.key is not None:
            where += f".{self.key}"
        if self.token is not None:
            where += f" token {self.token}"
        return where

    def label(self) -> str:
        return f"{self.file}:{self.path}{self.element()}"


@dataclass(frozen=True)
class Knob:
    """A value a designer allows to move. Numeric: base + k x step within [lo, hi]; choice: one of
    `choices`. `members`: every path moved by it (a group gets the same change: the same number of
    steps on each numeric member, the same choice on each choice member). cost: per step. hold: set
    by the file's [start] and never moved by the search (an earlier result's change on entrants the
    designs do not play)."""

    name: str
    members: tuple[Member, ...]
    lo: float | None = None
    hi: float | None = None
    step: float | None = None
    choices: tuple | None = None
    cost: float = 1.0
    hold: bool = False


@dataclass(frozen=True)
class TargetSpec:
    """metric win_rate: every value of `by` (a seat axis or "seat") within ±within_pp points of
    the fair share (1 / racers); metric rounds: the mean race length (rounds) within [lo, hi]."""

    name: str
    metric: str
    by: str = ""
    within_pp: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    weight: float = 1.0
    scenarios: tuple[str, ...] = ()
    personas: tuple[str, ...] = ()


@dataclass(frozen=True)
class DesignSpec:
    label: str
    scenario: str
    racers: int
    persona: str
    design: Any
    seed: int
    check_seed: int


@dataclass
class BalanceFile:
    path: Path
    text: str
    game: str
    title: str
    data: str | None
    seed: int
    check_seed: int
    races: int
    check_races: int
    alpha: float
    cost_weight: float
    budget_races: int
    budget_minutes: float
    max_rounds: int
    designs: list[DesignSpec]
    targets: list[TargetSpec]
    knobs: list[Knob]
    base_docs: dict[str, dict] = field(default_factory=dict)
    start: dict[str, int] = field(default_factory=dict)     # knob -> position the search starts from
    model_steps: bool = True         # propose moves of several knobs from the neighbours' effects
    model_reach: int = 2             # ... each at most this many steps from the incumbent
    model_repeats: int = 3           # ... and again on the same effects after one is taken
    fresh_rounds: bool = False       # every round plays new races; a round's moves that lose there are undone
    confirm: bool = False            # a step is taken only when it also wins on races of its own (confirm_z)
    confirm_z: float = 0.0           # ... by more than this many standard errors of the paired difference
    binds: str | None = None         # [players]: the persona whose targets bind (the headline); None: all bind
    bound: tuple[str, ...] = ()      # ... the personas only bounded (a robustness band)
    front_weights: tuple[float, ...] = (0.0, 4.0)   # [front]: the bound targets' weight in each further descent
    front_rounds: int = 3            # ... the most rounds of each
    front_budget_races: int = 0      # ... the race budget of each (0: a quarter of budget_races)
    front_points: int = 5            # ... the most points of the front checked on fresh seeds

    @property
    def data_dir(self) -> Path:
        return Path(self.data) if self.data else games.game(self.game).load().default_data_dir()
