"""Write a balance file that extends others as one file with no `extends`: every key, knob and
target merged as load_balance reads them (docs/balance.md, "Extending a file"), so that one file
reproduces a search.

    python tools/flatten_balance.py BALANCE_FILE OUT_FILE [--header TEXT_FILE]

`data` is written relative to OUT_FILE. The search's log keys depend on what a file means, not on
how it is written, so the flattened file resumes the same output folder. TEXT_FILE's lines (comments)
head the written file.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import tomlkit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sim.balance import load_balance  # noqa: E402
from sim.balance.file import _read_extended  # noqa: E402
from sim.validation import Problems  # noqa: E402


def flatten(src: Path, out: Path, header: str = "") -> None:
    problems = Problems(src.parent)
    doc, _ = _read_extended(src, problems, ())
    problems.raise_if_any()
    if doc.get("data"):
        doc["data"] = os.path.relpath(doc["data"], out.parent.resolve())
    flat = tomlkit.document()
    for line in header.splitlines():
        flat.add(tomlkit.comment(line.lstrip("# ").rstrip()))
    for key, value in doc.items():           # plain keys first, then the tables and arrays of tables
        if not isinstance(value, (dict, list)) or (isinstance(value, list) and not any(isinstance(v, dict) for v in value)):
            flat[key] = value
    for key in ("players", "front", "designs", "start"):
        if key in doc:
            flat[key] = doc[key]
    for key in ("target", "knob"):
        if key in doc:
            aot = tomlkit.aot()
            for entry in doc[key]:
                aot.append(tomlkit.item(entry))
            flat[key] = aot
    out.write_text(tomlkit.dumps(flat), encoding="utf-8")
    a, b = load_balance(src), load_balance(out)
    same = (a.designs == b.designs and a.targets == b.targets and a.knobs == b.knobs and a.start == b.start
            and a.seed == b.seed and a.races == b.races and a.budget_races == b.budget_races)
    if not same:
        raise SystemExit(f"{out}: does not read as {src}")


if __name__ == "__main__":
    args = sys.argv[1:]
    head = ""
    if "--header" in args:
        i = args.index("--header")
        head = Path(args[i + 1]).read_text()
        del args[i:i + 2]
    if len(args) != 2:
        raise SystemExit(__doc__)
    flatten(Path(args[0]), Path(args[1]), head)
