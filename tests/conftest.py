import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from minidata import write_minidata  # noqa: E402


@pytest.fixture
def minidir(tmp_path):
    """A fresh copy of the small test data set, ready to be broken."""
    return write_minidata(tmp_path / "data")


# --- Which tests paid for a kernel compile ---------------------------------------------------
# `make test` compiles every kernel before the suite, so a test that compiles one again (a new
# type signature, a cache miss, an uncached helper) pays tens of seconds that the compile step was
# meant to take. Each compile of 2 s or more during a test is recorded on its report and listed at
# the end of the run (under xdist too: the reports carry it to the controller).
_COMPILE_MIN_S = float(os.environ.get("BIATHLON_COMPILE_MIN_S", 2.0))
_compiles: list[tuple[str, float]] = []


def _listen_for_compiles():
    import time

    from numba.core import event as ev

    starts = {}

    class Listener(ev.Listener):
        def on_start(self, e):
            starts[id(e.data["dispatcher"]), str(e.data["args"])] = time.perf_counter()

        def on_end(self, e):
            t0 = starts.pop((id(e.data["dispatcher"]), str(e.data["args"])), None)
            if t0 is not None and len(starts) == 0:       # outermost compiles only
                f = e.data["dispatcher"].py_func
                _compiles.append((f"{f.__module__}.{f.__qualname__}", time.perf_counter() - t0))

    ev.register("numba:compile", Listener())


_listen_for_compiles()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    del _compiles[:]
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    paid = [(name, round(s, 1)) for name, s in _compiles if s >= _COMPILE_MIN_S]
    del _compiles[:]
    if paid:
        outcome.get_result().user_properties.append(("kernel_compiles", paid))


def pytest_terminal_summary(terminalreporter):
    rows = []
    for reports in terminalreporter.stats.values():
        for r in reports:
            for key, paid in getattr(r, "user_properties", ()):
                if key == "kernel_compiles":
                    rows += [(s, f"{r.nodeid} ({r.when}): {name}") for name, s in paid]
    if rows:
        terminalreporter.section("kernels compiled during the tests")
        terminalreporter.write_line(f"{sum(s for s, _ in rows):.0f} s in {len(rows)} compiles of "
                                    f"{_COMPILE_MIN_S:.0f} s or more:")
        for s, what in sorted(rows, reverse=True)[:25]:
            terminalreporter.write_line(f"{s:7.1f} s  {what}")
