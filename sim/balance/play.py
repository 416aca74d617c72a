"""What a search hands its workers: a candidate's data loaded, races played down to block sums,
and blocks split into parts; and the stages a candidate is played in."""
from __future__ import annotations

from .. import games
from ..validation import DataError, Patch
from .scoring import Stat, block_sums

STAGES = (0.25, 0.5, 1.0)

#: candidates played side by side (Search._try_batch): enough to keep 16 workers busy on a quarter
#: stage of 20 designs; a constant, so that where a budget stops a search does not depend on --jobs
BATCH = 32


def load_candidate(game: str, data, patches: list[Patch]):
    """A task: a candidate's data read, patched and compiled; (bundle, "") or (None, the first
    problems) when the patched data is invalid."""
    try:
        return games.game(game).load().load_bundle(data, patches), ""
    except DataError as exc:
        return None, "; ".join(str(p) for p in exc.problems[:3])


def play_sums(game: str, bundle, design, seed: int, a: int, b: int, stats: list[Stat], block: int):
    """A task: races a .. b-1 of a design, reduced to block sums (what a worker sends back)."""
    mod = games.game(game).load()
    seats, _ = mod.play_chunk(bundle, design, seed, a, b)
    return block_sums(seats, stats, a // block, (b - a) // block, block)


def block_parts(nb: int, n_jobs: int, pairs: int = 1) -> list[tuple[int, int]]:
    """Blocks 0 .. nb-1 of one of `pairs` like pieces of work, in parts: about two tasks per worker
    over all of them (-1 jobs: every core)."""
    from ..runner import workers

    n = workers(n_jobs)
    parts = 1 if n == 1 else max(1, -(-2 * n // max(1, pairs)))
    step = max(1, -(-nb // parts))
    return [(a, min(a + step, nb)) for a in range(0, nb, step)]
