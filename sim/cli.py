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


def load_or_report(data, patches=()):
    """The compiled bundle of a data directory (with patches: a data variant), or None after
    printing one line per problem."""
    from .blast.compile import load_bundle

    try:
        return load_bundle(data, patches)
    except DataError as exc:
        print_problems(data or "the shipped data", exc)
        return None


def print_problems(where, exc: DataError) -> int:
    """Every problem of a DataError, one line each, under a heading naming where they are."""
    print(f"{where}: {len(exc.problems)} problem(s) found:", file=sys.stderr)
    for p in exc.problems:
        print(str(p), file=sys.stderr)
    return EXIT_BAD_DATA


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
    from pathlib import Path

    from .blast.eventlog import render_log
    from .blast.play import play_one
    from .run import design_from_manifest, read_manifest

    path = Path(args.run) / "manifest.json"
    try:
        manifest = read_manifest(args.run)
        design = design_from_manifest(manifest)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return bad(f"{path}: not the manifest of a run ({exc})")
    if args.race >= manifest["races"]:
        return bad(f"the run has races 0 .. {manifest['races'] - 1}, not {args.race}")
    from .validation import Patch

    patches = [Patch(**p) for p in manifest.get("patches", [])]     # a study's data variant
    bundle = load_or_report(args.data or manifest.get("data_source") or None, patches)
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
    if args.scaling:
        from .bench import scaling

        try:
            jobs = [int(j) for j in split_list(args.scaling)]
        except ValueError:
            return bad(f"--scaling takes worker counts such as 1,2,4; got {args.scaling!r}")
        if not jobs or min(jobs) < 1:
            return bad("--scaling worker counts must be at least 1")
        t, n = bundle.trail_names[trails[0]], racers[0]
        print(f"\nscaling: whole runs of {args.scaling_races:,} races ({t}, {n} racers, balanced line-ups, "
              f"chunks of {args.chunk:,}) by number of worker processes")
        print(scaling(bundle, t, n, args.scaling_races, jobs, args.chunk, args.seed).to_string(index=False))
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
        players=tuple(split_list(args.players) or ["balanced"]),
    )
    if args.races < 1 or args.chunk < 1:
        return fail("run", "--races and --chunk must be at least 1")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        _, info = run_races(bundle, design, args.races, args.seed, chunk_size=args.chunk, n_jobs=args.jobs,
                            out=args.out, progress=not args.quiet, command=command, collect=False,
                            scheduler=args.scheduler)
    except (KeyError, ValueError, OSError) as exc:
        return fail("run", str(exc.args[0]) if exc.args else str(exc))
    if info.chunks_played:
        print(f"{info.races:,} races played in {info.seconds:.1f} s ({info.races_per_second:,.0f} races/s)"
              + (f"; {info.chunks_reused} finished chunk(s) of an earlier run reused" if info.chunks_reused else ""))
    else:
        print(f"every chunk was already played by an earlier run in {args.out}: nothing to play")
    if args.out:
        print(f"table: {args.out}/results/ (Parquet, one file per chunk); manifest: {args.out}/manifest.json")
    print(f"win rate per biathlete ({args.races:,} races, {design.racers} racers, {design.trail}):")
    print(win_rates(info.summary, bundle.biathlete_names, design.racers).to_string())
    return 0


def win_rates(summary, biathlete_names, racers: int):
    """Races, wins, win rate and mean place per biathlete from a run's summary counts."""
    by = summary.groupby(level="biathlete").sum()
    out = by.assign(win_rate=by.wins / by.races, mean_place=by.place_sum / by.races)
    out.index = [biathlete_names[i] for i in out.index]
    out.index.name = "biathlete"
    out["fair_share"] = 1 / racers
    return out[["races", "wins", "win_rate", "fair_share", "mean_place"]].sort_values(
        "win_rate", ascending=False).round(4)


