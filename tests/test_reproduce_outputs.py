"""Where every chapter's `reproduce` writes, which parts run a named data set, and what meta.json says after a partial
run. The grid runner is replaced by a stand-in (no cell is computed, no data is read): these are the reproductions'
argument handling and output folder, on any machine, in seconds."""
import importlib
import json
from pathlib import Path

import pandas as pd
import pytest

from mlxplain.experiments import expand_grid, read_meta

# a part of each chapter, a data set of that part, whose run_grid call the stand-in stops
FIRST_PART = {"fals": ("table3", "emotions"), "extended_plt": ("sweep", "emotions"), "prakel": ("main", "emotions"),
              "alternatives": ("subset", "hepatitis")}


class Stop(Exception):
    "Raised by the stand-in run_grid: the call got as far as its first grid."


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    "A folder that looks like a checkout (settings.ini, nbs/), as the working directory: results_dir resolves into it."
    (tmp_path / "settings.ini").write_text("[DEFAULT]\n")
    (tmp_path / "nbs").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("chapter", sorted(FIRST_PART))
def test_reproduce_writes_to_the_scratch_folder_unless_told(chapter, checkout, monkeypatch):
    "Without out_dir a reproduction's cache and tables go to nbs/results/_scratch/<chapter>, never the committed folder."
    mod = importlib.import_module(f"mlxplain.repro.{chapter}")
    caches = []
    def stand_in(func, grid, cache=None, **kw):
        caches.append(Path(cache))
        raise Stop
    monkeypatch.setattr(mod, "run_grid", stand_in)
    part, dataset = FIRST_PART[chapter]
    with pytest.raises(Stop): mod.reproduce(parts=[part], datasets=[dataset], seeds=[0])
    results = checkout / "nbs" / "results"
    assert caches and caches[0].is_relative_to(results / "_scratch" / chapter), caches
    assert not (results / chapter).exists()


def fake_rows(func, grid, cache=None, run=None, **kw):
    "run_grid's result for `grid` without computing anything: the cells' parameters and one made-up metric."
    df = pd.DataFrame([{**g, "HL": 0.1, "_version": "v1", "_run": run} for g in expand_grid(grid)])
    df.attrs["version"] = "v1"
    return df


def test_a_partial_fals_run_leaves_meta_naming_every_row(tmp_path, monkeypatch):
    "Table 3 rerun for one set and seed keeps the other sets' rows, and meta.json names all of them (and their seeds)."
    from mlxplain.repro import fals
    monkeypatch.setattr(fals, "run_grid", fake_rows)
    fals.reproduce(tmp_path, parts=["table3"], datasets=["emotions", "yeast"], seeds=[0, 1])
    fals.reproduce(tmp_path, parts=["table3"], datasets=["emotions"], seeds=[2])
    table = pd.read_csv(tmp_path / "table3.csv")
    assert set(table.dataset) == {"emotions", "yeast"} and set(table.seed) == {0, 1, 2}
    meta = read_meta(tmp_path)
    assert set(meta["datasets"]) == {"emotions", "yeast"} and meta["seeds"] == [2, 0, 1]
    assert meta["coverage"]["table3"]["rows"] == len(table)


def test_a_held_out_set_runs_in_the_confirm_part_only(tmp_path, monkeypatch):
    "prakel --quick --datasets flags runs confirm on flags and nothing else; without confirm among the parts it is refused."
    from mlxplain.repro import prakel
    grids = []
    monkeypatch.setattr(prakel, "run_grid", lambda func, grid, **kw: grids.append(("run", grid)) or fake_rows(func, grid, **kw))
    monkeypatch.setattr(prakel, "confirm_part", lambda chapter, func, grid, *a, **kw: grids.append(("confirm", grid)))
    prakel.reproduce(tmp_path, quick=True, datasets=["flags"])
    assert [k for k, _ in grids] == ["confirm"] and {g["dataset"] for g in grids[0][1]} == {"flags"}
    with pytest.raises(ValueError, match="flags is a held-out set: only the part confirm runs them"):
        prakel.reproduce(tmp_path, parts=["main"], datasets=["flags"])
    with pytest.raises(ValueError, match="the claims were formed on emotions"):   # confirm: sets they were not formed on
        prakel.reproduce(tmp_path, parts=["confirm"], datasets=["emotions"])


@pytest.mark.parametrize("chapter", ["fals", "extended_plt"])
def test_held_out_sets_stay_out_of_the_other_parts(chapter, tmp_path, monkeypatch):
    "Naming a held-out set runs it in confirm alone, never in a part whose results the claims were formed on."
    mod = importlib.import_module(f"mlxplain.repro.{chapter}")
    grids = []
    monkeypatch.setattr(mod, "run_grid", lambda func, grid, **kw: grids.append(grid) or fake_rows(func, grid, **kw))
    monkeypatch.setattr(mod, "confirm_part", lambda chapter, func, grid, *a, **kw: grids.append(["confirm"]))
    part = FIRST_PART[chapter][0]
    with pytest.raises(ValueError, match="only the part confirm"):
        mod.reproduce(tmp_path, parts=[part], datasets=["flags"], seeds=[0])
    assert grids == []
