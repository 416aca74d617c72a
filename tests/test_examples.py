"""Every example a user is shown runs (issue 29): each command line of every command's --help under
every game, of README.md and of docs/, played as written but small: race counts, generations,
cups and search budgets cut to the least the command takes (it rounds up to whole blocks, and says
so), study and balance files replaced by copies of themselves with their race counts cut the same
way, one worker, and no --scheduler (the cluster is tests/test_cluster.py's). Each example runs in
a folder of its own; the folders and files it reads (runs/kurz4, my-data/, my-persona.toml, ...)
are made there first, small, by the commands the documents give for them. A failure names the
example and where it is shown."""
from __future__ import annotations

import base64
import functools
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest

from sim import games
from sim.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent

#: options whose value is a count of work, and the least each command takes
SMALL = {"--races": "1", "--cups": "2", "--generations": "1", "--population": "2", "--races-per-candidate": "1",
         "--check-races": "1", "--scaling-races": "1", "--rating-races": "1", "--max-races": "48",
         "--max-minutes": "1", "--jobs": "1"}
#: a study or balance file's keys of the same kind, and their small values (precision_pp is dropped)
SMALL_KEYS = {"races": "16", "pilot": "1", "check_races": "1", "budget_races": "2000", "budget_minutes": "1",
              "max_rounds": "1"}


@functools.cache
def parser(game: str | None):
    """The command-line parser under --game `game` (one per game: building it takes a while)."""
    return build_parser(game)


def command_lines(text: str) -> list[str]:
    """The command lines of a help epilog or a Markdown page: `biathlon-sim ...` (or
    `.venv/bin/biathlon-sim ...`), continued lines joined, comments dropped."""
    lines, joined = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if joined:
            line, joined = joined + " " + line, ""
        if line.endswith("\\"):
            joined = line[:-1].strip()
            continue
        line = line.removeprefix(".venv/bin/")
        if line.startswith("biathlon-sim "):
            lines.append(line.split("  #")[0].split(" # ")[0].strip())
    return lines


def shown_examples() -> dict[str, list[str]]:
    """Every example command line, with where each is shown."""
    where: dict[str, list[str]] = {}
    for game in games.names():
        sub = next(a for a in parser(game)._actions if a.dest == "command")
        for name, command in sub.choices.items():
            for line in command_lines(command.epilog or ""):
                where.setdefault(line, []).append(f"{name} --help under --game {game}")
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for line in command_lines(page.read_text()):
            where.setdefault(line, []).append(str(page.relative_to(ROOT)))
    return where


EXAMPLES = shown_examples()


def small(argv: list[str]) -> list[str]:
    """The example's arguments with its counts of work cut (SMALL), those it leaves to their
    defaults given small too, and no --scheduler."""
    out, skip = [], False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        if word == "--scheduler":
            skip = True
            continue
        out.append(SMALL[argv[i - 1]] if i and argv[i - 1] in SMALL else word)
    game = argv[argv.index("--game") + 1] if "--game" in argv else None
    command = next(w for w in out if not w.startswith("-") and w != game)
    sub = next(a for a in parser(game)._actions if a.dest == "command").choices[command]
    offered = {s for a in sub._actions if a.help != "==SUPPRESS==" for s in a.option_strings}
    return out + [w for o in SMALL if o in offered and o not in out and o not in ("--jobs", "--max-minutes")
                  for w in (o, SMALL[o])]


def small_file(src: Path, dst: Path) -> None:
    """A study or balance file with its counts of work cut (SMALL_KEYS) and no precision target."""
    text = src.read_text()
    # a data folder named relative to the file is named where the file came from
    text = re.sub(r'(?m)^(\s*data\s*=\s*)"(\.[^"]*)"', lambda m: f'{m[1]}"{(src.parent / m[2]).resolve()}"', text)
    for key, value in SMALL_KEYS.items():
        text = re.sub(rf"(?m)^(\s*{key}\s*=\s*)[\d_]+", rf"\g<1>{value}", text)
    dst.write_text(re.sub(r"(?m)^\s*precision_(pp|ratio)\s*=.*$", "", text))


