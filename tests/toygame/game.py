"""The toy game's module (sim.contract.GameModule), in pure Python.

Rules. Racers move along a board of `spaces` spaces from 0; the finish is space `spaces`. Every
round each racer still racing takes a turn in seat order: one owing a penalty skips the turn and
pays it; otherwise it rolls the die and moves that many spaces, but stops on the range (space
`range_at`) the first time it reaches or passes it, and shoots once: a face of at least
`hit_from` hits, a miss costs a penalty (the next turn skipped). Reaching the finish finishes, in
order of arrival. After 60 rounds a race stops (stalled); the racers still out are placed by
distance left, then seat. Tokens are cosmetic: a balanced design rotates them through the seats.

The event log has rows (round, seat, kind, a, b): START (a token), ROLL (a face), MOVE (a from,
b to), SHOT (a face, b hit), SKIP, FINISH (a place).
"""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from kernels import records as REC
from sim.validation import DataError, Problem

SEAT_DTYPE = REC.seat_dtype([("token", "i2")], scenario="board")
VISIT_DTYPE = REC.visit_dtype([("token", "i2")])
LABELS = {"elim_cause": ["none"]}
PLAYER = "dice"
ROUND_CAP = 60
START, ROLL, MOVE, SHOT, SKIP, FINISH = range(6)
KINDS = ("START", "ROLL", "MOVE", "SHOT", "SKIP", "FINISH")


@dataclass(frozen=True)
class Bundle:
    data: "Data"
    data_hash: str

    @property
    def board_names(self) -> list[str]:
        return [b["name"] for b in self.data.boards]


@dataclass(frozen=True)
class Data:
    source: str
    boards: tuple
    faces: tuple[int, ...]
    hit_from: int
    tokens: tuple[str, ...]


@dataclass(frozen=True)
class Design:
    board: str
    racers: int = 2
    tokens: tuple[str, ...] | None = None
    players: tuple[str, ...] = (PLAYER,)


def default_data_dir() -> Path:
    return Path(__file__).parent / "data"


def load_bundle(data=None, patches=()) -> Bundle:
    folder = Path(data) if data is not None else default_data_dir()
    path = folder / "board.toml"
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise DataError([Problem(str(path), "", "", f"a readable TOML file ({exc})")]) from None
    for p in patches:
        *keys, last = p.path.split(".")
        node = raw
        for k in keys:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[last] = p.value
    problems = [Problem("board.toml", b.get("name", f"board {i}"), "range_at", f"a space from 1 to {b['spaces'] - 1}")
                for i, b in enumerate(raw["board"]) if not 0 < b["range_at"] < b["spaces"]]
    if problems:
        raise DataError(problems)
    d = Data(str(folder), tuple(raw["board"]), tuple(raw["die"]["faces"]), raw["die"]["hit_from"],
             tuple(raw["tokens"]["names"]))
    digest = hashlib.sha256(json.dumps(asdict(d) | {"source": ""}, sort_keys=True).encode()).hexdigest()[:16]
    return Bundle(d, digest)


def scenarios(bundle: Bundle) -> tuple[str, ...]:
    return tuple(bundle.board_names)


def summary(bundle: Bundle) -> str:
    boards = ", ".join(f"{b['name']} ({b['spaces']} spaces, range at {b['range_at']})" for b in bundle.data.boards)
    return f"Toy Race data: {bundle.data.source}\nboards: {boards}\ndie: {bundle.data.faces}"


def make_design(scenario: str, racers: int = 4, *, fixed=None, players=(PLAYER,), options=None) -> Design:
    fixed = dict(fixed or {})
    if set(fixed) - {"token"} or options:
        raise ValueError(f"Toy Race designs fix only token and take no options (got {sorted(fixed) or options})")
    if any(p not in (PLAYER, "balanced") for p in players):
        raise ValueError("Toy Race seats are played by the dice")
    tokens = fixed.get("token")
    return Design(scenario, int(racers), tuple(tokens) if tokens else None)


