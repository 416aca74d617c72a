"""biathlon-sim tune: the parser and the call."""
from __future__ import annotations

import argparse
import sys

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, examples, fail, jobs_option, keep_option, load_or_report, out_file, races_count,
    reason, rounding_note, scenario_option, scenario_words, scheduler_option, seed_value, split_list, wrap,
)
from .ladder import player_game_options, players_game


def add_parser(sub, info) -> None:
    tu = sub.add_parser(
        "tune", help="improve a persona's weights by the cross-entropy method and write the result",
        description="Tune a heuristic persona's weights (all but progress, the score's unit) by the "
                    "cross-entropy method: each generation, a population of weight vectors, each "
                    "playing in one seat against the start persona in the others, rotated through "
                    f"every seat with balanced line-ups on every {info.scenario} given; all "
                    "candidates of a "
                    "generation on the same races, new races each generation. Prints one line per "
                    "generation, then checks the result head to head against its start on a seed the "
                    "tuning never used (--check-seed, default --seed + 1) and writes the persona file "
                    "with the command and the check in its header. The result depends on the seed "
                    "only, not on --jobs. Biathlon Blast and Ski Tour (--game skitour, --course; "
                    "every weight is tuned there); Mania has no players.",
        epilog=examples(info, "tune"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    tu.add_argument("--start", default="balanced", help="the heuristic persona to improve (default balanced)")
    tu.add_argument("--vs", default=None, metavar="PLAYER",
                    help="the player in the other seats and in the final check (default: --start); "
                         "e.g. reference, to tune against the strength reference")
    tu.add_argument("--weights", default=None, metavar="NAMES",
                    help="the weights to search, comma-separated, each a name or a pattern "
                         "('card_*,mat_*': Blast's card weights; default: the game's tuned weights)")
    tu.add_argument("--follow", action="store_true",
                    help="the --vs player takes each candidate's values of the tuned weights: a "
                         "reference built on --start then meets each candidate as the reference built "
                         "on it, and the check is against the reference built on the result (the "
                         "measure of a default: docs/players.md)")
    if info.players:
        scenario_option(tu, info, "trails", several=True, required=True)
    else:                 # a game without players: whatever it says, the command refuses it below
        tu.add_argument(*(f"--{w}{s}" for w in scenario_words() for s in ("", "s")), dest="trails", default=None,
                        help=argparse.SUPPRESS)
    tu.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    tu.add_argument("--generations", type=int, default=10, help="generations (default 10)")
    tu.add_argument("--population", type=int, default=16, help="candidates per generation (default 16)")
    tu.add_argument("--races-per-candidate", type=races_count, default=2000,
                    help=f"races each candidate plays per generation, over all {info.scenario}s (default 2000)")
    tu.add_argument("--check-races", type=races_count, default=20000,
                    help=f"races per {info.scenario} of the final head-to-head (default 20000)")
    tu.add_argument("--seed", type=seed_value, default=1)
    tu.add_argument("--check-seed", type=seed_value, default=None, help="seed of the final check (default --seed + 1)")
    jobs_option(tu)
    tu.add_argument("--out", required=True, metavar="TOML", type=out_file, help="the persona file to write")
    tu.add_argument("--name", default=None, help="the persona's name (default: the file's name)")
    scheduler_option(tu)
    keep_option(tu, "every generation's races (DIR/generation-001, ...) and the check's (DIR/check-after-NNN)")
    player_game_options(tu)
    data_option(tu)
    tu.set_defaults(func=cmd_tune)


def cmd_tune(args: argparse.Namespace) -> int:
    info, options = players_game(args, "tune")
    if info is None:
        return options
    import re
    import shlex
    from pathlib import Path

    from ..ladder import roster
    from ..tune import tune

    def bad(message: str) -> int:
        return fail("tune", message)

    out = Path(args.out)
    if not out.name.endswith(".toml"):
        return bad(f"--out must name a .toml persona file, got {args.out!r}")
    if not out.parent.is_dir():
        return bad(f"--out: no folder {str(out.parent)!r}")
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    name = (args.name or out.stem).lower()
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        return bad(f"a persona name is letters, digits, - and _, got {name!r}")
    hook = roster(info.name)
    try:
        other = hook.available().get(name)
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    weights = None
    if args.weights:
        from fnmatch import fnmatchcase

        weights = []
        for pattern in split_list(args.weights):
            # a pattern names the tunable weights it matches (a switch such as Blast's card_ends is
            # set, not tuned); a plain name is taken as given, and tune() refuses one it cannot tune
            pool = hook.spread if any(ch in pattern for ch in "*?[") else hook.param_names
            hit = [k for k in pool if fnmatchcase(k, pattern)]
            if not hit:
                return bad(f"--weights: {pattern!r} names no weight of {info.title}'s players "
                           f"(weights: {', '.join(hook.param_names)})")
            weights += [k for k in hit if k not in weights]
        weights = tuple(weights)
    source = hook.source(other) if other is not None else None
    if other is not None and out.parent.resolve() == Path(hook.persona_dir).resolve() and \
            (not source or Path(source).resolve() != out.resolve()):
        return bad(f"a persona named {name!r} already exists ({source or 'built in'}); choose another --name")
    try:
        result = tune(bundle, args.start, split_list(args.trails) or [], args.racers, args.generations,
                      args.population, args.races_per_candidate, args.seed, args.jobs, args.check_races,
                      args.check_seed, name, weights, report=lambda line: print(line, flush=True), game=info.name,
                      options=options or None, opponent=args.vs, scheduler=args.scheduler, keep=args.keep,
                      repair=args.repair, log=print, follow=args.follow)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    rounding_note(args.races_per_candidate, result.generations[0].races_per_candidate,
                  f"each candidate's races per generation: whole blocks of seat rotations on every {info.scenario}")
    print(f"weights: {result.weight_changes()}")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    g = result.generations
    opts = "".join(f", {k} {v}" for k, v in (result.options or {}).items())
    note = (f"Written by: {command}\n"
            f"Tuning: seed {result.seed}, {len(g)} generations x {len(g[0].win_rates)} candidates x "
            f"{g[0].races_per_candidate:,} races against {result.against.name}"
            f"{' built on each candidate' if result.follow else ''} (races 0..{g[-1].races[1] - 1}"
            f"{opts}), data {bundle.data_hash}.\n" + result.check_line())
    hook.write_persona(result.tuned, out, note="\n".join(wrap(note)), description=result.description)
    import pandas as pd

    from reports.pages import page_beside, tune_page

    gens = pd.DataFrame([{"generation": gen.index + 1, "candidate": k, "races": gen.races_per_candidate,
                          "win_rate": float(w)} for gen in g for k, w in enumerate(gen.win_rates)])
    page = tune_page(page_beside(out), gens, note.splitlines()[1], result.weight_changes(),
                     result.check.table if result.check is not None else None, result.check_line())
    print(f"page: {page}")
    print(f"persona: {out}")
    return 0
