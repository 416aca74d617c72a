"""biathlon-sim replay: the parser and the call."""
from __future__ import annotations

import argparse

from .common import (
    EXIT_BAD_DATA, data_option, design_arguments, design_of, examples, fail, game_mismatch, load_or_report, reason,
    scenario_option, seed_value,
)


def add_parser(sub, info) -> None:
    word = info.scenario
    r = sub.add_parser(
        "replay", help="play one race and print its event log as text",
        description=f"Play one race of {info.title} (given by its seed and race index, as in a run or a "
                    f"study) and print what happened, turn by turn, and the final ranking. Give the "
                    f"{word} and the line-up as `run` takes them (the race index then picks the line-up of "
                    f"a balanced design, as in a run), or --run DIR to replay a race of a run's or a "
                    f"study's folder exactly (a study: --cell and --study-variant). Exits 2 with one line naming "
                    f"what was expected when a name is unknown.",
        epilog=examples(info, "replay"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--run", default=None, metavar="DIR",
                   help="replay race --race of the run or study written to DIR (its design, seed and data)")
    r.add_argument("--cell", default=None, help="with --run on a study's folder: the cell")
    r.add_argument("--study-variant", dest="study_variant", default=None, metavar="VARIANT",
                   help="with --run on a study's folder: the data variant (default base)")
    scenario_option(r, info, "scenario", several=False)
    design_arguments(r, info)
    r.add_argument("--seed", type=seed_value, default=1, help="the run's or study's seed (default: 1)")
    r.add_argument("--race", type=int, default=0, help="the race index (default: 0)")
    r.add_argument("--states", action="store_true",
                   help="after every turn, also print each racer's state (Blast: position, pulse, bullets, "
                        "wax and cards)")
    data_option(r)
    r.set_defaults(func=cmd_replay)


def cmd_replay(args: argparse.Namespace) -> int:
    from .. import games

    def bad(message: str) -> int:
        return fail("replay", message)

    if args.race < 0:
        return bad(f"--race must be 0 or more, got {args.race}")
    if args.run:
        return replay_from_run(args, bad)
    if (args.cell or args.study_variant) and not args.run:
        return bad("--cell and --study-variant pick a race of a study's folder: give --run DIR too")
    info = games.game(args.game)
    if not args.scenario:
        return bad(f"give --{info.scenario} (and the line-up, as `run` takes it), or --run DIR to replay a race "
                   f"of a run or study")
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    try:
        design = design_of(info, args, bundle)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    from .common import compile_notice

    compile_notice(info.name)
    print(info.load().replay(bundle, design, args.seed, args.race, states=args.states), end="")
    return 0


def replay_from_run(args: argparse.Namespace, bad) -> int:
    """Replay race --race of the run in --run DIR (or of a study's cell and variant there): its
    design, seed and data, from the manifest."""
    from pathlib import Path

    from .. import games
    from ..run import design_from_manifest, read_manifest

    folder = Path(args.run)
    if (folder / "study.json").exists():
        cells = sorted(f.name.split("=", 1)[1] for f in (folder / "results").glob("cell=*"))
        if not args.cell or args.cell not in cells:
            return bad(f"{folder} holds a study: name its cell with --cell ({', '.join(cells) or 'none played yet'})"
                       + (f"; no cell {args.cell!r}" if args.cell else ""))
        variant = args.study_variant or "base"
        folder = folder / "results" / f"cell={args.cell}" / f"variant={variant}"
        if not folder.is_dir():
            played = sorted(f.name.split("=", 1)[1] for f in folder.parent.glob("variant=*"))
            return bad(f"cell {args.cell!r} has no variant {variant!r}; played: {', '.join(played)}")
    elif args.cell or args.study_variant:
        return bad(f"{folder} holds a run, not a study: leave out --cell and --study-variant")
    path = folder / ("manifest.json" if (folder / "manifest.json").exists() else "_manifest.json")
    try:
        manifest = read_manifest(folder)
    except ValueError as exc:
        return bad(reason(exc))
    try:
        design = design_from_manifest(manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return bad(f"{path}: not the manifest of a run ({exc})")
    if args.race >= manifest["races"]:
        return bad(f"the {'run' if path.name == 'manifest.json' else 'cell'} has races 0 .. {manifest['races'] - 1}, "
                   f"not {args.race}")
    from ..validation import Patch

    patches = [Patch(**p) for p in manifest.get("patches", [])]     # a study's data variant
    game = manifest.get("game", games.DEFAULT)
    game = game if game in games.names() else games.DEFAULT        # runs from before the registry
    mismatch = game_mismatch(args, game, f"the run in {args.run}")
    if mismatch:
        return bad(mismatch)
    bundle = load_or_report(args.data or manifest.get("data_source") or None, patches, game=game)
    if bundle is None:
        return EXIT_BAD_DATA
    if bundle.data_hash != manifest["data_hash"]:
        return bad(f"the data has hash {bundle.data_hash} but the run used {manifest['data_hash']}; "
                   f"pass --data with the run's data directory")
    print(games.game(game).load().replay(bundle, design, manifest["seed"], args.race, states=args.states), end="")
    return 0