def check_design(bundle: Bundle, design: Design) -> None:
    if design.board not in bundle.board_names:
        raise ValueError(f"no board named {design.board!r}; known: {', '.join(bundle.board_names)}")
    if not 2 <= design.racers <= len(bundle.data.tokens):
        raise ValueError(f"Toy races have 2 to {len(bundle.data.tokens)} racers, got {design.racers}")
    if design.tokens is not None and (len(design.tokens) != design.racers
                                      or set(design.tokens) - set(bundle.data.tokens)):
        raise ValueError(f"give {design.racers} of the tokens {', '.join(bundle.data.tokens)}")


def describe(design: Design) -> str:
    return f"{design.board}, {design.racers} racers, tokens {','.join(design.tokens) if design.tokens else 'rotated'}"


def seats_per_race(design: Design) -> int:
    return design.racers


def block(bundle: Bundle, design: Design) -> int:
    """Every token in every seat once per block of len(tokens) races (1 with fixed tokens)."""
    return 1 if design.tokens is not None else len(bundle.data.tokens)


def design_dict(design: Design) -> dict:
    d = asdict(design)
    d["tokens"] = list(design.tokens) if design.tokens else None
    d["players"] = list(design.players)
    return d


def design_from_dict(d: dict, players: dict | None = None) -> Design:
    d = dict(d)
    d["tokens"] = tuple(d["tokens"]) if d.get("tokens") else None
    d["players"] = tuple(d.get("players") or (PLAYER,))
    return Design(**d)


def player_records(design: Design) -> dict:
    return {PLAYER: {"kind": "dice", "weights": []}}


def names(bundle: Bundle, design: Design) -> dict[str, list[str]]:
    return {"board": list(bundle.board_names), "token": list(bundle.data.tokens), "player": [PLAYER]}


def tokens(bundle: Bundle, design: Design, race: int) -> list[int]:
    """Token ids of race `race`'s seats: fixed, or token (race + seat) % tokens."""
    if design.tokens is not None:
        return [bundle.data.tokens.index(t) for t in design.tokens]
    k = len(bundle.data.tokens)
    return [(race + seat) % k for seat in range(design.racers)]


def play_race(bundle: Bundle, design: Design, seed: int, race: int, log_rows: int = 10_000):
    """(seats, visits, log) of one race; RuntimeError when the log needs more than `log_rows` rows."""
    board = bundle.data.boards[bundle.board_names.index(design.board)]
    spaces, range_at, faces = board["spaces"], board["range_at"], bundle.data.faces
    rng = np.random.default_rng([seed, race, 0x70E])
    n = design.racers
    tok = tokens(bundle, design, race)
    log: list[tuple[int, ...]] = []

    def event(*row):
        if len(log) >= log_rows:
            raise RuntimeError(f"the race needs more than {log_rows} rows of event log")
        log.append(row)

    pos, owed, shot, place, laps = [0] * n, [0] * n, [False] * n, [0] * n, [0] * n
    visits, leader, changes, after_range = [], -1, 0, -1
    for s in range(n):
        event(0, s, START, tok[s], 0)
    rnd, arrived = 0, 0
    while arrived < n and rnd < ROUND_CAP:
        rnd += 1
        for s in range(n):
            if place[s]:
                continue
            if owed[s]:
                owed[s] = 0
                event(rnd, s, SKIP, 0, 0)
                continue
            face = faces[rng.integers(len(faces))]
            event(rnd, s, ROLL, face, 0)
            to = min(pos[s] + face, spaces)
            if not shot[s] and pos[s] < range_at <= to:
                to = range_at
            event(rnd, s, MOVE, pos[s], to)
            pos[s] = to
            if to == range_at and not shot[s]:
                shot[s] = True
                g = faces[rng.integers(len(faces))]
                hit = int(g >= bundle.data.hit_from)
                event(rnd, s, SHOT, g, hit)
                owed[s] = 1 - hit
                laps[s] += 1 - hit
                visits.append((race, s, s, 0, 1, 1, hit, 1 - hit, 1 - hit, tok[s]))
                if after_range < 0:
                    after_range = max(range(n), key=lambda x: (pos[x], -x))
            if to == spaces:
                arrived += 1
                place[s] = arrived
                event(rnd, s, FINISH, arrived, 0)
            now = max(range(n), key=lambda x: (pos[x], x == leader, -x))
            if now != leader:
                changes += leader >= 0
                leader = now
    stalled = int(arrived < n)
    for s in sorted((s for s in range(n) if not place[s]), key=lambda x: (-pos[x], x)):
        arrived += 1
        place[s] = arrived
    seats = np.zeros(n, SEAT_DTYPE)
    seats["race"], seats["board"], seats["n_racers"] = race, bundle.board_names.index(design.board), n
    seats["seat"] = seats["team"] = np.arange(n)
    seats["place"] = place
    seats["won"] = np.array(place) == 1
    seats["finished"] = np.array(pos) == spaces
    seats["rounds"], seats["stalled"] = rnd, stalled
    seats["distance_left"] = spaces - np.array(pos)
    seats["penalty_laps"], seats["lead_changes"] = laps, changes
    seats["leader_after_range"] = np.arange(n) == after_range
    seats["token"] = tok
    return seats, np.array(sorted(visits), VISIT_DTYPE), np.array(log, np.int16).reshape(-1, 5)


