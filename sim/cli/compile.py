"""biathlon-sim compile: compile every game's race kernels now, so no later command waits for it."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, load_or_report, whole


def add_parser(sub) -> None:
    c = sub.add_parser(
        "compile", help="compile the race kernels now (they are cached for every later command)",
        description="Compile (or load from the cache) every race kernel of every registered game, the "
                    "look-ahead player's included, and print how long each took. `make` runs it once after "
                    "installing, so the first study or run does not wait minutes for a compile. With "
                    "--jobs, the kernels compile side by side in that many processes (each kernel is one "
                    "long single-threaded compile, so on 2 cores --jobs 2 halves the wait).",
        epilog="examples:\n  biathlon-sim compile\n  biathlon-sim compile --jobs 2\n"
               "  biathlon-sim --game mania compile --only",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--only", action="store_true", help="only the game named by --game")
    c.add_argument("--no-lookahead", action="store_true",
                   help="leave out the search players' kernels (look-ahead, reference: compiled on their "
                        "first use instead); make does, so that make report stays short")
    c.add_argument("--jobs", type=whole(1, 256), default=1, metavar="N",
                   help="compile up to N kernels at once, each in a process of its own (default 1: one "
                        "after another in this process)")
    c.set_defaults(func=cmd_compile)


def _designs(name: str, no_lookahead: bool):
    """(module, bundle, [(label, design)]) of one game's kernel entry points; bundle None when the
    game's data cannot be read (load_or_report has said why)."""
    from .. import games

    mod = games.game(name).load()
    bundle = load_or_report(None, game=name)
    if bundle is None:
        return mod, None, []
    designs = mod.warm_designs(bundle)
    if no_lookahead:
        designs = [(label, d) for label, d in designs if "look-ahead" not in label]
    return mod, bundle, designs


def _play_one(mod, bundle, design) -> float:
    """Compile (or load) the kernel entry point `design` plays: seconds taken."""
    import time

    t0 = time.perf_counter()
    mod.play_chunk(bundle, design, 0, 0, 1)
    return time.perf_counter() - t0


def _compile_one(name: str, label: str) -> float:
    """_play_one in a worker process: the game's data read again there."""
    import kernels

    kernels.prepare()
    mod, bundle, designs = _designs(name, False)
    if bundle is None:                  # read by the caller a moment ago: changed since
        raise RuntimeError(f"{name}: its data could not be read")
    return _play_one(mod, bundle, dict(designs)[label])


def cmd_compile(args: argparse.Namespace) -> int:
    import time

    from kernels.cache import is_compiled

    from .. import games

    names = [args.game] if args.only else games.names()
    work = {}                                   # (game, label) -> (module, bundle, design), in the order printed
    for name in names:
        mod, bundle, designs = _designs(name, args.no_lookahead)
        if bundle is None:
            return EXIT_BAD_DATA
        work |= {(name, label): (mod, bundle, design) for label, design in designs}
    cached = {name: is_compiled(name) for name in names}
    t0 = time.perf_counter()
    seconds = {}
    if args.jobs == 1:
        for unit, game_design in work.items():
            seconds[unit] = _play_one(*game_design)
            _say(unit, seconds[unit])
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # longest first (as the last compile on this machine measured them; kernels it did not
        # measure first of all, the last listed first), so no long compile starts last
        last = _last_seconds()
        order = sorted(reversed(work), key=lambda u: -last.get("/".join(u), float("inf")))
        with ProcessPoolExecutor(max_workers=min(args.jobs, len(work))) as pool:
            futures = {pool.submit(_compile_one, *unit): unit for unit in order}
            for f in as_completed(futures):
                seconds[futures[f]] = f.result()
                _say(futures[f], seconds[futures[f]])
    for name in names:
        total = sum(s for (n, _), s in seconds.items() if n == name)
        print(f"{games.game(name).title}: {'loaded from the cache' if cached[name] else 'compiled'} in {total:.1f} s")
    if args.jobs > 1:
        print(f"all kernels: {time.perf_counter() - t0:.1f} s with up to {args.jobs} at once")
    # a cache load says nothing of how long a compile takes: only compiled kernels are remembered
    _remember_seconds({unit: s for unit, s in seconds.items() if not cached[unit[0]]})
    return 0


def _say(unit, seconds: float) -> None:
    from .. import games

    print(f"{games.game(unit[0]).title}: {unit[1]}: {seconds:.1f} s", flush=True)


def _times_file():
    from kernels.cache import base_dir

    return base_dir() / "compile-seconds.json"


def _last_seconds() -> dict:
    import json

    try:
        return json.loads(_times_file().read_text())
    except (OSError, ValueError):
        return {}


def _remember_seconds(seconds: dict) -> None:
    import json

    if not seconds:
        return
    times = _last_seconds() | {"/".join(unit): round(s, 1) for unit, s in seconds.items()}
    try:
        _times_file().parent.mkdir(parents=True, exist_ok=True)
        _times_file().write_text(json.dumps(times, indent=1, sort_keys=True))
    except OSError:
        pass                                    # only an ordering hint for the next compile
