"""A short, readable summary of a Biathlon Blast data set (what `biathlon-sim validate` prints)."""
from __future__ import annotations

from .compile import CompiledBundle


def summary(bundle: CompiledBundle) -> str:
    d = bundle.data
    lines = [f"Biathlon Blast data: {d.source}", f"data hash: {bundle.data_hash}", ""]
    lines.append(f"Biathletes ({len(d.biathletes)}):")
    for b in d.biathletes:
        cards = ", ".join(c.name for c in b.cards)
        lines.append(f"  #{b.bib}  {b.name:<10} {b.nation:<14} unique cards: {cards}")
    n_mot = sum(c.copies for c in d.motivation)
    lines.append("")
    lines.append(f"Cards: {len(d.common)} common ({', '.join(c.name for c in d.common)}), "
                 f"{sum(len(b.cards) for b in d.biathletes)} unique, "
                 f"{n_mot} Motivation ({len(d.motivation)} distinct)")
    g = d.gear
    gear = "; ".join(
        f"{c} {g.bullets[c]} bullets" + "".join(f", {n} {w} wax" for w, n in g.wax[c].items() if n)
        for c in g.ski_colours)
    lines.append(f"Gear (ski colour order): {gear}")
    lines.append("")
    lines.append("Trails:")
    for ti, layout in enumerate(bundle.layouts):
        t = d.trails[ti]
        venue = d.venue_of(t)
        starts = ", ".join(str(p) for p in layout.start_line_positions)
        ranges = ", ".join(str(p) for p in layout.range_positions)
        lines.append(f"  {venue.name} - {t.name}: {len(layout)} spaces "
                     f"(grid {len(layout.grid)} spaces, {len(layout.grid_slots())} slots; "
                     f"start line entering {starts}; range at {ranges}; finish entering "
                     f"{layout.finish_positions[0]})")
        terr = "".join(s.terrain if not s.is_range else "R" for s in layout.spaces)
        lines.append(f"    terrain  {terr}")
        single = sum(1 for s in layout.spaces if s.lanes == 1 and not s.is_range)
        lines.append(f"    {single} single-lane spaces; route: {' > '.join(t.route)}")
        zones = [f"{s.index} {s.coach[0]} x{s.coach[1]} ({layout.label(s.index)})"
                 for s in layout.spaces if s.coach]
        lines.append(f"    coach zones: {', '.join(zones) if zones else 'none'}")
    return "\n".join(lines)
