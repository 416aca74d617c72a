"""Cell seeds: every cell of a study, a balance search, a what-if comparison or a World Cup draws
its races from a seed of its own, made from the file's seed and the cell's name, so that cells are
independent of each other and adding a cell leaves the others' races as they were. Below the study
and the balance search alike, so that a study can step a balance file's knobs ([screen])."""
from __future__ import annotations

import hashlib


def cell_seed(study_seed: int, cell_name: str) -> int:
    """A cell's own seed, from the study's seed and the cell's name: cells are independent of each
    other, and adding a cell to a study leaves the others' races as they were."""
    h = hashlib.blake2b(f"{study_seed}:{cell_name}".encode(), digest_size=4).digest()
    return int.from_bytes(h, "little")


__all__ = ["cell_seed"]
