"""The toy game registers and passes the whole conformance suite, as a fourth game would."""
from pathlib import Path

import pytest

from conformance import Conformance
from sim import games
from toygame import INFO


class TestToyGame(Conformance):
    @pytest.fixture(scope="class")
    @classmethod
    def game_name(cls):
        games.register(INFO)
        yield INFO.name
        games.unregister(INFO.name)

    @pytest.fixture(scope="class")
    @classmethod
    def golden_dir(cls, game_name) -> Path:
        return Path(__file__).parent / "golden"
