"""Every command, given bad arguments of each kind, exits with status 2 and one clear line, never
a traceback, and plays no race first (out-of-range numbers, wrong types, missing and unwritable
paths, unknown names)."""
import pytest

from sim.cli import main


@pytest.fixture(scope="module")
def paths(tmp_path_factory):
    d = tmp_path_factory.mktemp("paths")
    afile = d / "afile"
    afile.write_text("not a folder")
    return {"FILE": str(afile), "UNDER_FILE": str(afile / "x"), "DIR": str(d), "MISSING": str(d / "missing"),
            "UNDER_FILE_TOML": str(afile / "x.toml")}


SEED_BIG = str(2**64)
CASES = [
    # numbers out of range or of the wrong type
    ("run --trail Kurz --races 0", "--races"),
    ("run --trail Kurz --races abc", "--races"),
    ("run --trail Kurz --races 1000000000000", "--races"),
    (f"run --trail Kurz --seed {SEED_BIG} --races 10", "--seed"),
    ("run --trail Kurz --seed -1 --races 10", "--seed"),
    ("run --trail Kurz --races 10 --jobs 0", "--jobs"),
    ("run --trail Kurz --races 10 --chunk 0", "--chunk"),
    ("run --trail Kurz --racers 9 --races 10", "racers"),
    ("bench --races 0", "--races"),
    ("bench --racers x", "racers"),
    ("bench --scaling 0", "--scaling"),
    ("bench --races 10 --scaling 1 --scaling-kinds run,walk", "--scaling-kinds: 'walk'"),
    ("--game mania bench --races 10 --scaling 1 --scaling-kinds tune", "no players to tune"),
    ("replay --trail Kurz --biathletes Owens,Wei --race -1", "--race"),
    (f"replay --trail Kurz --biathletes Owens,Wei --seed {SEED_BIG}", "--seed"),
    ("study experiments/smoke.toml --out DIR/s --jobs 0", "--jobs"),
    ("ladder --trail Kurz --races 0", "--races"),
    ("ladder --trail Kurz --races 48 --jobs 0", "--jobs"),
    ("tune --start balanced --trails Kurz --generations 0 --out DIR/t.toml", "generations"),
    ("compare --set game.toml:gear.red.bullets=5 --races 0", "--races"),
    ("worldcup --cups 0", "--cups"),
    ("worldcup --cups 10 --racers 9", "racers"),
    ("--game mania run --track red --racers 9 --races 10", "racers"),
    # unknown names
    ("run --trail Nowhere --races 10", "Nowhere"),
    ("run --trail Kurz --players nosuch --races 10", "nosuch"),
    ("run --trail Kurz --players MISSING.toml --races 10", "missing.toml"),
    ("run --trail Kurz --biathletes Owens,Owens --races 10", "twice"),
    ("run --trail Kurz --biathletes Owens,Nobody --races 10", "Nobody"),
    ("run --trail Kurz --biathletes Owens,Wei --colours red,red --races 10", "colour"),
    ("run --trail Kurz --biathletes Owens,Wei --colours pink,red --races 10", "pink"),
    ("replay --trail Kurz --biathletes Owens,Owens", "twice"),
    ("bench --trails Nowhere", "Nowhere"),
    ("bench --player nosuch", "nosuch"),
    ("ladder --trail Nowhere --races 48", "Nowhere"),
    ("ladder --vs nosuch,balanced --trail Kurz --races 48", "nosuch"),
    ("tune --start nosuch --trails Kurz --generations 1 --population 4 --out DIR/t.toml", "nosuch"),
    ("compare --set nonsense --races 48", "nonsense"),
    ("worldcup --cups 10 --draft Nobody,Owens", "Nobody"),
    ("study experiments/smoke.toml --cells nope --out DIR/s", "nope"),
    ("--game mania run --track red --races 10 --colours pink", "pink"),
    ("--game mania exact --track nope", "nope"),
    ("--game mania ladder --trail Kurz", "Blast"),
    # missing and unwritable paths
    ("run --trail Kurz --races 10 --data MISSING", "MISSING"),
    ("run --trail Kurz --races 10 --out FILE", "FILE"),
    ("run --trail Kurz --races 10 --out UNDER_FILE", "FILE"),
    ("study MISSING.toml --out DIR/s", "MISSING"),
    ("study experiments/smoke.toml --out FILE", "FILE"),
    ("study experiments/smoke.toml --out UNDER_FILE", "FILE"),
    ("report MISSING --out DIR/r", "MISSING"),
    ("report FILE --out DIR/r", "FILE"),
    ("replay --run MISSING --race 1", "MISSING"),
    ("ladder --trail Kurz --races 48 --out DIR", "folder"),
    ("ladder --trail Kurz --races 48 --out UNDER_FILE", "FILE"),
    ("tune --start balanced --trails Kurz --generations 1 --population 4 --out UNDER_FILE_TOML", "FILE"),
    ("compare --set game.toml:gear.red.bullets=5 --races 48 --out FILE", "FILE"),
    ("compare --changed MISSING --races 48", "MISSING"),
    ("worldcup --cups 10 --out FILE", "FILE"),
    ("validate MISSING", "MISSING"),
    ("--game mania exact --out UNDER_FILE", "FILE"),
]


@pytest.mark.parametrize("line,mentions", CASES, ids=[c[0] for c in CASES])
def test_bad_arguments_exit_2_with_one_line(line, mentions, paths, capsys):
    for key in sorted(paths, key=len, reverse=True):
        line = line.replace(key, paths[key])
        mentions = mentions.replace(key, paths[key])
    try:
        code = main(line.split())
    except SystemExit as exc:          # argparse: a usage error
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (line, out, err)
    assert "Traceback" not in out + err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert 1 <= len(lines) <= 3, (line, err)                    # one line (or a problem list of a few)
    assert mentions.lower() in err.lower(), (line, err)
    assert "races played" not in out                              # refused before any race