def play_chunk(bundle: Bundle, design: Design, seed: int, start: int, stop: int):
    races = [play_race(bundle, design, seed, r) for r in range(start, stop)]
    if not races:
        return np.zeros(0, SEAT_DTYPE), np.zeros(0, VISIT_DTYPE)
    return np.concatenate([r[0] for r in races]), np.concatenate([r[1] for r in races])


def warm_designs(bundle: Bundle):
    return [("race loop (pure Python: nothing to compile)", make_design(bundle.board_names[0], 2))]


def render(log: np.ndarray) -> str:
    return "".join(f"r{r:>3} seat {s} {KINDS[k]:<6} {a} {b}\n" for r, s, k, a, b in log.tolist())


def replay(bundle: Bundle, design: Design, seed: int, race: int, states: bool = False) -> str:
    return f"Toy Race: {describe(design)}, seed {seed}, race {race}\n" + render(play_race(bundle, design, seed, race)[2])


def log_with_rows(bundle: Bundle, design: Design, seed: int, race: int, rows: int):
    return play_race(bundle, design, seed, race, log_rows=rows)[2]


def referee(bundle: Bundle, design: Design, seed: int, race: int) -> None:
    """Walks the log by the rules alone: every move is the roll (stopping on the range once),
    a miss skips the next turn, finishers are placed in order of arrival, the seats agree."""
    seats, _, log = play_race(bundle, design, seed, race)
    board = bundle.data.boards[bundle.board_names.index(design.board)]
    pos, owed, shot, roll, arrivals = {}, {}, set(), {}, []
    for r, s, kind, a, b in log.tolist():
        if kind == START:
            pos[s], owed[s] = 0, False
        elif kind == SKIP:
            assert owed[s], f"race {race} round {r}: seat {s} skips without a penalty"
            owed[s] = False
        elif kind == ROLL:
            assert not owed[s] and a in bundle.data.faces, f"race {race} round {r}: seat {s} rolls {a}"
            roll[s] = a
        elif kind == MOVE:
            want = min(pos[s] + roll.pop(s), board["spaces"])
            if s not in shot and pos[s] < board["range_at"] <= want:
                want = board["range_at"]
            assert (a, b) == (pos[s], want), f"race {race} round {r}: seat {s} moves {a}->{b}, not to {want}"
            pos[s] = b
        elif kind == SHOT:
            assert pos[s] == board["range_at"] and s not in shot and b == int(a >= bundle.data.hit_from)
            shot.add(s)
            owed[s] = not b
        elif kind == FINISH:
            assert pos[s] == board["spaces"] and a == len(arrivals) + 1
            arrivals.append(s)
    for place, s in enumerate(arrivals, start=1):
        assert seats["place"][s] == place and seats["finished"][s] == 1, f"race {race}: seat {s}'s place"


def golden_log(case: dict) -> str:
    """A golden case's text: replay() of a design on the toy data."""
    bundle = load_bundle()
    design = make_design(case["board"], case["racers"])
    return replay(bundle, design, case["seed"], case["race"])
