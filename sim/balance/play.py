"""What a search hands its workers: candidates' data loaded, races played down to block sums, and
the work of a batch cut into tasks; and the stages a candidate is played in."""
from __future__ import annotations

from .. import games
from ..blocks import blocks_needed
from ..validation import DataError, Patch
from .scoring import Stat, block_sums

STAGES = (0.25, 0.5, 1.0)

#: candidates played side by side (Search._try_batch): enough to keep 16 workers busy on a quarter
#: stage of 20 designs; a constant, so that where a budget stops a search does not depend on --jobs
BATCH = 32

#: the candidates' data a worker process loaded last (candidate_bundle), at most this many
KEEP_BUNDLES = 8
_bundles: dict[tuple, tuple] = {}


def load_candidate(game: str, data, patches: list[Patch]):
    """A candidate's data read, patched and compiled: (bundle, "") or (None, the first problems)
    when the patched data is invalid."""
    try:
        return games.game(game).load().load_bundle(data, patches), ""
    except DataError as exc:
        return None, "; ".join(str(p) for p in exc.problems[:3])


def candidate_bundle(game: str, data, base_hash: str, patches: list[Patch]):
    """load_candidate, kept in this process for the next tasks that play the same candidate (a
    candidate's races are cut into several tasks, and reading, patching and compiling its data
    takes 15 to 25 ms). base_hash, the base data's hash as the search read it, is part of the key:
    a worker process outlives a search, and a folder edited between two searches is other data."""
    key = (game, str(data), base_hash, tuple((p.file, p.path, repr(p.value)) for p in patches))
    hit = _bundles.pop(key, None)
    if hit is None:
        hit = load_candidate(game, data, patches)
        while len(_bundles) >= KEEP_BUNDLES:
            _bundles.pop(next(iter(_bundles)))
    _bundles[key] = hit                 # (the most recent last)
    return hit


def play_sums(game: str, bundle, design, seed: int, a: int, b: int, stats: list[Stat], block: int):
    """Races a .. b-1 of a design, reduced to block sums (what a worker sends back)."""
    mod = games.game(game).load()
    seats, _ = mod.play_chunk(bundle, design, seed, a, b)
    return block_sums(seats, stats, a // block, (b - a) // block, block)


def play_candidates(game: str, data, base_hash: str, work: list[tuple], play=None) -> list[tuple]:
    """A task: for each (patches, parts) of `work`, the candidate's data loaded (candidate_bundle),
    then each of its parts (design, seed, a, b, stats, block) played down to block sums (play:
    play_sums by default). Per candidate: (data hash, "", [sums per part]), or ("", why, []) when
    its data is invalid."""
    play = play or play_sums
    out = []
    for patches, parts in work:
        bundle, invalid = candidate_bundle(game, data, base_hash, patches)
        if invalid:
            out.append(("", invalid, []))
        else:
            out.append((bundle.data_hash, "", [play(game, bundle, *part) for part in parts]))
    return out


def guided_tasks(work: list[tuple], n_jobs: int, smallest: int = 1) -> list[list[tuple]]:
    """The pieces of `work` ((owner, label, b0, b1, races per block): blocks b0 .. b1-1 of one
    design for one candidate) cut and grouped into tasks of decreasing size, in order (guided
    self-scheduling: Polychronopoulos & Kuck, IEEE Trans. Computers 1987): each task takes about
    the races left / (2 x workers), never fewer than the races left / (16 x workers) and `smallest`
    blocks. Large tasks first keep the per-task cost small, small ones last keep the workers' ends
    together. Each task is a list of (owner, label, a, e); a piece is cut only at whole blocks."""
    from ..runner import workers

    n = workers(n_jobs)
    left = sum((b1 - b0) * per for _, _, b0, b1, per in work)
    least = -(-left // (16 * n))
    tasks: list[list[tuple]] = []
    task, room = [], 0
    for owner, label, b0, b1, per in work:
        a = b0
        while a < b1:
            if room <= 0:
                if task:
                    tasks.append(task)
                room = max(least, -(-left // (2 * n)), smallest * per)
                task = []
            e = min(b1, a + max(smallest, blocks_needed(room, per)))
            task.append((owner, label, a, e))
            room -= (e - a) * per
            left -= (e - a) * per
            a = e
    if task:
        tasks.append(task)
    return tasks


def play_guided(game: str, data, base_hash: str, work: list[tuple], patches: dict, part, n_jobs: int,
                scheduler: str | None = None, play=None):
    """Play `work` (guided_tasks' pieces: (owner, label, b0, b1, races per block)) on the workers:
    owner's data is the game's `data` (whose hash is base_hash) with patches[owner]; part(owner,
    label, a, e) gives the arguments of play for blocks a .. e-1 (design, seed, first race, end
    race, stats, block).
    Yields, per piece as its task comes back (in task order): (owner, label, a, e, data hash,
    invalid, block sums or None when the owner's data is invalid)."""
    from ..runner import Task, run_tasks

    tasks = []
    for pieces in guided_tasks(work, n_jobs):
        owners = list(dict.fromkeys(owner for owner, *_ in pieces))
        args = [(patches[o], [part(o, lab, a, e) for k, lab, a, e in pieces if k == o]) for o in owners]
        races = sum(stop - start for _, parts in args for _, _, start, stop, _, _ in parts)
        tasks.append(Task(pieces, play_candidates, (game, data, base_hash, args, play), races))
    for task, results in run_tasks(tasks, n_jobs, scheduler):
        owners = list(dict.fromkeys(owner for owner, *_ in task.key))
        for owner, (data_hash, invalid, sums) in zip(owners, results):
            pieces = [p for p in task.key if p[0] == owner]
            for piece, arr in zip(pieces, sums if not invalid else [None] * len(pieces)):
                yield (*piece, data_hash, invalid, arr)
