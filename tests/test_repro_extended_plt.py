"""Tests of mlxplain.repro.extended_plt: the paper's tables as typed in, the sweep's cell, and `reproduce`'s
argument checks (unknown parts and data sets fail before anything is written)."""
import json
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from mlxplain.data import make_label_specific
from mlxplain.repro.extended_plt import (PARTS, DEFAULT_PARTS, DATASETS, QUICK_DATASETS, SEEDS, paper_results,
                                         reproduce, load_result)


@pytest.fixture(scope="module")
def data():
    ds, _ = make_label_specific(n_samples=500, n_features=30, n_labels=6, n_relevant=3, sparse=True, random_state=0)
    X, Y = sp.csr_matrix(ds.X, dtype=np.float32), sp.csr_matrix(ds.Y)
    return X[:350], Y[:350], X[350:], Y[350:]


def test_constants():
    assert PARTS[:2] == DEFAULT_PARTS == ("evaluation", "timing") and set(PARTS) >= {"sweep", "seed_intervals"}
    assert set(QUICK_DATASETS) <= set(DATASETS) and SEEDS == tuple(range(10))


def test_reproduce_rejects_unknown_part_and_dataset(tmp_path):
    with pytest.raises(ValueError, match="evaluation, timing, sweep, seed_intervals"):
        reproduce(tmp_path, parts=["evaluation", "tables"])
    with pytest.raises(ValueError, match="CAL500"):
        reproduce(tmp_path, datasets=["no-such-set"])
    with pytest.raises(ValueError, match="choose from"):
        reproduce(tmp_path, parts=[])
    assert list(tmp_path.iterdir()) == []


def test_load_result_missing_says_what_to_run(tmp_path, capsys):
    assert load_result("sweep", tmp_path) is None
    assert "mlxplain reproduce extended_plt --parts sweep" in capsys.readouterr().out
    with pytest.raises(ValueError, match="evaluation.csv"):
        load_result("nothing", tmp_path)


def test_paper_tables():
    p = paper_results()
    assert len(p) == 72 and set(p.metric) == {"P@k", "nDCG@k", "PSDCG@k"}
    v = p.set_index(["dataset", "model", "sigma", "k", "metric"])
    # spot checks typed from the paper's Tables 2-5
    assert v.loc[("Eurlex-4K", "normal", 0, 1, "P@k"), "paper"] == pytest.approx(0.8104, abs=1e-12)
    assert v.loc[("Eurlex-4K", "adversarial", 0, 5, "PSDCG@k"), "paper"] == pytest.approx(0.4024, abs=1e-12)
    assert v.loc[("Mediamill", "normal", 0.1, 1, "P@k"), "paper"] == pytest.approx(0.7243, abs=1e-12)
    assert v.loc[("Mediamill", "adversarial", 0.1, 5, "nDCG@k"), "paper"] == pytest.approx(0.6869, abs=1e-12)
    assert v.loc[("Eurlex-4K", "normal", 0.1, 5, "P@k"), "paper_predict_time"] == pytest.approx(45.0925, abs=1e-12)
    assert v.loc[("Mediamill", "adversarial", 0, 1, "P@k"), "paper_predict_time"] == pytest.approx(0.1830, abs=1e-12)


PAPER_MD = Path(__file__).resolve().parents[1].parent / "shared" / "papers" / "extended_plt.md"


@pytest.mark.skipif(not PAPER_MD.exists(), reason="the paper's text is not staged")
def test_paper_tables_match_the_papers_text():
    "Every row of Tables 2-5 as printed in the paper's text equals paper_results()."
    txt = PAPER_MD.read_text()
    v = paper_results().set_index(["dataset", "model", "sigma", "k", "metric"])
    n = 0
    for title, dataset, sigma in (("Table 2", "Eurlex-4K", 0), ("Table 3", "Mediamill", 0), ("Table 4", "Eurlex-4K", 0.1), ("Table 5", "Mediamill", 0.1)):
        block = txt[txt.index(f"**{title}"):][:900]
        model = None
        for line in block.splitlines()[3:9]:
            cells = line.split("\t")
            if cells[0] in ("Normal", "Adversarial"): model = cells[0].lower()
            k, p1, nd, ps, t = int(cells[1]), *map(float, cells[2:6])
            for metric, val in (("P@k", p1), ("nDCG@k", nd), ("PSDCG@k", ps)):
                assert v.loc[(dataset, model, sigma, k, metric), "paper"] == val, (title, model, k, metric)
            assert v.loc[(dataset, model, sigma, k, "P@k"), "paper_predict_time"] == t
            n += 1
    assert n == 24


