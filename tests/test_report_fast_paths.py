"""The report's fast paths over categorical columns (reports.metrics.group_key, reports.base.relabelled,
reports.interactive.in_order, the results reader's cell and variant columns) give exactly what the
per-row versions they replaced give: the same tables, the same groups, the same labels. A study's
rows run to millions, so these work per category instead of writing every row's value as text."""
import numpy as np
import pandas as pd
import pytest

from reports import interactive as I
from reports import metrics as M
from reports.base import relabelled, with_clusters

# categories deliberately out of sorted order, one unused, and a missing value
NAMES = ["Wei", "Olsson", "Fischer", "Abe", "unused"]


@pytest.fixture
def rows():
    rng = np.random.default_rng(7)
    n = 3000
    return pd.DataFrame({
        "cell": pd.Categorical.from_codes(rng.integers(0, 3, n), ["c2", "c10", "c1"]),
        "biathlete_name": pd.Categorical.from_codes(rng.integers(0, 4, n), NAMES),
        "n_racers": rng.integers(2, 5, n), "seat": rng.integers(0, 4, n), "race": np.arange(n) // 3,
        "won": rng.integers(0, 2, n)})


@pytest.mark.parametrize("clustered", [False, True])
def test_win_rates_on_a_categorical_equal_those_on_its_text(rows, clustered):
    if clustered:
        rows = with_clusters(rows, {"c2": 4, "c10": 2})
    as_text = rows.assign(biathlete_name=rows.biathlete_name.astype(str).to_numpy(object),
                          cell=rows.cell.astype(str).to_numpy(object))
    for by in (["biathlete_name"], ["n_racers", "biathlete_name"], ["cell", "biathlete_name", "seat"]):
        pd.testing.assert_frame_equal(M.win_rates(rows, by), M.win_rates(as_text, by), check_exact=True)
    # sorted as the text sorts (Abe first), not in the categories' order (Wei first)
    assert list(M.win_rates(rows, ["biathlete_name"]).biathlete_name) == ["Abe", "Fischer", "Olsson", "Wei"]


def test_in_order_groups_by_text_in_order_of_appearance(rows):
    rows = rows.copy()
    rows.loc[5, "biathlete_name"] = np.nan           # a missing name is left out, as its text is missing
    for column in ("biathlete_name", "n_racers"):
        I.new_page()
        old = {str(k): g for k, g in rows.groupby(rows[column].astype(str), sort=False)}
        new = I.in_order(rows, column)
        assert [k for k, _ in new] == list(old)
        for k, g in new:
            pd.testing.assert_frame_equal(g, old[k])
    assert 5 not in pd.concat([g for _, g in I.in_order(rows, "biathlete_name")]).index


def test_relabelled_names_each_pair_once_and_keeps_the_order(rows):
    formats = ["sprint", "mass_start"]
    code = rows.seat.to_numpy() % 3                  # 2 is no known format: its rows have no name in the order
    order = [f"{b} {f.replace('_', ' ')}" for b in ["Olsson", "Abe", "Wei", "Fischer"] for f in formats]

    def name(who, f):
        return None if who is None else f"{who} {(formats[f] if f < len(formats) else str(f)).replace('_', ' ')}"

    got, categories = relabelled(rows.biathlete_name, code, name, order)
    text = rows.biathlete_name.astype(str) + " " + pd.Series(code).map(
        lambda f: (formats[f] if f < len(formats) else str(f)).replace("_", " "))
    want = [o for o in order if o in set(text)]
    assert categories == want
    expected = pd.Series(text.where(text.isin(want)))
    assert list(pd.Series(got).astype(object).where(pd.Series(got).notna(), None)) == \
        list(expected.astype(object).where(expected.notna(), None))


def test_the_readers_cell_and_variant_columns_are_sorted_categories():
    from sim.results_folder import _concat

    a = pd.DataFrame({"x": [1, 2]})
    b = pd.DataFrame({"x": [3]})
    empty = pd.DataFrame({"x": pd.Series([], dtype=np.int64)})
    df = _concat([(a, "c2", "base"), (empty, "c0", "v"), (b, "c1", "black-wax+1")], ["x"])
    plain = pd.concat([a.assign(cell="c2", variant="base"), b.assign(cell="c1", variant="black-wax+1")],
                      ignore_index=True)
    for key in ("cell", "variant"):
        pd.testing.assert_series_equal(df[key], plain[key].astype("category"))
    assert list(df.columns) == ["x", "cell", "variant"]
