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
