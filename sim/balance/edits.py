"""Edits of a game's data: reading and writing a value at a knob's path, knob positions and their
cost, the patches a position makes, and the helpers that rewrite a changed data file."""
from __future__ import annotations

import copy
import re
from typing import Any

from ..validation import Patch
from .spec import BalanceFile, Knob, Member

_SEGMENT = re.compile(r"^([^\[\]]+)(?:\[([^\]]+)\])?$")


class _Missing:
    """No value at a path, and why (get_path, _element)."""

    def __init__(self, why: str):
        self.why = why


# --- reading and writing values at a path -----------------------------------------------------------

def get_path(doc: dict, path: str) -> Any:
    """The value at a patch path (sim.validation.Patch syntax), or _Missing saying why."""
    node: Any = doc
    for part in path.split("."):
        m = _SEGMENT.match(part.strip())
        if not m or not isinstance(node, dict):
            return _Missing(f"cannot follow {part!r}")
        key, pick = m.group(1), m.group(2)
        if key not in node:
            return _Missing(f"{key!r} is not in the file")
        node = node[key]
        if pick is not None:
            if not isinstance(node, list):
                return _Missing(f"{key!r} is not an array of tables")
            found = [x for x in node if isinstance(x, dict) and str(x.get("name", "")).lower() == pick.lower()]
            if not found:
                return _Missing(f"no {key} named {pick!r}")
            node = found[0]
    return node


def _tokens(value) -> list[str] | None:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(s, str) for s in value):
        return [tok for s in value for tok in s.split()]
    return None


def _element(doc: dict, m: Member) -> Any:
    v = get_path(doc, m.path)
    if isinstance(v, _Missing):
        return v
    if m.index is not None:
        if not isinstance(v, list) or m.index >= len(v):
            return _Missing(f"has no element {m.index} (holds {v!r})")
        v = v[m.index]
        if m.key is not None:
            if not isinstance(v, dict) or m.key not in v:
                return _Missing(f"element {m.index} has no field {m.key!r}")
            v = v[m.key]
    if m.token is not None:
        toks = _tokens(v)
        if toks is None or m.token >= len(toks):
            return _Missing(f"has no token {m.token}")
        v = toks[m.token]
    return v


def _set_element(value: Any, m: Member, new: Any) -> Any:
    """`value` (the whole value at m.path) with m's element set to `new`."""
    if m.index is not None:
        value = list(value)
        inner = value[m.index][m.key] if m.key is not None else value[m.index]
        inner = _set_token(inner, m.token, new) if m.token is not None else new
        if m.key is not None:
            value[m.index] = {**value[m.index], m.key: inner}
        else:
            value[m.index] = inner
        return value
    if m.token is not None:
        return _set_token(value, m.token, new)
    return new


def _set_token(value: Any, token: int, new: str) -> Any:
    if isinstance(value, str):
        toks = value.split()
        toks[token] = str(new)
        return " ".join(toks)
    out, seen = [], 0
    for s in value:
        toks = s.split()
        if seen <= token < seen + len(toks):
            toks[token - seen] = str(new)
            s = " ".join(toks)
        seen += len(toks)
        out.append(s)
    return out


# --- knob positions and patches -----------------------------------------------------------------------

def _num(x: float, like: Any, step: float) -> Any:
    if isinstance(like, int) and float(step).is_integer() and float(x).is_integer():
        return int(round(x))
    return round(float(x), 9)


def knob_value(bf: BalanceFile, knob: Knob, member: Member, k: int) -> Any:
    """The value of `member` with `knob` moved k steps (choice knobs: to choices[k])."""
    base = _element(bf.base_docs[member.file], member)
    if knob.choices:
        return knob.choices[k]
    return _num(base + k * knob.step, base, knob.step)


def base_position(bf: BalanceFile, knob: Knob) -> int:
    if knob.choices:
        return knob.choices.index(_element(bf.base_docs[knob.members[0].file], knob.members[0]))
    return 0


def allowed(bf: BalanceFile, knob: Knob, k: int) -> bool:
    if knob.choices:
        return 0 <= k < len(knob.choices)
    for m in knob.members:
        v = _element(bf.base_docs[m.file], m) + k * knob.step
        if (knob.lo is not None and v < knob.lo - 1e-9) or (knob.hi is not None and v > knob.hi + 1e-9):
            return False
    return True


def change_cost(bf: BalanceFile, pos: dict[str, int]) -> float:
    cost = 0.0
    for knob in bf.knobs:
        k = pos.get(knob.name, base_position(bf, knob))
        b = base_position(bf, knob)
        cost += knob.cost * (float(k != b) if knob.choices else abs(k - b))
    return cost


def patches_for(bf: BalanceFile, pos: dict[str, int]) -> list[Patch]:
    """One patch per (file, path) that a moved knob touches, every element edit merged into it."""
    whole: dict[tuple[str, str], Any] = {}
    for knob in bf.knobs:
        k = pos.get(knob.name, base_position(bf, knob))
        if k == base_position(bf, knob):
            continue
        for m in knob.members:
            key = (m.file, m.path)
            if key not in whole:
                whole[key] = copy.deepcopy(get_path(bf.base_docs[m.file], m.path))
            whole[key] = _set_element(whole[key], m, knob_value(bf, knob, m, k))
    return [Patch(f, p, v, f"balance: {f}:{p}") for (f, p), v in sorted(whole.items())]


def _apply(doc: dict, p: Patch) -> str | None:
    from ..validation import apply_patch

    return apply_patch(doc, p)


def _entry_field(doc: dict, m: Member) -> tuple[str, str]:
    parts = m.path.split(".")
    entry, rest = "", parts
    for i, part in enumerate(parts):
        mm = _SEGMENT.match(part)
        if mm and mm.group(2):
            entry, rest = f"{mm.group(1)} {mm.group(2)}", parts[i + 1:]
    if not entry:
        entry = str(doc.get("name", "")) or parts[0]
    return entry, (".".join(rest) or parts[-1]) + m.element()


# --- the changed data folder's files ---------------------------------------------------------------

def _header(text: str) -> list[str]:
    """The comment lines at the top of a file (its note on where the values come from)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("#") or (not line.strip() and lines):
            lines.append(line)
        else:
            break
    while lines and not lines[-1].strip():
        lines.pop()
    return lines
