"""The house's one-way data flow: kernels know nothing of files, tables or the data layer."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_KERNELS = {"sim", "reports", "pandas", "joblib", "matplotlib", "tomllib", "pathlib", "random"}
FORBIDDEN_IN_REPORTS = {"kernels", "numba"}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


# kernels/cache.py fingerprints the kernel sources to name the numba cache folders
ALLOWED = {"kernels/cache.py": {"pathlib"}}


def check(folder: str, forbidden: set[str]) -> None:
    files = list((ROOT / folder).rglob("*.py"))
    assert files, folder
    for f in files:
        bad = imported_roots(f) & (forbidden - ALLOWED.get(str(f.relative_to(ROOT)), set()))
        assert not bad, f"{f.relative_to(ROOT)} imports {sorted(bad)}"


def test_kernels_import_no_data_layer():
    check("kernels", FORBIDDEN_IN_KERNELS)


def test_reports_do_not_import_kernels():
    check("reports", FORBIDDEN_IN_REPORTS)


# the shared core: no game package may be imported from these, only asked for through sim.games
SHARED = ["sim/games.py", "sim/contract.py", "sim/runner.py", "sim/store.py", "sim/run.py", "sim/study.py",
          "sim/precision.py", "sim/balance.py", "sim/adopt.py", "sim/bench.py", "sim/ladder.py", "sim/tune.py",
          "sim/results_folder.py", "kernels/records.py", "kernels/rng.py", "kernels/cache.py", "kernels/jit.py"]


def game_packages() -> tuple[str, ...]:
    """The package of every registered game's module (sim.blast.game -> blast), and so of its kernels."""
    from sim import games

    return tuple(games.game(g).module.split(".")[-2] for g in games.names())


GAME_PACKAGES = game_packages()


def imported_modules(path: Path) -> set[str]:
    """Every module `path` imports, absolute, relative ones resolved against its package."""
    package = list(path.relative_to(ROOT).parent.parts)
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = ".".join([*base, *(node.module.split(".") if node.module else [])])
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
    return out


def test_shared_core_imports_no_game():
    for rel in SHARED:
        mods = imported_modules(ROOT / rel)
        bad = sorted(m for m in mods if any(part in GAME_PACKAGES for part in m.split(".")))
        assert not bad, f"{rel} imports game code: {bad}"