# --- the sweep -----------------------------------------------------------------------------
def test_noise_sweep_rows(data):
    from mlxplain.repro.extended_plt import noise_sweep, normalize_features
    from mlxplain.data import MultiLabelDataset
    Xtr, Ytr, Xte, Yte = data
    pair = (MultiLabelDataset(Xtr, Ytr), MultiLabelDataset(Xte, Yte))
    rows = pd.DataFrame(noise_sweep(pair, "standard", seed=1, train_sigmas=(0.1,), test_sigmas=(0.05, 0.5)))
    assert list(rows.model) == ["normal", "normal", "adversarial", "adversarial"]
    np.testing.assert_allclose(rows.drop_pct, 100 * (rows.p1_clean - rows.p1_noisy) / rows.p1_clean)
    Xs, _ = normalize_features(Xtr, Xte, "standard")
    assert np.allclose(Xs.toarray().std(0)[np.asarray(Xtr.getnnz(0)) > 1], 1, atol=1e-4)
    with pytest.raises(ValueError, match="maxabs"): normalize_features(Xtr, Xte, "minmax")


# --- Tables 2-5 over training seeds x noise seeds -------------------------------------------
def test_seed_tables_part_covers_training_seeds_times_noise_seeds(tmp_path, need_data):
    """The part `seed_tables` refits per training seed (the first SEED_TABLE_TRAIN_SEEDS of `seeds`) and scores
    Tables 2-5's k and metrics under the same five noise draws; refits differ for the adversarial model."""
    from mlxplain.repro.extended_plt import SEED_TABLE_TRAIN_SEEDS, PART_FILES
    need_data("CAL500")
    t = reproduce(tmp_path, parts=["seed_tables"], datasets=["CAL500"], seeds=[0, 1])["seed_tables"]
    assert (tmp_path / PART_FILES["seed_tables"][0]).exists() and SEED_TABLE_TRAIN_SEEDS == 5
    assert set(t.k) == {1, 3, 5} and set(t.metric) == {"P@k", "nDCG@k", "PSDCG@k"} and set(t.sigma) == {0.0, 0.1}
    cells = t.groupby(["model", "train_seed", "repeat"]).size()
    assert len(cells) == 2 * 2 * 5 and set(cells) == {2 * 3 * 3}          # 2 models x 2 seeds x 5 noise draws
    adv = t[(t.model == "adversarial") & (t.metric == "P@k") & (t.sigma == 0.1)].groupby("train_seed").value.mean()
    assert adv.nunique() == 2                                               # the training seed reaches the fit
    written = pd.read_csv(tmp_path / PART_FILES["seed_tables"][0], dtype={"_version": str, "_run": str})
    meta = json.loads((tmp_path / "meta.json").read_text())   # each row names its code and run; meta.json both
    assert set(written["_run"]) == {meta["started"]} and set(written["_version"]) == {meta["code_version"]["seed_tables"]}
    assert meta["runs"][meta["started"]]["code_version"] == {"seed_tables": meta["code_version"]["seed_tables"]}


def test_a_run_of_some_cells_keeps_the_other_cells_rows(tmp_path, monkeypatch):
    """The README's promise for `--refresh` with some sets or seeds: a part's table keeps the rows of the cells this call
    did not run. ExtendedPLT's reproduce replaced the table with the call's rows."""
    import mlxplain.repro.extended_plt as R
    def fake_run_grid(func, grid, **kw):   # one record per cell, without training anything
        return pd.DataFrame([{**{k: v for k, v in g.items() if k != "data_home"}, "drop_pct": 1.0, "_version": "v"}
                             for g in grid])
    monkeypatch.setattr(R, "run_grid", fake_run_grid)
    R._run_part("sweep", tmp_path, ["CAL500", "bibtex"], [0, 1], True, None, 1, None, "r0")
    first = pd.read_csv(tmp_path / "sweep.csv")
    R._run_part("sweep", tmp_path, ["bibtex"], [1], True, None, 1, None, "r1")     # a rerun of one set and seed
    again = pd.read_csv(tmp_path / "sweep.csv")
    key = ["dataset", "normalization", "split", "seed"]
    assert len(again) == len(first) and sorted(map(tuple, again[key].values.tolist())) == sorted(
        map(tuple, first[key].values.tolist()))
