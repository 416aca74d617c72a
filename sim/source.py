"""What a report reads: the description of a study's cells and variants, and readers of its tables.

The contract between the core and the reports, so it lives in the core. The reports package knows
nothing of how results are stored and imports no game: `sim` builds a
`ResultsSource` from a study's or a run's output folder (sim.results_folder) and the report asks it
for the columns each section needs, one row per race and racer (`read`) or per racer and range
visit (`read_visits`), with `cell` and `variant` columns and names (`<column>_name`) beside the
ids (columns: kernels/records.py and each game's fields, docs/studies.md). What the report must
know of the game travels with the source: its name and title, its word for the scenario (the
scenario column is named by it), its seat axes (the first is the entrant whose balance is
measured), the labels of coded columns, and game parameters that live in the data (`params`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import pandas as pd

#: read(columns, cells, variants) -> rows; cells / variants None means all of them
Reader = Callable[[Sequence[str], Sequence[str] | None, Sequence[str] | None], pd.DataFrame]


@dataclass(frozen=True)
class CellInfo:
    """One cell as played. balanced: balanced line-ups (every biathlete in every ski colour
    equally often) rather than a fixed line-up. players: the distinct player names of its seats."""

    name: str
    trail: str                  # the scenario (trail, track or course) of the cell
    racers: int
    balanced: bool
    players: tuple[str, ...]
    races: int
    variants: tuple[str, ...]
    seed: int = -1              # the cell's seed: cells with equal scenario, racers and seed play the same races
    block: int = 1              # races per balanced block: races of one block share line-ups (a cluster)

    @property
    def persona(self) -> str | None:
        """The player in every seat, or None where the seats have different players."""
        return self.players[0] if len(self.players) == 1 else None


@dataclass(frozen=True)
class VariantInfo:
    """A data variant: its description and patches (dicts with file, path, value)."""

    name: str
    description: str = ""
    patches: tuple[dict, ...] = ()
    group: str = ""             # "screen": one step of a balance file's knob (sim.study's [screen])
    knob: str = ""              # ... and the knob it steps


@dataclass(frozen=True)
class ResultsSource:
    title: str
    description: str
    path: str
    cells: tuple[CellInfo, ...]
    read: Reader
    variants: dict[str, VariantInfo] = field(default_factory=dict)
    base: str = "base"          # the variant that is the data as it is
    command: str = ""
    game: str = "blast"
    game_title: str = "Biathlon Blast"
    layout: str = "reports.report:blast_layout"   # "module:function" of the game's report layout (its registration's); "": core only
    scenario: str = "trail"     # the game's word for where races are run; names the scenario column
    axes: tuple[str, ...] = ("biathlete", "colour")
    labels: dict = field(default_factory=dict)      # column -> labels of its codes
    params: dict = field(default_factory=dict)      # game parameters from the data (pulse bands, ...)
    read_visits: Reader | None = None
    planned: int = 0            # races the study or run planned (0: unknown)
    planned_cells: tuple[str, ...] = ()     # cells the study planned (empty: unknown)
    optional: dict = field(default_factory=dict)    # optional group -> its cells not played (study --include)
    played: int = 0             # races in the results, every cell and variant (0: sum of the cells' races)
    targeted: tuple[str, ...] = ()          # cells sized to a precision target
    precision_notes: dict = field(default_factory=dict)   # cell -> why it stops short of its target (a cap)
    targets: dict = field(default_factory=dict)   # cell -> (half-width as a share, confidence, ratio or 0) it was sized to
    settings: dict = field(default_factory=dict)    # the study file's [report] table (band, ...)
    data: str | None = None     # the data directory a study played (study.json's); None: the shipped data, or a run

    @property
    def races_played(self) -> int:
        """Races in the results over every cell and variant."""
        return self.played or sum(c.races * len(c.variants) for c in self.cells)

    @property
    def entrant(self) -> str:
        return self.axes[0] if self.axes else "seat"

    def variants_of(self, group: str = "") -> list[str]:
        """The variants of a group ("screen": the steps of sim.study's [screen]); "" for the study
        file's own variants and the base data."""
        return [name for name, v in self.variants.items() if v.group == group]

    def cell_names(self, *, balanced: bool | None = None, persona: str | None = None,
                   variant: str | None = None) -> list[str]:
        """Names of the cells that match: balanced line-ups or not, one persona in every seat,
        played on a variant."""
        return [c.name for c in self.cells
                if (balanced is None or c.balanced == balanced)
                and (persona is None or c.persona == persona)
                and (variant is None or variant in c.variants)]


__all__ = ["CellInfo", "VariantInfo", "ResultsSource", "Reader"]
