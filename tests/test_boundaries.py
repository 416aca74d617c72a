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
SHARED = ["sim/games.py", "sim/contract.py", "sim/runner.py", "sim/seeds.py", "sim/store.py", "sim/run.py", "sim/study.py",
          "sim/precision.py", *sorted(str(f.relative_to(ROOT)) for f in (ROOT / "sim" / "balance").glob("*.py")),
          "sim/adopt.py", "sim/bench.py", "sim/ladder.py", "sim/tune.py", "sim/results_folder.py", "sim/stats.py",
          "sim/source.py", "kernels/records.py", "kernels/rng.py", "kernels/cache.py", "kernels/jit.py"]


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


# --- layers that read top-down: kernels, the core (sim/), the reports, the command line ------------

#: the top layer: the commands write their pages through reports (docs/core.md, "Layers")
TOP_LAYER = ("sim", "cli")


def test_core_and_kernels_do_not_import_reports():
    """Statistics live in the core (sim/stats.py) and reports only consume them: nothing below the
    command line imports reports, not even inside a function."""
    for folder in ("sim", "kernels"):
        for f in (ROOT / folder).rglob("*.py"):
            rel = f.relative_to(ROOT)
            if rel.parts[:2] == TOP_LAYER:
                continue
            assert "reports" not in imported_roots(f), f"{rel} imports reports: hand it tables instead"


def module_graph() -> dict[str, set[str]]:
    """Every module of sim/, kernels/ and reports/ and the modules of the tree it imports, at the
    top or inside a function (`from pkg import mod` counts as an import of pkg.mod only)."""
    files = {}
    for folder in ("sim", "kernels", "reports"):
        for f in (ROOT / folder).rglob("*.py"):
            parts = f.relative_to(ROOT).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    graph = {}
    for name, f in files.items():
        deps = set()
        for m in imported_modules(f):
            if m in files:
                deps.add(m)
            elif m.rpartition(".")[0] in files and not any(x.startswith(m + ".") for x in files):
                deps.add(m.rpartition(".")[0])     # from module import name
        # `from pkg import mod` also names pkg; count it only where nothing more precise was named
        graph[name] = {d for d in deps if d != name and not any(e.startswith(d + ".") for e in deps)}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of the graph as a path (first module last again), or None."""
    state: dict[str, int] = {}           # 1: on the current path, 2: done
    path: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, ())):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (found := visit(w)):
                return found
        path.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v)):
            return found
    return None


def test_no_import_circle():
    """Modules import one way only: no two modules import each other, directly or round a circle."""
    graph = module_graph()
    assert "sim.stats" in graph["sim.ladder"], "the graph misses imports"
    cycle = find_cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None
