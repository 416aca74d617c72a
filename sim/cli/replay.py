"""biathlon-sim replay: the parser and the call."""
from __future__ import annotations

import argparse

from .common import EXIT_BAD_DATA, fail, load_or_report, reason, seed_value, split_list


def add_parser(sub) -> None:
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
    r.add_argument("--players", default="balanced", metavar="PLAYERS",
                   help="player for every seat, or a comma-separated list, one per seat: a persona "
                        "(balanced, sprinter, conservative, sharpshooter, lookahead, ...), random, or "
                        "a persona file (.toml); default: balanced")
    r.add_argument("--seed", type=seed_value, default=1, help="the study's seed (default: 1)")
    r.add_argument("--race", type=int, default=0, help="the race index within the study (default: 0)")
    r.add_argument("--states", action="store_true",
                   help="after every turn, also print the racer's position, pulse, bullets, wax and cards")
    r.add_argument("--data", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    r.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from kernels.blast import consts as C

    from ..blast.eventlog import render_log
    from ..blast.play import make_setup, play_one

    def bad(message: str) -> int:
        return fail("replay", message)

    if args.race < 0:
        return bad(f"--race must be 0 or more, got {args.race}")
    if args.run:
        return replay_from_run(args, bad)
    if getattr(args, "game", "blast") != "blast":
        return bad("for this game, replay a race of a run: biathlon-sim --game GAME run ... --out DIR, "
                   "then biathlon-sim replay --run DIR --race N")
    if not args.trail or not args.biathletes:
        return bad("give --trail and --biathletes, or --run DIR to replay a race of a run")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    biathletes = split_list(args.biathletes)
    twice = sorted({b for b in biathletes if biathletes.count(b) > 1})
    if twice:
        return bad(f"a line-up names each biathlete once; {', '.join(twice)} is named twice")
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
    from .common import compile_notice

    compile_notice("blast")
    try:
        setup = make_setup(bundle, args.trail, biathletes, colours, players)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    print(render_log(bundle, play_one(bundle, setup, args.seed, args.race), states=args.states), end="")
    return 0


def replay_from_run(args: argparse.Namespace, bad) -> int:
    """Replay race --race of the run in --run DIR: its design, seed and data, from the manifest."""
    from pathlib import Path

    from .. import games
    from ..run import design_from_manifest, read_manifest

    path = Path(args.run) / "manifest.json"
    try:
        manifest = read_manifest(args.run)
    except ValueError as exc:
        return bad(reason(exc))
    try:
        design = design_from_manifest(manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return bad(f"{path}: not the manifest of a run ({exc})")
    if args.race >= manifest["races"]:
        return bad(f"the run has races 0 .. {manifest['races'] - 1}, not {args.race}")
    from ..validation import Patch

    patches = [Patch(**p) for p in manifest.get("patches", [])]     # a study's data variant
    game = manifest.get("game", games.DEFAULT)
    game = game if game in games.names() else games.DEFAULT        # runs from before the registry
    bundle = load_or_report(args.data or manifest.get("data_source") or None, patches, game=game)
    if bundle is None:
        return EXIT_BAD_DATA
    if bundle.data_hash != manifest["data_hash"]:
        return bad(f"the data has hash {bundle.data_hash} but the run used {manifest['data_hash']}; "
                   f"pass --data with the run's data directory")
    print(games.game(game).load().replay(bundle, design, manifest["seed"], args.race, states=args.states), end="")
    return 0
