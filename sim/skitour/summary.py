"""A short, readable summary of a Ski Tour: Biathlon data set (what `biathlon-sim validate` will
print once the game is registered), and the names of its courses (the game's scenarios)."""
from __future__ import annotations

from .compile import SkiTourBundle


def scenarios(bundle: SkiTourBundle) -> tuple[str, ...]:
    return tuple(bundle.course_names)


def summary(bundle: SkiTourBundle) -> str:
    d, t = bundle.data, bundle.tables
    lines = [f"Ski Tour: Biathlon data: {d.source}", f"data hash: {bundle.data_hash}", ""]
    dice = ", ".join(f"{x.name} {x.hits}/{len(x.faces)} hits" for x in d.dice)
    lines.append(f"Shooting dice: {dice}")
    lines.append(f"Nations ({len(d.nations)}):")
    for n in sorted(d.nations, key=lambda n: (n.board, n.side != "basic")):
        tops = "/".join(str(col[0].value) for col in n.stamina)
        payments = sum(len(col) - 1 for col in n.stamina)
        full = "".join(str(f) for f in n.full_at)
        extras = []
        if "flip" in n.boxes:
            extras.append("flip boxes above " + ", ".join(str(i + 1) for i, b in enumerate(n.boxes) if b == "flip"))
        if n.printed_wax is not None:
            extras.append(f"printed token {n.printed_wax.text}")
        lines.append(f"  board {n.board} {n.side:<8} {n.name:<15} stamina tops {tops}, {payments} payments "
                     f"to exhaustion; full at {full}; sprint {n.sprint}"
                     + ("; " + "; ".join(extras) if extras else ""))
    lines.append("")
    lines.append(f"Tiles: {len(d.tiles)} double-sided")
    lines.append("Courses:")
    for ci, c in enumerate(d.courses):
        race = "long" if t.n_ranges[ci] >= d.rules.long_race_ranges else "short"
        lines.append(f"  {c.name}: {len(c.sides)} sides, {t.n_rows[ci]} rows, {t.n_ranges[ci]} ranges "
                     f"({race} race): {' '.join(c.sides)}")
    return "\n".join(lines)