def play(argv: list[str], where: str) -> None:
    code = main(argv)
    assert code == 0, f"exit status {code}: biathlon-sim {shlex.join(argv)} ({where})"


#: what an example reads that some other example or document makes, and the commands that make it
#: small (run in the folder where it is read); a game's data folder is copied from the shipped one
MADE_BY = {
    "runs/kurz4": [["run", "--trail", "Kurz", "--racers", "4", "--races", "1240", "--out", "runs/kurz4", "--quiet"]],
    "runs/smoke": [["study", "experiments/smoke.toml", "--out", "runs/smoke", "--quiet"]],
    "runs/balance": [["study", "experiments/balance.toml", "--out", "runs/balance", "--cells",
                      "balanced-Lang-4,sprinter-Lang", "--quiet"]],
    "runs/wax": [["study", "experiments/wax_value.toml", "--out", "runs/wax", "--cells", "gear-Kurz", "--quiet"]],
    "runs/mania6": [["--game", "mania", "run", "--track", "red", "--racers", "6", "--races", "60", "--out",
                     "runs/mania6", "--quiet"]],
    "runs/mania": [["study", "experiments/mania.toml", "--out", "runs/mania", "--cells", "sprint-red-4,specials",
                    "--quiet"]],
    "runs/skitour": [["study", "experiments/skitour.toml", "--out", "runs/skitour", "--cells", "basic-Starter-4",
                      "--quiet"]],
}
#: players whose every decision searches rollouts, and worker pools (each worker loads every
#: kernel): even one block of races takes minutes, so these examples run when BIATHLON_ALL_EXAMPLES=1
#: (test_vocabulary reads them on every run)
SEARCHING = {"lookahead", "reference"}


def heavy(argv: list[str]) -> bool:
    pool = "--scaling" in argv and len(argv[argv.index("--scaling") + 1].split(",")) > 1
    return pool or any(part in SEARCHING or searching_file(part) for w in argv for part in w.split(","))


def searching_file(word: str) -> bool:
    """A persona file of the tree (benchmarks/personas/...) whose player searches."""
    path = ROOT / word
    return (word.endswith(".toml") and path.is_file()
            and re.search(r'(?m)^kind\s*=\s*"(reference|lookahead)"', path.read_text()) is not None)


#: what a figure's image is in this test: encoding PNG and SVG is the report's cost, not the
#: example's (tests/test_report.py and test_figures.py check the images)
PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


def no_image(fig, target, *args, **kwargs):
    data = b"<svg xmlns='http://www.w3.org/2000/svg'/>" if str(target).endswith(".svg") else PIXEL
    if hasattr(target, "write"):
        target.write(data)
    else:
        Path(target).write_bytes(data)


PERSONAS = {"my-persona.toml": "blast/balanced.toml", "my-sprinter.toml": "blast/sprinter.toml"}


def small_experiments(folder: Path) -> None:
    (folder / "experiments").mkdir(parents=True, exist_ok=True)
    for f in (ROOT / "experiments").glob("*.toml"):
        small_file(f, folder / "experiments" / f.name)


