"""A toy fourth game: a few spaces, one range, one die (tests/toygame/game.py says the rules).

It lives entirely in tests/ and goes through the same registry, runner, store, study and report as
the shipped games: test_toygame.py registers INFO for the length of its tests and runs the whole
conformance suite (tests/conformance.py) over it. Nothing outside this folder names it."""
from sim.games import GameInfo

INFO = GameInfo("toy", "Toy Race", "board", (2, 4), ("token",), "toygame.game", default_player="dice",
                scenarios=("short", "long"))
