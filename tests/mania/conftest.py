import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from maniadata import write_data  # noqa: E402
from sim.mania import load_bundle  # noqa: E402


@pytest.fixture(scope="session")
def shipped():
    """The shipped data set, compiled."""
    return load_bundle()


@pytest.fixture(scope="session")
def testdata(tmp_path_factory):
    """The test tracks with the default switches, compiled."""
    return load_bundle(write_data(tmp_path_factory.mktemp("mania")))


@pytest.fixture
def make_bundle(tmp_path):
    """make_bundle(**switches) -> a compiled bundle of the test tracks with those switches."""
    def make(**switches):
        return load_bundle(write_data(tmp_path / "data", **switches))
    return make
