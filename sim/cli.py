"""The `biathlon-sim` command: one console command with sub-commands over library calls."""
from __future__ import annotations

import argparse
import sys

from .validation import DataError

EXIT_BAD_DATA = 2


def fail(command: str, message: str) -> int:
    """One line naming the command and what was expected; the exit status for bad input."""
    print(f"biathlon-sim {command}: {message}", file=sys.stderr)
    return EXIT_BAD_DATA


def load_or_report(data):
    """The compiled bundle of a data directory, or None after printing one line per problem."""
    from .blast.compile import load_bundle

    try:
        return load_bundle(data)
    except DataError as exc:
        where = data or "the shipped data"
        print(f"{where}: {len(exc.problems)} problem(s) found:", file=sys.stderr)
        for p in exc.problems:
            print(str(p), file=sys.stderr)
        return None


def cmd_validate(args: argparse.Namespace) -> int:
    from .blast.summary import summary

    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    print(summary(bundle))
    print("\nOK: the data is valid.")
    return 0


def split_list(text: str | None) -> list[str] | None:
    """'Owens, Olsson,Wei' -> ['Owens', 'Olsson', 'Wei']; None stays None."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


def cmd_replay(args: argparse.Namespace) -> int:
    from kernels.blast import consts as C

    from .blast.eventlog import render_log
    from .blast.play import make_setup, play_one

    def bad(message: str) -> int:
        return fail("replay", message)

    if args.race < 0:
        return bad(f"--race must be 0 or more, got {args.race}")
    if args.run:
        return replay_from_run(args, bad)
    if not args.trail or not args.biathletes:
        return bad("give --trail and --biathletes, or --run DIR to replay a race of a run")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    biathletes = split_list(args.biathletes)
    colours = split_list(args.colours)
    players = split_list(args.players)
    if colours is not None:
        colours = [c.lower() for c in colours]
        unknown = [c for c in colours if c not in C.COLOUR_NAMES]
        if unknown:
            return bad(f"no ski colour named {unknown[0]!r}; known: {', '.join(C.COLOUR_NAMES)}")
    if not players:
        players = "heuristic"
    elif len(players) == 1:
        players = players[0]
    try:
        setup = make_setup(bundle, args.trail, biathletes, colours, players)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    print(render_log(bundle, play_one(bundle, setup, args.seed, args.race), states=args.states), end="")
    return 0


def replay_from_run(args: argparse.Namespace, bad) -> int:
    """Replay race --race of the run in --run DIR: its design, seed and data, from the manifest."""
    import json
    from pathlib import Path

    from .blast.eventlog import render_log
    from .blast.play import play_one
    from .run import Design

    path = Path(args.run) / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
        d = manifest["design"]
        design = Design(d["trail"], d["racers"], tuple(d["biathletes"]) if d["biathletes"] else None,
                        tuple(d["colours"]) if d["colours"] else None, tuple(d["players"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return bad(f"{path}: not the manifest of a run ({exc})")
    if args.race >= manifest["races"]:
        return bad(f"the run has races 0 .. {manifest['races'] - 1}, not {args.race}")
    bundle = load_or_report(args.data or manifest.get("data_source") or None)
    if bundle is None:
        return EXIT_BAD_DATA
    if bundle.data_hash != manifest["data_hash"]:
        return bad(f"the data has hash {bundle.data_hash} but the run used {manifest['data_hash']}; "
                   f"pass --data with the run's data directory")
    setup = design.setups(bundle, manifest["seed"], [args.race])[0]
    print(render_log(bundle, play_one(bundle, setup, manifest["seed"], args.race), states=args.states), end="")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import os

    from .bench import bench
    from .blast.players import resolve

    def bad(message: str) -> int:
        return fail("bench", message)

    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    try:
        trails = [bundle.trail_id(t) for t in (split_list(args.trails) or list(bundle.trail_names))]
        racers = [int(n) for n in split_list(args.racers)]
        player = resolve(args.player)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    if not all(2 <= n <= 6 for n in racers) or args.races < 1:
        return bad("--racers must lie in 2..6 and --races be at least 1")
    df = bench(bundle, trails, racers, args.races, player, args.seed)
    print(f"compile or cache load: {df.attrs['compile_s']:.1f} s; one core; {os.cpu_count()} cores on "
          f"this machine; player {args.player}; data {bundle.data_hash}")
    print(df.to_string(index=False))
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import shlex

    from .run import Design, run_races

    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    biathletes = split_list(args.biathletes)
    colours = split_list(args.colours)
    design = Design(
        trail=args.trail,
        racers=len(biathletes) if biathletes else args.racers,
        biathletes=tuple(biathletes) if biathletes else None,
        colours=tuple(c.lower() for c in colours) if colours else None,
        players=tuple(split_list(args.players) or ["heuristic"]),
    )
    if args.races < 1 or args.chunk < 1:
        return fail("run", "--races and --chunk must be at least 1")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        df, info = run_races(bundle, design, args.races, args.seed, chunk_size=args.chunk,
                             n_jobs=args.jobs, out=args.out, progress=not args.quiet, command=command)
    except (KeyError, ValueError) as exc:
        return fail("run", str(exc.args[0]) if exc.args else str(exc))
    n = design.racers
    if info.chunks_played:
        print(f"{info.races:,} races played in {info.seconds:.1f} s ({info.races_per_second:,.0f} races/s)"
              + (f"; {info.chunks_reused} finished chunk(s) of an earlier run reused" if info.chunks_reused else ""))
    else:
        print(f"every chunk was already played by an earlier run in {args.out}: nothing to play")
    if args.out:
        print(f"table: {args.out}/results.parquet; manifest: {args.out}/manifest.json")
    wins = df.groupby("biathlete_name", observed=True).agg(races=("race", "size"), won=("won", "mean"))
    wins["fair_share"] = 1 / n
    print(f"win rate per biathlete ({df.race.nunique():,} races, {n} racers, {design.trail}):")
    print(wins.sort_values("won", ascending=False).round(4).to_string())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="biathlon-sim",
        description="Monte Carlo balance laboratory for Biathlon Blast.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    v = sub.add_parser(
        "validate", help="check a data directory and print its summary",
        description="Check a Biathlon Blast data directory (docs/data-format.md) and print a summary: "
                    "biathletes with their bibs, card counts, each trail's length, range and "
                    "start-line positions and coach zones. Exits 2 with one line per problem "
                    "(file: entry: field: what was expected) when the data is bad.",
        epilog="examples:\n  biathlon-sim validate                 # the shipped illustrative data\n"
               "  biathlon-sim validate my-data/         # your own copy",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    v.add_argument("data", nargs="?", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    v.set_defaults(func=cmd_validate)
    r = sub.add_parser(
        "replay", help="play one race and print its event log as text",
        description="Play one race (given by its seed and race index, as in a study) and print what "
                    "happened: the set-up, one line per turn (card and action, dice, hits, steps, move, "
                    "Motivation cards, coach boosts, pulse, wind), pick-ups and eliminations, and the "
                    "final ranking. Positions are route indices with the space's name; lanes, mats and "
                    "face-up slots count from 1. Exits 2 with one line naming what was expected when a "
                    "name is unknown.",
        epilog="examples:\n"
               "  biathlon-sim replay --trail Kurz --biathletes Owens,Olsson,Wei,Pinto --seed 1 --race 17\n"
               "  biathlon-sim replay --trail Lang --biathletes Owens,Wei --colours blue,white \\\n"
               "      --players heuristic,random --seed 3 --race 0\n"
               "  biathlon-sim replay --trail Short --biathletes Pinto,Wei,Bakken --states --data my-data/\n"
               "  biathlon-sim replay --run runs/kurz4 --race 1234     # a race of a bulk run, exactly",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--run", default=None, metavar="DIR",
                   help="replay race --race of the run written to DIR (its design, seed and data)")
    r.add_argument("--trail", default=None, help="trail name, e.g. Kurz")
    r.add_argument("--biathletes", default=None, metavar="NAMES",
                   help="comma-separated biathletes, one per seat (2 to 6), e.g. Owens,Olsson,Wei")
    r.add_argument("--colours", default=None, metavar="COLOURS",
                   help="comma-separated ski colours, one per seat (red, black, yellow, green, blue, "
                        "white; default: the ski colour order)")
    r.add_argument("--players", default="heuristic", metavar="KINDS",
                   help="player kind for every seat, or a comma-separated list, one per seat "
                        "(heuristic, random; default: heuristic)")
    r.add_argument("--seed", type=int, default=1, help="the study's seed (default: 1)")
    r.add_argument("--race", type=int, default=0, help="the race index within the study (default: 0)")
    r.add_argument("--states", action="store_true",
                   help="after every turn, also print the racer's position, pulse, bullets, wax and cards")
    r.add_argument("--data", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    r.set_defaults(func=cmd_replay)
    b = sub.add_parser(
        "bench", help="races per second by trail and number of racers",
        description="Play races on one core and report races per second, mean race length in rounds "
                    "and the share of stalled races, per trail and number of racers. Compilation (or "
                    "loading compiled kernels from the cache) is timed separately.",
        epilog="examples:\n  biathlon-sim bench --trails Kurz --racers 4\n"
               "  biathlon-sim bench --races 5000 --racers 2,4,6 --player random",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--trails", default=None, help="comma-separated trail names (default: all)")
    b.add_argument("--racers", default="4", help="comma-separated racer counts (default: 4)")
    b.add_argument("--races", type=int, default=20000, help="races per cell (default: 20000)")
    b.add_argument("--player", default="heuristic", help="player for every seat (default: heuristic)")
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--data", default=None, metavar="DIR", help="data directory (default: shipped)")
    b.set_defaults(func=cmd_bench)
    u = sub.add_parser(
        "run", help="play many races of one set-up and write the results table",
        description="Play races 0 .. N-1 of one design with a seed, in chunks over joblib workers, "
                    "and print the win rate per biathlete. With --out, every finished chunk is "
                    "written at once and the same command run again resumes; the table "
                    "(results.parquet, one row per race and racer) and a manifest (seed, data hash, "
                    "design, version, command) are written there. The table is the same whatever "
                    "--jobs and --chunk.",
        epilog="examples:\n  biathlon-sim run --trail Kurz --racers 4 --races 100000 --out runs/kurz4\n"
               "  biathlon-sim run --trail Lang --biathletes Owens,Olsson --players heuristic,random "
               "--races 5000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    u.add_argument("--trail", required=True)
    u.add_argument("--racers", type=int, default=4, help="racers per race, balanced line-ups (default 4)")
    u.add_argument("--biathletes", default=None, help="a fixed line-up, comma-separated (seat order)")
    u.add_argument("--colours", default=None, help="fixed ski colours for a fixed line-up")
    u.add_argument("--players", default=None, help="one player for all seats or one per seat")
    u.add_argument("--races", type=int, default=10000)
    u.add_argument("--seed", type=int, default=1)
    u.add_argument("--chunk", type=int, default=10000, help="races per chunk (default 10000)")
    u.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    u.add_argument("--out", default=None, metavar="DIR", help="write chunks, table and manifest here")
    u.add_argument("--quiet", action="store_true", help="no progress bar")
    u.add_argument("--data", default=None, metavar="DIR", help="data directory (default: shipped)")
    u.set_defaults(func=cmd_run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as command-line tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("biathlon-sim: interrupted; a run with --out keeps its finished chunks and the same "
              "command resumes it", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