def workspace(folder: Path, argv: list[str], game: str, made: Path) -> None:
    """The folder an example runs in: small copies of the study and balance files, the folders an
    --out file goes into, and what the example reads (the results folders copied from `made`,
    where each is played once)."""
    small_experiments(folder)
    written = {argv[i + 1] for i, w in enumerate(argv[:-1]) if w in ("--out", "--keep")}
    for word in written:
        if word.endswith((".toml", ".csv")):
            (folder / word).parent.mkdir(parents=True, exist_ok=True)
    read = [part.rstrip("/") for w in argv if w not in written for part in w.split(",")]
    for word in read:
        if word in MADE_BY:
            if not (made / word).exists():
                os.chdir(made)
                small_experiments(made)
                for command in MADE_BY[word]:
                    play(command, f"making {word}")
                os.chdir(folder)
            shutil.copytree(made / word, folder / word)
        elif word.startswith("benchmarks/personas/") and (ROOT / word).is_file():   # a measured persona
            (folder / word).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / word, folder / word)
        elif word in PERSONAS:          # a persona of one's own, named as its file
            text = (ROOT / "sim" / "data" / "players" / PERSONAS[word]).read_text()
            (folder / word).write_text(re.sub(r'(?m)^name\s*=.*$', f'name = "{Path(word).stem}"', text))
        elif word == "my-data":
            shutil.copytree(ROOT / "sim" / "data" / game, folder / word)
        elif word == "my-data-v2":
            shutil.copytree(ROOT / "sim" / "data" / game, folder / word)
            olsson = folder / word / "biathletes" / "olsson.toml"
            olsson.write_text(re.sub(r"(?m)^accuracy\s*=.*$", "accuracy = [2, 4, 5]", olsson.read_text()))


def distinct() -> dict[str, list[str]]:
    """The examples that differ once made small and read (README and help often show one line
    twice, or with other counts, or its options in another order): the first line of each, with
    every place any of its lines is shown."""
    out: dict[str, tuple[str, list[str]]] = {}
    for line, where in EXAMPLES.items():
        try:
            argv = small(shlex.split(line)[1:])
            parsed = vars(parser(argv[argv.index("--game") + 1] if "--game" in argv else None).parse_args(argv))
            key = repr(sorted((k, repr(v)) for k, v in parsed.items() if k not in ("jobs", "func")))
        except (SystemExit, StopIteration, KeyError, ValueError):     # a line that does not parse runs alone, and fails
            key = line
        first, places = out.setdefault(key, (line, []))
        places += [w if line == first else f"{w} as {line!r}" for w in where]
    return dict(out.values())


RUN = distinct()


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Where the results folders examples read are played, once each."""
    return tmp_path_factory.mktemp("made")


@pytest.mark.parametrize("line", list(RUN), ids=list(RUN))
def test_the_example_runs(line, tmp_path, monkeypatch, capsys, made):
    try:
        argv = small(shlex.split(line)[1:])
    except (SystemExit, StopIteration, KeyError, ValueError) as exc:
        raise AssertionError(f"{line!r} (shown in {'; '.join(RUN[line])}) is not a command line: {exc!r}") from None
    game = argv[argv.index("--game") + 1] if "--game" in argv else games.DEFAULT
    where = "; ".join(RUN[line])
    if heavy(argv) and not os.environ.get("BIATHLON_ALL_EXAMPLES"):
        pytest.skip(f"{line}: search players or a worker pool take minutes; BIATHLON_ALL_EXAMPLES=1 runs it")
    monkeypatch.setattr("matplotlib.figure.Figure.savefig", no_image)
    monkeypatch.chdir(tmp_path)
    workspace(tmp_path, argv, game, made)
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, f"{line!r} (shown in {where}) exits {code}: {out.err.strip()[-600:]}"


def test_every_document_shows_examples_of_every_game():
    """The collection above finds what it should: examples under every game and from the docs."""
    text = " ".join(EXAMPLES)
    assert len(EXAMPLES) > 60 and "--game mania" in text and "--game skitour" in text
    assert any(w.startswith("docs/") for ws in EXAMPLES.values() for w in ws)


def test_an_example_that_does_not_run_fails_naming_it(tmp_path, monkeypatch, capsys):
    line = "biathlon-sim run --trail Nowhere --racers 4 --races 10"
    monkeypatch.setitem(RUN, line, ["a page"])
    with pytest.raises(AssertionError, match=r"'biathlon-sim run --trail Nowhere.*\(shown in a page\) exits 2: .*Nowhere"):
        test_the_example_runs(line, tmp_path, monkeypatch, capsys, tmp_path / "made")