def cmd_study(args: argparse.Namespace) -> int:
    import shlex

    from .study import load_study, run_study

    def bad(message: str) -> int:
        return fail("study", message)

    try:
        study = load_study(args.file)
    except DataError as exc:
        return print_problems(args.file, exc)
    only = split_list(args.cells)
    if only:
        unknown = [c for c in only if c not in [cell.name for cell in study.cells]]
        if unknown:
            return bad(f"no cell named {unknown[0]!r}; cells: {', '.join(c.name for c in study.cells)}")
    print(f"{study.title}: {len(study.cells)} cell(s), {study.races:,} races in all, seed {study.seed}")
    if args.dry_run:
        for c in study.cells:
            d = c.design
            line_up = ",".join(d.biathletes) if d.biathletes else "balanced line-ups"
            print(f"  {c.name}: {d.trail}, {d.racers} racers, {line_up}, players {','.join(map(str, d.players))}, "
                  f"{c.races:,} races x variants {', '.join(c.variants)} (seed {c.seed})")
        return 0
    if not args.out:
        return bad("give --out DIR (where the results go), or --dry-run")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    try:
        summary = run_study(study, args.out, n_jobs=args.jobs, progress=not args.quiet,
                            scheduler=args.scheduler, command=command, only=only)
    except DataError as exc:
        return print_problems(args.file, exc)
    except (KeyError, ValueError, OSError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    print(f"table: {args.out}/results/ (Parquet dataset, cell=/variant= folders); "
          f"counts: {args.out}/summary.csv")
    g = summary.groupby(["biathlete_name", "cell", "variant"]).sum(numeric_only=True)
    rates = (g.wins / g.races).unstack(["cell", "variant"]).round(4)
    print("win rate per biathlete, by cell and variant:")
    print(rates.to_string())
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from reports.report import ReportOptions, build_report

    from .results_folder import open_results

    if not 0 < args.confidence < 1:
        return fail("report", f"--confidence must lie strictly between 0 and 1, got {args.confidence}")
    try:
        source = open_results(args.results)
        options = ReportOptions(confidence=args.confidence, reference=args.reference)
        report = build_report(source, args.out, options, log=(lambda _: None) if args.quiet else print)
    except (ValueError, KeyError, OSError) as exc:
        return fail("report", str(exc.args[0]) if exc.args else str(exc))
    print("findings:")
    for line in report.findings:
        print(f"- {line}")
    print(f"report: {args.out}/report.html ({len(report.figure_names)} figures in {args.out}/figures/, "
          f"{len(report.table_names)} tables in {args.out}/tables/)")
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    from .blast.players import available, resolve
    from .ladder import head_to_head, ladder

    def bad(message: str) -> int:
        return fail("ladder", message)

    if args.races < 1:
        return bad(f"--races must be at least 1, got {args.races}")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    try:
        known = available()
        if args.vs:
            pair = split_list(args.vs)
            if len(pair) != 2:
                return bad(f"--vs takes two players, A,B; got {args.vs!r}")
            a, b = (resolve(p, known) for p in pair)
            result = head_to_head(bundle, a, b, args.trail, args.racers, args.races, args.seed, args.jobs,
                                  progress=not args.quiet, known=known)
        else:
            players = split_list(args.players) or []
            result = ladder(bundle, players, args.trail, args.racers, args.races, args.seed, args.jobs,
                            progress=not args.quiet, known=known)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
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
        result.table.to_csv(args.out)
        print(f"table: {args.out}")
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    import re
    import shlex
    from pathlib import Path

    from .blast.players import PERSONA_DIR, available, write_persona
    from .tune import tune

    def bad(message: str) -> int:
        return fail("tune", message)

    out = Path(args.out)
    if not out.name.endswith(".toml"):
        return bad(f"--out must name a .toml persona file, got {args.out!r}")
    if not out.parent.is_dir():
        return bad(f"--out: no folder {str(out.parent)!r}")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    name = (args.name or out.stem).lower()
    if not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        return bad(f"a persona name is letters, digits, - and _, got {name!r}")
    try:
        other = available().get(name)
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    if other is not None and out.parent.resolve() == PERSONA_DIR and \
            Path(other.source).resolve() != out.resolve():
        return bad(f"a persona named {name!r} already exists ({other.source}); choose another --name")
    try:
        result = tune(bundle, args.start, split_list(args.trails) or [], args.racers, args.generations,
                      args.population, args.races_per_candidate, args.seed, args.jobs, args.check_races,
                      args.check_seed, name, report=lambda line: print(line, flush=True))
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(f"weights: {result.weight_changes()}")
    command = "biathlon-sim " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    g = result.generations
    note = (f"Written by: {command}\n"
            f"Tuning: seed {result.seed}, {len(g)} generations x {len(g[0].win_rates)} candidates x "
            f"{g[0].races_per_candidate:,} races against {result.start.name} (races 0..{g[-1].races[1] - 1}), "
            f"data {bundle.data_hash}.\n" + result.check_line())
    write_persona(result.tuned, out, note="\n".join(_wrap(note)))
    print(f"persona: {out}")
    return 0


def _wrap(text: str, width: int = 98) -> list[str]:
    import textwrap

    return [line for para in text.splitlines() for line in textwrap.wrap(para, width)]


def cmd_compare(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .compare import check_pairable, compare, format_table, parse_set

    def bad(message: str) -> int:
        return fail("compare", message)

    if bool(args.changed) == bool(args.set):
        return bad("give the changed data: --changed DIR or one or more --set FILE:PATH=VALUE (not both)")
    if args.races < 1 or args.chunk < 1:
        return bad("--races and --chunk must be at least 1")
    patches, problems = [], []
    for text in args.set or []:
        try:
            patches.append(parse_set(text))
        except ValueError as exc:
            problems.append(str(exc))
    if problems:
        for line in problems:
            print(f"biathlon-sim compare: {line}", file=sys.stderr)
        return EXIT_BAD_DATA
    base = load_or_report(args.base)
    if base is None:
        return EXIT_BAD_DATA
    changed = load_or_report(args.changed or args.base, patches)
    if changed is None:
        return EXIT_BAD_DATA
    trails = split_list(args.trails) or list(base.trail_names)
    problems = check_pairable(base, changed, trails)
    if problems:
        for line in problems:
            print(f"biathlon-sim compare: {line}", file=sys.stderr)
        return EXIT_BAD_DATA
    if base.data_hash == changed.data_hash:
        print("note: the changed data equals the base (same data hash); every difference will be 0")
    try:
        result = compare(base, changed, trails, args.racers, args.races, args.seed,
                         tuple(split_list(args.players) or ["balanced"]), args.chunk, args.jobs,
                         progress=not args.quiet, correction=args.correction)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(result.describe())
    t = result.table
    nw = result.no_winner
    print(f"races without a winner: base {nw.base.sum():,}, changed {nw.changed.sum():,} of {nw.races.sum():,}")
    shown = t if args.rows is None else t.head(args.rows)
    print(f"win rate per biathlete (all trails{', and per trail' if len(trails) > 1 else ''}) and per ski "
          f"colour, largest change first; diff and its 95% interval in percentage points, paired by race; "
          f"* = significant at 5% after {'Holm' if args.correction == 'holm' else 'Benjamini-Hochberg'} "
          f"correction over {len(t)} rows ({int(t.significant.sum())} significant):")
    print(format_table(shown))
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            t.to_csv(out / "comparison.csv", index=False)
            counts = result.counts.reset_index()
            for key, names in (("trail", base.trail_names), ("biathlete", base.biathlete_names)):
                counts.insert(counts.columns.get_loc(key) + 1, f"{key}_name", [names[i] for i in counts[key]])
            counts.to_csv(out / "counts.csv", index=False)
        except OSError as exc:
            return bad(f"--out {args.out}: {exc.strerror or exc}")
        print(f"tables: {out / 'comparison.csv'}, {out / 'counts.csv'} (counts per trail, biathlete and ski colour)")
    return 0


def cmd_worldcup(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .worldcup import CupRules, play_world_cups

    def bad(message: str) -> int:
        return fail("worldcup", message)

    if args.cups < 1 or args.chunk < 1 or args.rating_races < 1:
        return bad("--cups, --chunk and --rating-races must be at least 1")
    bundle = load_or_report(args.data)
    if bundle is None:
        return EXIT_BAD_DATA
    draft = args.draft.strip()
    draft = draft.lower() if draft.lower() in ("rated", "random") else tuple(split_list(draft))
    rules = CupRules(trails=tuple(split_list(args.trails)), racers=args.racers, draft=draft,
                     redraft=args.redraft, players=tuple(split_list(args.players) or ["balanced"]))
    try:
        cups = play_world_cups(bundle, rules, args.cups, args.seed, chunk_size=args.chunk, n_jobs=args.jobs,
                               progress=not args.quiet, keep_races=bool(args.out), rating_races=args.rating_races)
    except (KeyError, ValueError) as exc:
        return bad(str(exc.args[0]) if exc.args else str(exc))
    except DataError as exc:
        return bad(str(exc).splitlines()[0])
    print(cups.describe() + f"; data {bundle.data_hash}")
    if cups.ratings is not None:
        print(f"draft ratings: win rate per trail in {args.rating_races:,} races of balanced line-ups per trail"
              + ("" if rules.redraft else "; the draft uses their mean (cup)"))
        print(cups.ratings.sort_values("cup", ascending=False).round(4).to_string())
    odds = cups.title_odds()
    print("\ntitle odds per biathlete (its share of all titles, 95% Wilson interval), cups drafted, "
          "odds when drafted, mean cup points when drafted, mean place per race raced"
          + (" (with --redraft: by the biathlete each player drafted for race 1)" if rules.redraft else "") + ":")
    print(odds.round(4).to_string())
    print("\ntitle odds by place in the race 1 draft (1 = first pick, the earliest ski colour of race 1):")
    print(cups.by_pick().round(4).to_string())
    gap = cups.pick_gap()
    print(f"first pick minus last pick: {gap['mean'] * 100:+.2f} points [{gap['low'] * 100:+.2f}, "
          f"{gap['high'] * 100:+.2f}] (95%, paired by cup over {gap['units']:,} cups), p = "
          + ("<1e-15" if gap["p"] < 1e-15 else f"{gap['p']:.2g}"))
    if cups.cups.player_name.nunique() > 1:
        print("\ntitle odds by player:")
        print(cups.by_player().round(4).to_string())
    if args.out:
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            cups.cups.to_csv(out / "cups.csv", index=False)
            odds.to_csv(out / "title_odds.csv")
            cups.by_pick().to_csv(out / "by_pick.csv")
            if cups.ratings is not None:
                cups.ratings.to_csv(out / "ratings.csv")
            cups.races.to_parquet(out / "races.parquet", index=False)
        except OSError as exc:
            return bad(f"--out {args.out}: {exc.strerror or exc}")
        print(f"\ntables: {out}/cups.csv (one row per cup and player), title_odds.csv, by_pick.csv"
              + (", ratings.csv" if cups.ratings is not None else "")
              + ", races.parquet (one row per race and racer, with cup and race_no)")
    return 0



def _data_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default=None, metavar="DIR", help="data directory (default: shipped)")


def _jobs_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")


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
    r.add_argument("--players", default="balanced", metavar="PLAYERS",
                   help="player for every seat, or a comma-separated list, one per seat: a persona "
                        "(balanced, sprinter, conservative, sharpshooter, lookahead, ...), random, or "
                        "a persona file (.toml); default: balanced")
    r.add_argument("--seed", type=int, default=1, help="the study's seed (default: 1)")
    r.add_argument("--race", type=int, default=0, help="the race index within the study (default: 0)")
    r.add_argument("--states", action="store_true",
                   help="after every turn, also print the racer's position, pulse, bullets, wax and cards")
    r.add_argument("--data", default=None, metavar="DIR",
                   help="data directory (default: the shipped illustrative data set)")
    r.set_defaults(func=cmd_replay)
    b = sub.add_parser(
        "bench", help="races per second by trail and number of racers, and scaling over workers",
        description="Play races on one core and report races per second, mean race length in rounds "
                    "and the share of stalled races, per trail and number of racers. Compilation (or "
                    "loading compiled kernels from the cache) is timed separately. With --scaling, also "
                    "time whole runs (chunks, workers, tables on the side) for each worker count and "
                    "print the speed-up over the first.",
        epilog="examples:\n  biathlon-sim bench --trails Kurz --racers 4\n"
               "  biathlon-sim bench --races 5000 --racers 2,4,6 --player random\n"
               "  biathlon-sim bench --trails Kurz --racers 4 --scaling 1,2 --scaling-races 1000000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--trails", default=None, help="comma-separated trail names (default: all)")
    b.add_argument("--racers", default="4", help="comma-separated racer counts (default: 4)")
    b.add_argument("--races", type=int, default=20000, help="races per cell (default: 20000)")
    b.add_argument("--player", default="heuristic", help="player for every seat (default: heuristic)")
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--scaling", default=None, metavar="JOBS",
                   help="also time whole runs with these worker counts, e.g. 1,2 (first trail and racers)")
    b.add_argument("--scaling-races", type=int, default=200_000, help="races per scaling run (default 200000)")
    b.add_argument("--chunk", type=int, default=20_000, help="races per chunk in scaling runs (default 20000)")
    _data_option(b)
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
    u.add_argument("--players", default=None,
                   help="one player for all seats or one per seat, comma-separated: persona names "
                        "(balanced, sprinter, conservative, sharpshooter, lookahead), random, or persona "
                        "files (.toml); default: balanced")
    u.add_argument("--races", type=int, default=10000)
    u.add_argument("--seed", type=int, default=1)
    u.add_argument("--chunk", type=int, default=10000, help="races per chunk (default 10000)")
    _jobs_option(u)
    u.add_argument("--out", default=None, metavar="DIR", help="write the table (one Parquet file per "
                   "chunk, in DIR/results/) and the manifest here; the same command resumes")
    u.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the chunks on the dask.distributed cluster at ADDRESS (tcp://host:8786)")
    u.add_argument("--quiet", action="store_true", help="no progress bar")
    _data_option(u)
    u.set_defaults(func=cmd_run)
    st = sub.add_parser(
        "study", help="run a study file: many cells, data variants on common seeds",
        description="Run every cell of a study file (docs/studies.md) on each of its data variants. "
                    "A cell's variants replay the same seed and race indices, so their differences are "
                    "measured on common random numbers. Results go to OUT/results/cell=NAME/variant=NAME/ "
                    "as Parquet chunk files (read them all with pandas.read_parquet(OUT + '/results') or "
                    "sim.study.read_study), counts per cell, variant, seat, ski colour, biathlete and "
                    "player to OUT/summary.csv. Memory stays flat however many races. Interrupted (Ctrl-C), "
                    "the same command resumes where it stopped.",
        epilog="examples:\n  biathlon-sim study experiments/wax_value.toml --out runs/wax --jobs 2\n"
               "  biathlon-sim study experiments/balance.toml --dry-run      # list the cells\n"
               "  biathlon-sim study experiments/smoke.toml --out runs/smoke --cells kurz-4\n"
               "  biathlon-sim study experiments/balance.toml --out runs/b --scheduler tcp://10.0.0.5:8786",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    st.add_argument("file", metavar="FILE", help="the study file (TOML)")
    st.add_argument("--out", metavar="DIR", help="where results go (required unless --dry-run)")
    st.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores; default 1)")
    st.add_argument("--cells", default=None, help="run only these cells (comma-separated names)")
    st.add_argument("--scheduler", default=None, metavar="ADDRESS",
                    help="run the chunks on the dask.distributed cluster at ADDRESS")
    st.add_argument("--dry-run", action="store_true", help="check the study and list its cells; play nothing")
    st.add_argument("--quiet", action="store_true", help="no progress bars")
    st.set_defaults(func=cmd_study)
    rp = sub.add_parser(
        "report", help="turn a study's results into the balance report (HTML, figures, tables)",
        description="Read a study's output folder (biathlon-sim study --out) or a run's (biathlon-sim run "
                    "--out) and write the balance report to --out: report.html (self-contained: findings "
                    "written from the numbers, figures embedded, tables), every figure as PNG and SVG in "
                    "figures/, every table as CSV in tables/, and findings.txt. Every rate carries its "
                    "sample size and a confidence interval; gaps to a fair share are flagged after "
                    "Holm's correction. Sections the study cannot support (no paired variants, one "
                    "persona) are replaced by a sentence naming the cells that would enable them "
                    "(docs/reports.md). Exits 2 with one line when RESULTS is not such a folder.",
        epilog="examples:\n  biathlon-sim report runs/balance --out out/balance\n"
               "  biathlon-sim report runs/wax --out out/wax --confidence 0.99\n"
               "  biathlon-sim report runs/kurz4 --out out/kurz4          # a single run\n"
               "  biathlon-sim report runs/balance --out out/sprinter --reference sprinter",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("results", metavar="RESULTS", help="a study's or a run's output folder")
    rp.add_argument("--out", required=True, metavar="DIR", help="where the report goes (created if needed)")
    rp.add_argument("--confidence", type=float, default=0.95, help="level of every interval (default 0.95)")
    rp.add_argument("--reference", default=None, metavar="PERSONA",
                    help="the persona whose balanced line-ups make the main tables (default: the one "
                         "with the most races)")
    rp.add_argument("--quiet", action="store_true", help="no progress lines")
    rp.set_defaults(func=cmd_report)
    lad = sub.add_parser(
        "ladder", help="play players against each other and rank them by win rate",
        description="Play players (names, or persona files ending in .toml) against each other with "
                    "balanced line-ups: every player sits in every seat and races in every ski colour "
                    "equally often, and every seat arrangement plays the same race indices, so seat, "
                    "colour and line-up luck cancel. Prints the win rate per seat raced with its 95% "
                    "Wilson interval, the fair share and the mean place, best first, then the win-rate "
                    "gap of every pair measured race by race. With --vs A,B: A in half the seats, B in "
                    "the other half, rotated, and a verdict on the gap. Races are rounded up to whole "
                    "blocks of line-ups. Exits 2 with one line when a name is unknown.",
        epilog="examples:\n"
               "  biathlon-sim ladder --trail Kurz --races 40000 --jobs 2\n"
               "  biathlon-sim ladder --players random,balanced,sprinter,conservative,sharpshooter \\\n"
               "      --trail Kurz --racers 4 --races 40000 --seed 1 --jobs 2 --out ladder.csv\n"
               "  biathlon-sim ladder --vs balanced,random --trail Kurz --races 4000\n"
               "  biathlon-sim ladder --vs lookahead,balanced --trail Kurz --races 3000 --jobs 2\n"
               "  biathlon-sim ladder --vs my-persona.toml,balanced --trail Lang --races 20000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    lad.add_argument("--players", default="random,balanced,sprinter,conservative,sharpshooter",
                     help="comma-separated players, each once (default: random and the heuristic "
                          "personas; add lookahead for the slow strength reference)")
    lad.add_argument("--vs", default=None, metavar="A,B", help="head to head: A in half the seats, B in the rest")
    lad.add_argument("--trail", required=True)
    lad.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    lad.add_argument("--races", type=int, default=10000, help="races in all (default 10000)")
    lad.add_argument("--seed", type=int, default=1)
    _jobs_option(lad)
    lad.add_argument("--out", default=None, metavar="CSV", help="also write the table to this CSV file")
    lad.add_argument("--quiet", action="store_true", help="no progress bar")
    _data_option(lad)
    lad.set_defaults(func=cmd_ladder)
    tu = sub.add_parser(
        "tune", help="improve a persona's weights by the cross-entropy method and write the result",
        description="Tune a heuristic persona's weights (all but progress, the score's unit) by the "
                    "cross-entropy method: each generation, a population of weight vectors, each "
                    "playing in one seat against the start persona in the others, rotated through "
                    "every seat with balanced line-ups on every trail given; all candidates of a "
                    "generation on the same races, new races each generation. Prints one line per "
                    "generation, then checks the result head to head against its start on a seed the "
                    "tuning never used (--check-seed, default --seed + 1) and writes the persona file "
                    "with the command and the check in its header. The result depends on the seed "
                    "only, not on --jobs.",
        epilog="examples:\n"
               "  biathlon-sim tune --start balanced --trails Kurz,Lang --generations 16 --population 24 \\\n"
               "      --races-per-candidate 4000 --seed 7 --jobs 2 --out sim/data/players/blast/tuned.toml\n"
               "  biathlon-sim tune --start sprinter --trails Short --generations 4 --population 8 \\\n"
               "      --races-per-candidate 800 --out my-sprinter.toml --name my-sprinter\n"
               "  biathlon-sim ladder --vs my-sprinter.toml,sprinter --trail Short --races 20000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    tu.add_argument("--start", default="balanced", help="the heuristic persona to improve (default balanced)")
    tu.add_argument("--trails", required=True, help="comma-separated trails to tune on, e.g. Kurz,Lang")
    tu.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    tu.add_argument("--generations", type=int, default=10, help="generations (default 10)")
    tu.add_argument("--population", type=int, default=16, help="candidates per generation (default 16)")
    tu.add_argument("--races-per-candidate", type=int, default=2000,
                    help="races each candidate plays per generation, over all trails (default 2000)")
    tu.add_argument("--check-races", type=int, default=20000,
                    help="races per trail of the final head-to-head (default 20000)")
    tu.add_argument("--seed", type=int, default=1)
    tu.add_argument("--check-seed", type=int, default=None, help="seed of the final check (default --seed + 1)")
    _jobs_option(tu)
    tu.add_argument("--out", required=True, metavar="TOML", help="the persona file to write")
    tu.add_argument("--name", default=None, help="the persona's name (default: the file's name)")
    _data_option(tu)
    tu.set_defaults(func=cmd_tune)
    co = sub.add_parser(
        "compare", help="what-if: a base and a changed data set on the same races, win rates compared",
        description="Play the same races on a base data set and a changed one (--changed DIR, or the base "
                    "with --set patches) and report which win rates moved: per biathlete over all trails, "
                    "per biathlete on each trail and per ski colour, the base and changed win rate, their "
                    "difference with a 95% interval, a p-value and a flag where it stays significant after "
                    "correcting for the number of rows (Holm; --correction bh for Benjamini-Hochberg); "
                    "largest change first.\n\n"
                    "Pairing: both data sets play races 0 .. N-1 of balanced line-ups on each trail with "
                    "the same seed, so race i seats the same biathletes in the same ski colours and starts "
                    "from the same shuffles and dice stream on both (common random numbers). For a "
                    "biathlete (or ski colour), each race it raced in gives one paired difference, "
                    "won on the changed data minus won on the base, for the same race and seat; races are "
                    "independent, so the interval and test come from the variance of that per-race "
                    "difference (standard error sd / sqrt(races)). Most races end the same way on both "
                    "data sets, so this is far tighter than comparing two independent runs. Each trail "
                    "plays with its own seed derived from --seed and the trail's name.\n\n"
                    "--set FILE:PATH=VALUE changes one value of a data file as it is read (docs/studies.md, "
                    "Patches): FILE relative to the data directory, PATH dotted keys where key[Name] picks "
                    "an entry by name, VALUE in TOML (a bare word is a string). A patch or data set that "
                    "does not fit is reported one line per problem, exit status 2.",
        epilog="examples:\n"
               "  biathlon-sim compare --set 'biathletes/olsson.toml:accuracy=[2,4,5]' --races 40000 --jobs 2\n"
               "  biathlon-sim compare --set 'biathletes/olsson.toml:card[Long Glide].top.flat=7' --trails Kurz\n"
               "  biathlon-sim compare --set game.toml:gear.red.bullets=5 --set 'game.toml:gear.red.wax={ black = 1 }'\n"
               "  biathlon-sim compare --set game.toml:switches.coach_boost=until_usable --out runs/coach\n"
               "  biathlon-sim compare --base my-data --changed my-data-v2 --racers 5 --races 20000",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    co.add_argument("--base", default=None, metavar="DIR", help="base data directory (default: shipped)")
    co.add_argument("--changed", default=None, metavar="DIR", help="changed data directory")
    co.add_argument("--set", action="append", default=None, metavar="FILE:PATH=VALUE",
                    help="change one value of the base data (repeat for several changes)")
    co.add_argument("--trails", default=None, help="comma-separated trails (default: all)")
    co.add_argument("--racers", type=int, default=4, help="racers per race (default 4)")
    co.add_argument("--races", type=int, default=9600,
                    help="races per trail on each data set, rounded up to whole blocks of line-ups "
                         "(biathletes x 6; default 9600)")
    co.add_argument("--seed", type=int, default=1)
    co.add_argument("--players", default=None, help="one player for all seats or one per seat (default balanced)")
    co.add_argument("--correction", choices=("holm", "bh"), default="holm",
                    help="multiple-comparison correction over the rows (default holm)")
    co.add_argument("--rows", type=int, default=None, help="print only the first N rows (default all)")
    co.add_argument("--chunk", type=int, default=4800, help="races per task (default 4800)")
    _jobs_option(co)
    co.add_argument("--out", default=None, metavar="DIR",
                    help="write comparison.csv and counts.csv (per trail, biathlete and ski colour) here")
    co.add_argument("--quiet", action="store_true", help="no progress bar")
    co.set_defaults(func=cmd_compare)
    wc = sub.add_parser(
        "worldcup", help="play World Cups: title odds per biathlete and by draft position",
        description="Play World Cups of four races (Lang, Kurz, Short, Long by default) by the rules in "
                    "docs/rules.md, World Cup: race 1 ski colours at random; from race 2 each player, in "
                    "the previous race's finishing order, takes the earliest free ski colour; biathletes "
                    "drafted in ski colour order once before race 1 (each player keeps its biathlete), or "
                    "before every race with --redraft; places scored as points, lowest total wins, ties "
                    "to the better place in the last race. Draft rules: rated (each picks the free "
                    "biathlete with the best win rate in a calibration run of balanced line-ups: mean over "
                    "the cup's trails, or on the race's trail with --redraft), random, or a preference "
                    "list of names. Prints each biathlete's title odds with 95% Wilson intervals, mean "
                    "points, title odds by draft position and the first-minus-last-pick gap paired by "
                    "cup. A cup is a function of (--seed, cup index): the same whatever --jobs and "
                    "--chunk; race k of cup c is race index c x races + k - 1 of the seed (replay it with "
                    "`replay` and the line-up from cups.csv).",
        epilog="examples:\n"
               "  biathlon-sim worldcup --cups 20000 --jobs 2\n"
               "  biathlon-sim worldcup --cups 20000 --draft random --out runs/cup-random\n"
               "  biathlon-sim worldcup --cups 10000 --redraft --racers 5\n"
               "  biathlon-sim worldcup --cups 5000 --draft Olsson,Owens,Wei,Pinto,Fischer,Bakken,Girard,Leitner",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    wc.add_argument("--cups", type=int, default=10000, help="World Cups to play (default 10000)")
    wc.add_argument("--racers", type=int, default=4, help="players per cup (default 4)")
    wc.add_argument("--draft", default="rated", metavar="RULE",
                    help="rated, random, or a comma-separated preference list of biathletes (default rated)")
    wc.add_argument("--redraft", action="store_true",
                    help="draft again before every race, in that race's ski colour order (the book's set-up)")
    wc.add_argument("--rating-races", type=int, default=9600,
                    help="races per trail of the calibration run behind a rated draft (default 9600)")
    wc.add_argument("--trails", default="Lang,Kurz,Short,Long", help="the races, in order (default Lang,Kurz,Short,Long)")
    wc.add_argument("--players", default=None, help="one player for all seats or one per seat (default balanced)")
    wc.add_argument("--seed", type=int, default=1)
    wc.add_argument("--chunk", type=int, default=500, help="cups per task (default 500)")
    _jobs_option(wc)
    wc.add_argument("--out", default=None, metavar="DIR",
                    help="write cups.csv, title_odds.csv, by_pick.csv, ratings.csv and races.parquet here")
    wc.add_argument("--quiet", action="store_true", help="no progress bars")
    _data_option(wc)
    wc.set_defaults(func=cmd_worldcup)
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
