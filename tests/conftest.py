import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from minidata import write_minidata  # noqa: E402


@pytest.fixture
def minidir(tmp_path):
    """A fresh copy of the small test data set, ready to be broken."""
    return write_minidata(tmp_path / "data")
