"""biathlon-sim compile: compile every game's race kernels now, so no later command waits for it."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, load_or_report


def add_parser(sub) -> None:
    c = sub.add_parser(
        "compile", help="compile the race kernels now (they are cached for every later command)",
        description="Compile (or load from the cache) every race kernel of every registered game, the "
                    "look-ahead player's included, and print how long each took. `make` runs it once after "
                    "installing, so the first study or run does not wait minutes for a compile.",
        epilog="examples:\n  biathlon-sim compile\n  biathlon-sim --game mania compile --only",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--only", action="store_true", help="only the game named by --game")
    c.add_argument("--no-lookahead", action="store_true",
                   help="leave out the search players' kernels (look-ahead, reference: compiled on their "
                        "first use instead); make does, so that make report stays short")
    c.set_defaults(func=cmd_compile)


def cmd_compile(args: argparse.Namespace) -> int:
    import time

    from kernels.cache import is_compiled

    from .. import games

    names = [args.game] if args.only else games.names()
    for name in names:
        info = games.game(name)
        mod = info.load()
        bundle = load_or_report(None, game=name)
        if bundle is None:
            return EXIT_BAD_DATA
        cached = is_compiled(name)
        t0 = time.perf_counter()
        designs = mod.warm_designs(bundle)
        if args.no_lookahead:
            designs = [(label, d) for label, d in designs if "look-ahead" not in label]
        for label, design in designs:
            t1 = time.perf_counter()
            mod.play_chunk(bundle, design, 0, 0, 1)
            print(f"{info.title}: {label}: {time.perf_counter() - t1:.1f} s", flush=True)
        print(f"{info.title}: {'loaded from the cache' if cached else 'compiled'} in {time.perf_counter() - t0:.1f} s")
    return 0
