"""biathlon-sim ladder: the parser and the call."""
from __future__ import annotations

import argparse
from pathlib import Path

from ..validation import DataError
from .common import (
    EXIT_BAD_DATA, data_option, examples, fail, jobs_option, keep_option, load_or_report, out_file, races_count,
    reason, rounding_note, scenario_option, scenario_words, scheduler_option, seed_value, split_list,
)

#: how help names a value of a seat axis (an axis not here is named as it is)
ENTRANT_WORDS = {"colour": "ski colour"}


def player_game_options(p: argparse.ArgumentParser) -> None:
    """The options of the games with players (Ski Tour's --side, --variant), each defaulting to
    the chosen game's default; `players_game` turns them into the game's options."""
    from .. import games

    seen: dict[str, list[str]] = {}
    for g in games.with_players():
        for option, values in g.options.items():
            seen.setdefault(option, [])
            seen[option].append(f"{g.title}: {', '.join(map(str, values))}, default {values[0]}")
    for option, texts in seen.items():
        p.add_argument(f"--{option.replace('_', '-')}", dest=f"option_{option}", default=None,
                       metavar=option.upper(), help="; ".join(texts))


def players_game(args: argparse.Namespace, command: str):
    """(GameInfo, options) of the chosen game, or (None, exit status) after one line: a game
    without players, an option the game does not have or a value it does not allow."""
    from .. import games

    info = games.game(getattr(args, "game", None))
    if not info.players:
        titles = " and ".join(g.title for g in games.with_players())
        return None, fail(command, f"{command} plays players against each other and {info.title} has none "
                                   f"(its seats are dice); {command} supports {titles}")
    given = {k[len("option_"):]: v for k, v in vars(args).items() if k.startswith("option_") and v is not None}
    for key in given:
        if key not in info.options:
            return None, fail(command, f"--{key.replace('_', '-')} is not an option of {info.title}"
                                       f" (options: {', '.join(info.options) or 'none'})")
    try:
        options = info.check_options({k: next((v for v in info.options[k] if str(v) == text), text)
                                      for k, text in given.items()})
    except ValueError as exc:
        return None, fail(command, str(exc))
    return info, options


def add_parser(sub, info) -> None:
    lad = sub.add_parser(
        "ladder", help="play players against each other and rank them by win rate",
        description="Play players (names, or persona files ending in .toml) against each other with "
                    f"balanced line-ups: every player sits in every seat and races with every "
                    f"{' and every '.join(ENTRANT_WORDS.get(a, a) for a in info.axes)} equally often, and every seat arrangement plays the "
                    "same race indices, so seat, colour and line-up luck cancel. Biathlon Blast and "
                    "Ski Tour (--game skitour, on a --course); Mania has no players. Prints the win "
                    "rate per seat raced with its 95% "
                    "Wilson interval, the fair share and the mean place, best first, then the win-rate "
                    "gap of every pair measured race by race. With --vs A,B: A in half the seats, B in "
                    "the other half, rotated, and a verdict on the gap. Races are rounded up to whole "
                    "blocks of line-ups. Exits 2 with one line when a name is unknown.",
        epilog=examples(info, "ladder"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    lad.add_argument("--players", default=None,
                     help=f"comma-separated players, each once (default: random and the heuristic personas, "
                          f"{','.join(info.players) or 'none'}; add reference (or lookahead) for the strength "
                          f"reference)")
    lad.add_argument("--vs", default=None, metavar="A,B", help="head to head: A in half the seats, B in the rest")
    if info.players:
        scenario_option(lad, info, "trail", several=False, more=" (required)")
    else:                 # a game without players: whatever it says, the command refuses it below
        lad.add_argument(*(f"--{w}" for w in scenario_words()), dest="trail", default=None, help=argparse.SUPPRESS)
    lad.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    lad.add_argument("--races", type=races_count, default=10000, help="races in all (default 10000)")
    lad.add_argument("--seed", type=seed_value, default=1)
    jobs_option(lad)
    lad.add_argument("--out", default=None, metavar="CSV", type=out_file, help="also write the table to this CSV file")
    scheduler_option(lad)
    keep_option(lad, "the ladder's races")
    lad.add_argument("--quiet", action="store_true", help="no progress bar")
    player_game_options(lad)
    data_option(lad)
    lad.set_defaults(func=cmd_ladder)


def cmd_ladder(args: argparse.Namespace) -> int:
    info, options = players_game(args, "ladder")
    if info is None:
        return options
    from ..ladder import head_to_head, ladder, roster

    def bad(message: str) -> int:
        return fail("ladder", message)

    if args.races < 1:
        return bad(f"--races must be at least 1, got {args.races}")
    if args.trail is None:
        return bad(f"give the {info.scenario} to race on: --{info.scenario} NAME")
    bundle = load_or_report(args.data, game=info.name)
    if bundle is None:
        return EXIT_BAD_DATA
    import shlex
    import sys

    game = dict(game=info.name, options=options or None, scheduler=args.scheduler, out=args.keep,
                repair=args.repair, log=print, command="biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    try:
        hook = roster(info.name)
        known = hook.available()
        if args.vs:
            pair = split_list(args.vs)
            if len(pair) != 2:
                return bad(f"--vs takes two players, A,B; got {args.vs!r}")
            a, b = (hook.resolve(p, known) for p in pair)
            result = head_to_head(bundle, a, b, args.trail, args.racers, args.races, args.seed, args.jobs,
                                  progress=not args.quiet, known=known, **game)
        else:
            players = split_list(args.players) or list(info.players)
            result = ladder(bundle, players, args.trail, args.racers, args.races, args.seed, args.jobs,
                            progress=not args.quiet, known=known, **game)
    except (KeyError, ValueError) as exc:
        return bad(reason(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    rounding_note(args.races, result.races, f"whole blocks of {len(result.arrangements)} seat arrangements on the "
                                            f"same race indices (and balanced line-ups)")
    print(result.describe())
    print(f"win rate per seat raced, with 95% Wilson interval (data {bundle.data_hash}):")
    print(result.table.round(4).to_string())
    if args.vs:
        print(result.verdict(a.name, b.name))
    else:
        print("pairwise: win-rate gap on the same races, 95% interval and two-sided p (paired by race index):")
        pairs = result.pairs.round({"gap": 4, "low": 4, "high": 4})
        pairs["p"] = [("<1e-15" if p < 1e-15 else f"{p:.2g}") for p in pairs.p]
        print(pairs.to_string(index=False))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)      # out_file checked it can be made
        result.table.to_csv(args.out)
        print(f"table: {args.out}")
        from reports.pages import ladder_page, page_beside

        page = ladder_page(page_beside(args.out), result.table, None if args.vs else result.pairs,
                           result.describe(), result.verdict(a.name, b.name) if args.vs else "")
        print(f"page: {page}")
    return 0
