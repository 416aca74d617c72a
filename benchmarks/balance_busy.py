"""How busy a balance search keeps its workers (issue 31 item 4): the share of the search's wall time
during which at least N of its worker tasks run at once.

    python benchmarks/balance_busy.py BALANCE_FILE OUT_DIR --jobs 2 --max-races 3000000 [--max-minutes M]

Every task the search hands its workers (candidates' data loaded, their races played down to block
sums: sim.balance.play.play_candidates) is wrapped to note its start and end (time.time(), per worker process, in OUT_DIR/busy/); the search
itself (Search.run: the rounds, not the check or the page) is timed in the main process. Prints, for
k = 1 .. jobs, the share of that wall time with at least k tasks running, and the races a second. The
wrapper adds a file append per task (well under a millisecond). A shared machine's other load shows
up as lower shares: compare codes one after another on the same machine, and repeat.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sim.balance.play as play_mod  # noqa: E402
from sim.balance import Search, load_balance  # noqa: E402

_TASK = play_mod.play_candidates


def _timed(fn, folder: str):
    def run(*args):
        t0 = time.time()
        out = fn(*args)
        with open(os.path.join(folder, f"{os.getpid()}.txt"), "a") as f:
            f.write(f"{t0} {time.time()}\n")
        return out
    return run


def busy_shares(intervals: list[tuple[float, float]], start: float, end: float, most: int) -> list[float]:
    """For k = 1 .. most: the share of [start, end] during which at least k intervals overlap."""
    events = sorted([(max(a, start), 1) for a, b in intervals] + [(min(b, end), -1) for a, b in intervals])
    at = {k: 0.0 for k in range(1, most + 1)}
    level, last = 0, start
    for t, step in events:
        for k in at:
            if level >= k:
                at[k] += t - last
        level, last = level + step, t
    return [at[k] / (end - start) for k in range(1, most + 1)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-races", type=int, default=None)
    ap.add_argument("--max-minutes", type=float, default=None)
    args = ap.parse_args()
    folder = Path(args.out) / "busy"
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.glob("*.txt"):
        f.unlink()
    play_mod.play_candidates = _timed(_TASK, str(folder))
    search = Search(load_balance(args.file), args.out, n_jobs=args.jobs, budget_races=args.max_races,
                    budget_minutes=args.max_minutes, log=lambda line: None)
    t0 = time.time()
    search.run()
    t1 = time.time()
    spans = [tuple(map(float, line.split())) for f in folder.glob("*.txt") for line in f.read_text().splitlines()]
    shares = busy_shares(spans, t0, t1, args.jobs)
    print(json.dumps({"wall_s": round(t1 - t0, 1), "races": search.races_used,
                      "races_per_s": round(search.races_played / (t1 - t0)), "tasks": len(spans),
                      "busy_at_least": {k + 1: round(s, 3) for k, s in enumerate(shares)},
                      "stopped": search.stopped}))


if __name__ == "__main__":
    main()
