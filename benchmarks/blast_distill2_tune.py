"""Tune the card weights of Blast's default against a cheap strength reference (issue 27 item 2;
docs/players.md, "Closer to the reference: hand and race features").

    python benchmarks/blast_distill2_tune.py OUT_FOLDER [RACES GENERATIONS JOBS ROLLOUTS DEPTH SEED]

Starts from `distilled` and searches its 14 card weights (card_*, mat_*) and the 6 hand and race
weights (card_top, card_late, card_late_gain, mat_top, ...) by sim.tune.tune on the four trails,
the candidate in one seat and the yardstick in the other three: the reference built on
`distilled` with ROLLOUTS rollouts per card (default 8) judged after DEPTH rounds (default 5; 0:
to the finish). RACES per candidate and generation (default 640), GENERATIONS (default 6), JOBS
worker processes (default 2), SEED (default 27; the check uses SEED + 1, 192 races a trail). Writes
OUT_FOLDER/distilled2.toml (every weight spelled out) and prints one line per generation.
"""
import sys
from pathlib import Path

from kernels.blast.players import P_CARD0, P_DEPTH, P_ROLLOUTS, PARAM_NAMES
from sim.blast import load_bundle
from sim.blast.players import resolve, write_persona
from sim.tune import tune

CARD = tuple(PARAM_NAMES[P_CARD0:])     # the 14 card weights and the 6 hand and race weights
TRAILS = ("Kurz", "Lang", "Long", "Short")


def yardstick(rollouts: int, depth: int):
    """The shipped reference with a smaller budget (its name says which)."""
    ref = resolve("reference")
    w = list(ref.weights)
    w[P_ROLLOUTS], w[P_DEPTH] = rollouts, depth
    return ref.with_weights(f"reference-{rollouts}x{depth}", w)


def main():
    out = Path(sys.argv[1])
    races, generations, jobs, rollouts, depth, seed = (
        [int(a) for a in sys.argv[2:8]] + [640, 6, 2, 8, 5, 27][len(sys.argv[2:8]):])
    out.mkdir(parents=True, exist_ok=True)
    opponent = yardstick(rollouts, depth)
    r = tune(load_bundle(), "distilled", list(TRAILS), generations=generations, population=16,
             races_per_candidate=races, seed=seed, n_jobs=jobs, check_races=192, name="distilled2",
             weights=CARD, report=lambda line: print(line, flush=True), opponent=opponent)
    write_persona(r.tuned, out / "distilled2.toml",
                  description=f"benchmarks/blast_distill2_tune.py {races} {generations} {jobs} {rollouts} "
                              f"{depth} {seed}")
    print(r.tuned.weights)


if __name__ == "__main__":
    main()
