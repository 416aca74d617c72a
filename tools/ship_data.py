"""Copy a balance search's changed data files into the game's shipped set (sim/data/GAME/).

    python tools/ship_data.py RUN_DIR BALANCE_FILE

The game is the balance file's (read as the `balance` command reads it, `extends` included). Each
changed file keeps the shipped file's header up to its "# BALANCED BY THE TOOL" block, gets a new
block naming the command and every change (entry, field, old -> new, from RUN_DIR/changes.csv),
and the body of RUN_DIR/data's file. A shipped file that an earlier search changed but this one
left at the base (a file of RUN_DIR/data not in changes.csv, with a BALANCED block and another
body) gets RUN_DIR/data's body back and loses the block, so the shipped set is the search's set.
Other files are left as they are.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[1] / "sim" / "data"
MARK = "# BALANCED BY THE TOOL"

#: per game: the issue whose search shipped the set, the section of the docs that describes it, the
#: named example the earlier set stays as, and what that earlier set was
SHIPS = {"blast": ("31", 'docs/balance.md, "The shipped Blast set"', "blast-balanced-before-default",
                   "the set issue 17's search shipped"),
         "skitour": ("27", 'docs/skitour/data-format.md, "Balanced nations"', "skitour-balanced-before-reroll",
                     "the set balanced for the default of before")}


def block(balance_file: str, run_dir: str, rows: pd.DataFrame, game: str = "blast") -> list[str]:
    items = [f"{r.entry} {r.field} {r.old} -> {r.new}" for r in rows.itertuples()]
    body: list[str] = []
    for item in items:                  # whole items on a line, as many as fit
        if body and len(body[-1]) + 2 + len(item) <= 96:
            body[-1] += "; " + item
        else:
            body.append(item)
    issue, where, example, earlier = SHIPS[game]
    return [f"{MARK} (issue {issue}): the values below were moved by the balance search",
            f"#   biathlon-sim balance {balance_file} --out {run_dir} --jobs 2",
            f"# ({where}) from {earlier}, which stays",
            f"# as the example {example}. Changed in this file:"] + [f"#   {line}" for line in body]


def _body_start(lines: list[str]) -> int:
    """The index of a TOML file's first line that is neither a comment nor blank."""
    return next((i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))


def _body(lines: list[str]) -> list[str]:
    """A TOML file's lines from its first that is neither a comment nor blank."""
    return lines[_body_start(lines):]


def _block_at(lines: list[str]) -> int | None:
    """Where a shipped file's BALANCED BY THE TOOL block begins (None: no search changed it)."""
    return next((i for i, line in enumerate(lines) if line.startswith(MARK)), None)


def main(run_dir: str, balance_file: str) -> None:
    for need in (Path(run_dir) / "changes.csv", Path(run_dir) / "data", Path(balance_file)):
        if not need.exists():
            print(f"ship_data: {need}: not found (RUN_DIR must be a finished balance search's --out)",
                  file=sys.stderr)
            sys.exit(2)
    from sim.balance import load_balance
    from sim.validation import DataError

    try:
        game = load_balance(balance_file).game
    except DataError as exc:
        print(f"ship_data: {exc.problems[0]}", file=sys.stderr)
        sys.exit(2)
    if game not in SHIPS:
        print(f"ship_data: {balance_file}: game: must be one of {', '.join(SHIPS)}, got {game!r}", file=sys.stderr)
        sys.exit(2)
    shipped_dir = DATA / game
    changes = pd.read_csv(Path(run_dir) / "changes.csv")
    for name, rows in changes.groupby("file", sort=True):
        shipped = (shipped_dir / name).read_text().splitlines()
        cut = _block_at(shipped)
        if cut is not None:             # the header ends where the last search's block begins
            head = shipped[:cut]
        else:                           # a file no search changed yet: its comments, then the block
            head = shipped[:_body_start(shipped)]
            while head and not head[-1].strip():
                head.pop()
            head.append("#")
        body = _body((Path(run_dir) / "data" / name).read_text().splitlines())
        (shipped_dir / name).write_text("\n".join(head + block(balance_file, run_dir, rows, game) + [""] + body) + "\n")
        print(f"{name}: {len(rows)} change(s)")
    changed = set(changes["file"])
    for path in sorted((Path(run_dir) / "data").rglob("*.toml")):
        name = path.relative_to(Path(run_dir) / "data").as_posix()
        target = shipped_dir / name
        if name in changed or not target.exists():
            continue
        shipped = target.read_text().splitlines()
        cut = _block_at(shipped)
        body = _body(path.read_text().splitlines())
        if cut is None or _body(shipped) == body:
            continue
        head = shipped[:cut]
        while head and head[-1].strip() in ("", "#"):
            head.pop()
        target.write_text("\n".join(head + [""] + body) + "\n")
        print(f"{name}: back to the base (an earlier search's change that this one does not make)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
