"""Copy a balance search's changed biathlete files into the shipped Blast set (sim/data/blast/).

    python tools/ship_data.py RUN_DIR BALANCE_FILE

Each changed file keeps the shipped file's header up to its "# BALANCED BY THE TOOL" block, gets a
new block naming the command and every change (entry, field, old -> new, from RUN_DIR/changes.csv),
and the body of RUN_DIR/data's file. Files the search did not change are left as they are.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

SHIPPED = Path(__file__).resolve().parents[1] / "sim" / "data" / "blast"
MARK = "# BALANCED BY THE TOOL"


def block(balance_file: str, run_dir: str, rows: pd.DataFrame) -> list[str]:
    items = [f"{r.entry} {r.field} {r.old} -> {r.new}" for r in rows.itertuples()]
    body: list[str] = []
    for item in items:                  # whole items on a line, as many as fit
        if body and len(body[-1]) + 2 + len(item) <= 96:
            body[-1] += "; " + item
        else:
            body.append(item)
    return [f"{MARK} (issue 17): the values below were moved by the balance search",
            f"#   biathlon-sim balance {balance_file} --out {run_dir} --jobs 2",
            "# (docs/balance.md, \"The shipped Blast set\") from the earlier illustrative set, which stays",
            "# as the example blast-unbalanced. Changed in this file:"] + [f"#   {line}" for line in body]


def _body_start(lines: list[str]) -> int:
    """The index of a TOML file's first line that is neither a comment nor blank."""
    return next((i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))


def main(run_dir: str, balance_file: str) -> None:
    for need in (Path(run_dir) / "changes.csv", Path(run_dir) / "data", Path(balance_file)):
        if not need.exists():
            print(f"ship_data: {need}: not found (RUN_DIR must be a finished balance search's --out)",
                  file=sys.stderr)
            sys.exit(2)
    changes = pd.read_csv(Path(run_dir) / "changes.csv")
    for name, rows in changes.groupby("file", sort=True):
        shipped = (SHIPPED / name).read_text().splitlines()
        cut = [i for i, line in enumerate(shipped) if line.startswith(MARK)]
        if cut:                         # the header ends where the last search's block begins
            head = shipped[:cut[0]]
        else:                           # a file no search changed yet: its comments, then the block
            head = shipped[:_body_start(shipped)]
            while head and not head[-1].strip():
                head.pop()
            head.append("#")
        new = (Path(run_dir) / "data" / name).read_text().splitlines()
        body = new[_body_start(new):]
        (SHIPPED / name).write_text("\n".join(head + block(balance_file, run_dir, rows) + [""] + body) + "\n")
        print(f"{name}: {len(rows)} change(s)")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(*sys.argv[1:])
