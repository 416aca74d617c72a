"""The three tunings that made Blast's `distilled` persona (docs/players.md, "A distilled card policy").

    python benchmarks/blast_distill_tune.py OUT_FOLDER [SCALE]

1. the 14 card weights (card_*, mat_*) from `balanced`, on Kurz and Lang, opponent balanced;
2. the card weights from `tuned`, opponent tuned, on Kurz and Lang;
3. every weight of Roster.tuned plus the card weights, from step 2, on the four trails, opponent
   balanced: the persona written as OUT_FOLDER/distilled.toml (rename it `distilled` or copy its
   weights into sim/data/players/blast/distilled.toml).

SCALE (default 1) multiplies the races per candidate and of the checks (0.01 for a quick try). At
SCALE 1: some 2, 2 and 4 minutes of one core on a quiet machine. Step 1 is a comparison only:
step 2 starts from `tuned`, not from it.
"""
import sys
from pathlib import Path

from kernels.blast.players import P_CARD0, P_CARDX0, PARAM_NAMES
from sim.blast import load_bundle
from sim.blast.game import Roster
from sim.blast.players import write_persona
from sim.tune import tune

CARD = tuple(PARAM_NAMES[P_CARD0:P_CARDX0])     # the 14 card weights (not the hand and race ones, made later)
STEPS = (   # out name, start, trails, weights, races per candidate, seed, opponent
    ("card-on-balanced", "balanced", ("Kurz", "Lang"), CARD, 1200, 7, "balanced"),
    ("card-on-tuned", "tuned", ("Kurz", "Lang"), CARD, 1200, 7, "tuned"),
    ("distilled-tuned", "@card-on-tuned", ("Kurz", "Lang", "Long", "Short"), tuple(Roster.tuned) + CARD, 2000, 17,
     "balanced"),
)


def main():
    out = Path(sys.argv[1])
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    out.mkdir(parents=True, exist_ok=True)
    bundle = load_bundle()
    for name, start, trails, weights, per, seed, opponent in STEPS:
        if start.startswith("@"):
            start = str(out / f"{start[1:]}.toml")
        r = tune(bundle, start, list(trails), generations=8, population=16,
                 races_per_candidate=max(int(per * scale), 4 * len(trails)), seed=seed, n_jobs=1,
                 check_races=max(int(4000 * scale if len(trails) == 2 else 2000 * scale), 48), name=name,
                 weights=weights, report=print, opponent=opponent)
        pair = r.check.pairs.iloc[0]
        gap = pair.gap if pair.player == name else -pair.gap
        print(f"{name}: {gap * 100:+.2f} points against {opponent} (check)")
        write_persona(r.tuned, out / f"{name}.toml", base="balanced",
                      description=f"benchmarks/blast_distill_tune.py step {name}")


if __name__ == "__main__":
    main()
