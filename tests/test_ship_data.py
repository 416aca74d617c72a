"""tools/ship_data.py: a balance result's changed files are written over a game's shipped set, each
keeping the shipped header, gaining a block that names the command and every change, and taking
the result's body; files the search did not change stay as they are; a second ship replaces the
first block; a wrong run folder is one line and exit status 2."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from sim import games

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("ship_data", ROOT / "tools" / "ship_data.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shipped_and_run(tmp_path, monkeypatch):
    """The tool, a copy of Ski Tour's shipped set as its DATA, and a run folder whose data is that set."""
    tool = _tool()
    shipped = tmp_path / "data"
    shutil.copytree(games.game("skitour").load().default_data_dir(), shipped / "skitour",
                    ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(tool, "DATA", shipped)
    run = tmp_path / "run"
    shutil.copytree(shipped / "skitour", run / "data")
    return tool, shipped, run


def test_a_ski_tour_result_is_shipped_with_its_provenance(tmp_path, monkeypatch):
    tool, shipped, run = _shipped_and_run(tmp_path, monkeypatch)
    f = run / "data" / "nations" / "usa.toml"
    f.write_text(f.read_text().replace("sprint   = 3", "sprint   = 2"))
    (run / "changes.csv").write_text("file,entry,field,old,new,knob,steps,cost\n"
                                     "nations/usa.toml,USA,columns.sprint,3,2,usa-sprint,-1,1.0\n")
    before = {p: p.read_text() for p in (shipped / "skitour").rglob("*.toml")}
    tool.main(str(run), str(ROOT / "experiments" / "balance_skitour_ship.toml"))
    usa = shipped / "skitour" / "nations" / "usa.toml"
    text = usa.read_text()
    assert "# BALANCED BY THE TOOL (issue 27)" in text
    assert "biathlon-sim balance" in text and "balance_skitour_ship.toml" in text
    assert "skitour-balanced-before-reroll" in text and "USA columns.sprint 3 -> 2" in text
    assert "sprint   = 2" in text and "sprint   = 3" not in text
    assert text.startswith(before[usa].splitlines()[0])
    assert all(p.read_text() == t for p, t in before.items() if p != usa)
    tool.main(str(run), str(ROOT / "experiments" / "balance_skitour_ship.toml"))    # again: one block
    assert usa.read_text().count("# BALANCED BY THE TOOL") == 1


def test_a_folder_that_is_no_balance_result_is_one_line(tmp_path, capsys):
    tool = _tool()
    with pytest.raises(SystemExit) as info:
        tool.main(str(tmp_path), str(ROOT / "experiments" / "balance_skitour_ship.toml"))
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "changes.csv: not found" in err[0]


def test_a_file_an_earlier_search_changed_and_this_one_leaves_at_the_base_goes_back(tmp_path, monkeypatch):
    """A search that no longer makes an earlier ship's change: the shipped file takes the result's
    body and loses the earlier block, so the shipped set equals the search's (2026-11-28: Norway's
    token kept the earlier search's plus_one and its header while the new search had left it)."""
    tool, shipped, run = _shipped_and_run(tmp_path, monkeypatch)
    usa = shipped / "skitour" / "nations" / "usa.toml"
    base = usa.read_text()
    earlier = base.replace("sprint   = 3", "sprint   = 2")
    head, body = earlier.split('\nname = "USA"', 1)
    usa.write_text(head + "\n#\n" + tool.MARK + " (issue 31): an earlier search\n#   USA columns.sprint 3 -> 2\n"
                   + '\nname = "USA"' + body)
    (run / "changes.csv").write_text("file,entry,field,old,new,knob,steps,cost\n")
    tool.main(str(run), str(ROOT / "experiments" / "balance_skitour_ship.toml"))
    text = usa.read_text()
    assert tool.MARK not in text and "sprint   = 3" in text and "sprint   = 2" not in text
    assert text.split('name = "USA"', 1)[1] == base.split('name = "USA"', 1)[1]
