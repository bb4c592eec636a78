"""Tests of mlxplain.repro.extended_plt: the paper's tables as typed in, the sweep's cell, and `reproduce`'s
argument checks (unknown parts and data sets fail before anything is written), and the confirm part: its units are
independent splits, each seeded by itself, and it runs on any further multilabel set but not on a forming one."""
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
    assert PARTS[:2] == DEFAULT_PARTS == ("evaluation", "timing") and set(PARTS) >= {"sweep", "seed_tables"}
    assert set(QUICK_DATASETS) <= set(DATASETS) and SEEDS == tuple(range(10))


def test_reproduce_rejects_unknown_part_and_dataset(tmp_path):
    with pytest.raises(ValueError, match="evaluation, timing, sweep, seed_tables"):
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
    """The part `seed_tables` refits per split s with training seed s (the first SEED_TABLE_TRAIN_SEEDS of `seeds`) and scores
    Tables 2-5's k and metrics under the same five noise draws; refits differ for the adversarial model."""
    from mlxplain.repro.extended_plt import SEED_TABLE_TRAIN_SEEDS, PART_FILES
    need_data("CAL500")
    t = reproduce(tmp_path, parts=["seed_tables"], datasets=["CAL500"], seeds=[0, 1])["seed_tables"]
    assert (tmp_path / PART_FILES["seed_tables"][0]).exists() and SEED_TABLE_TRAIN_SEEDS == 10
    assert set(t.k) == {1, 3, 5} and set(t.metric) == {"P@k", "nDCG@k", "PSDCG@k"} and set(t.sigma) == {0.0, 0.1}
    cells = t.groupby(["model", "train_seed", "repeat"]).size()
    assert len(cells) == 2 * 2 * 5 and set(cells) == {2 * 3 * 3}          # 2 models x 2 seeds x 5 noise draws
    adv = t[(t.model == "adversarial") & (t.metric == "P@k") & (t.sigma == 0.1)].groupby("train_seed").value.mean()
    assert adv.nunique() == 2                                               # the training seed reaches the fit
    assert (t.train_seed == t.split).all()                                  # a unit: split s with training seed s
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


# --- confirm: units are independent splits; any further multilabel set --------------------------
def _fake_confirm_rows(n_splits=3):
    "confirm_cell-like rows of one set whose raw and l2 scalings both have a noise ratio >= 1.5."
    return pd.DataFrame([dict(dataset="h", normalization=n, split=s, measure="drop_pct", model=m,
                              value=(10.0 if m == "normal" else 8.0) + s + f, ratio=2.0 * f)
                         for n, f in (("raw", 1), ("l2", 5)) for s in range(n_splits)
                         for m in ("normal", "adversarial")])


def test_confirm_units_are_splits_not_the_scalings_or_seeds_within_one():
    """A paired claim's n counts splits: the scalings of one split are averaged into one unit (they share the split's
    rows and seed); the grid has one cell per (set, scaling, split) and no seeds nested in a split."""
    from mlxplain.experiments import claims_path, evaluate_claims, read_claims
    from mlxplain.repro.extended_plt import CONFIRM_SETS, CONFIRM_SPLITS, NORMALIZATIONS, _grid, confirm_frame
    claims = read_claims(claims_path("extended_plt"))
    fr = confirm_frame(_fake_confirm_rows(3), claims)
    assert "split" in fr and fr.query("claim == 'plt-adversarial-lowers-large-drops'").split.nunique() == 3
    v = evaluate_claims(claims, fr, min_sets=1).set_index(["claim", "dataset"])
    assert v.loc[("plt-adversarial-lowers-large-drops", "h"), "n_units"] == 3          # 3 splits, not 2 × 3 rows
    assert v.loc[("plt-adversarial-lowers-large-drops", "h"), "estimate"] == pytest.approx(-2.0)
    rho = fr.query("claim == 'plt-drop-grows-with-noise-ratio'")
    assert set(rho.stratum) == {"h"} and set(rho.unit) == {"h/raw", "h/l2"}          # within-set regimes
    grid = _grid("confirm", CONFIRM_SETS, CONFIRM_SPLITS, False, None)[1]
    assert len(grid) == len(CONFIRM_SETS) * len(NORMALIZATIONS) * len(CONFIRM_SPLITS) == 4 * 4 * 20
    assert all(set(g) == {"dataset", "normalization", "split"} for g in grid)


def test_confirm_cell_is_seeded_by_its_split(data, monkeypatch):
    "Every random choice of a confirm cell is seeded by its split: seed=None is seed=split, and two splits differ."
    import mlxplain.repro.extended_plt as R
    from mlxplain.data import MultiLabelDataset
    Xtr, Ytr, Xte, Yte = data
    monkeypatch.setattr(R, "resampled_split", lambda name, split, data_home=None: (
        MultiLabelDataset(Xtr, Ytr), MultiLabelDataset(Xte, Yte)))   # the same rows for every split
    kw = dict(max_train=200, max_test=100, n_repeats=1, explain_instances=3)
    one, again = R.confirm_cell("toy", "l2", 1, **kw), R.confirm_cell("toy", "l2", 1, seed=1, **kw)
    assert one == again
    assert R.confirm_cell("toy", "l2", 2, **kw) != one                   # another split draws other rows and noise
    with pytest.raises(ValueError, match="split"): R.confirm_cell("toy", "l2", -1, **kw)


def test_confirm_refuses_the_sets_the_claims_were_formed_on(tmp_path):
    with pytest.raises(ValueError, match=r"datasets=\['CAL500'\]: the claims were formed on CAL500"):
        reproduce(tmp_path, parts=["confirm"], datasets=["CAL500"])
    with pytest.raises(ValueError, match="not multilabel"):
        reproduce(tmp_path, parts=["confirm"], datasets=["chess"])
    with pytest.raises(ValueError, match="datasets="):
        reproduce(tmp_path, parts=["confirm"], datasets=["no-such-set"])
    assert list(tmp_path.iterdir()) == []


def test_confirm_runs_on_a_further_set(tmp_path, need_data, monkeypatch):
    """`reproduce(parts=["confirm"], datasets=[a registered multilabel set outside the chapter and its held-out
    sets])` runs the claims there and writes the same verdict table (tiny rows; the quick run's first two splits)."""
    import mlxplain.repro.extended_plt as R
    from mlxplain.experiments import CONFIRM_FILES
    further = "tmc2007-500"   # staged, multilabel, and neither formed on nor held out
    need_data(further)
    assert further not in R.DATASETS and further not in R.FORMING_SETS
    monkeypatch.setattr(R, "CONFIRM_PROTOCOL", dict(max_train=150, max_test=80, n_repeats=1, explain_instances=3))
    v = reproduce(tmp_path, parts=["confirm"], datasets=[further], quick=True)["confirm"]
    out = tmp_path / "quick" / "confirm"
    assert all((out / f).exists() for f in CONFIRM_FILES + ("meta.json",))
    rows = pd.read_csv(out / CONFIRM_FILES[0])
    assert set(rows.dataset) == {further} and sorted(rows.split.unique()) == [0, 1]
    assert set(v.claim) == {c["id"] for c in json.loads((Path(R.results_dir("extended_plt")) / "claims.json").read_text())["claims"]}
    paired = v[(v.test != "spearman_permutation") & v.dataset.notna()]
    assert len(paired) and set(paired.n_units) <= {1, 2}                 # n counts the two splits
    assert (v.verdict != "replicated").all()                             # one set: a claim needs three


def test_seed_tables_units_are_ten_independent_splits_of_every_stand_in():
    """The page's headline table and its adversarial - normal verdicts read the seed tables: all six stand-ins, splits
    0-9, split s fitted with training seed s, in the grid and in the committed file."""
    from mlxplain.repro.extended_plt import _grid, SEEDS, SEED_TABLE_SETS, COUNTERPART
    from mlxplain.experiments import results_dir
    assert set(SEED_TABLE_SETS) == set(COUNTERPART)
    func, grid = _grid("seed_tables", SEED_TABLE_SETS, SEEDS, False, None)
    for d in SEED_TABLE_SETS:
        for m in ("normal", "adversarial"):
            assert sorted(g["split"] for g in grid if (g["dataset"], g["model"]) == (d, m)) == list(range(10))
    assert func.keywords["train_seeds"] is None          # a cell's training seed is its split
    st = pd.read_csv(Path(results_dir("extended_plt")) / "seed_tables.csv")
    assert set(st.dataset) == set(COUNTERPART) and set(st.groupby("dataset").split.nunique()) == {10}
    assert (st.train_seed == st.split).all()
    assert set(st.groupby(["dataset", "model", "split"]).train_seed.nunique()) == {1}   # one seed per split


def test_imdb_units_are_fresh_subsamples(need_data):
    "imdb has no official split: its unit s draws its own subsample and split with seed s, the same on every call."
    from mlxplain.repro.extended_plt import _repro_data
    need_data("imdb")
    (x0, *_), (x1, *_), (y1, *_) = (_repro_data("imdb", split=s) for s in (0, 1, 1))
    assert x0.shape == x1.shape and (x1 != y1).nnz == 0
    assert (x0 != x1).nnz > 0


def test_sweep_units_are_ten_independent_splits_with_their_own_seed():
    """The sweep's units are splits 0-9, each cell seeded by its split: in the grid and in the committed file. A grid
    of seeds nested in a few splits (the earlier design) fails here."""
    from mlxplain.repro.extended_plt import _grid, SPLITS, SWEEP_DATASETS, NORMALIZATIONS
    from mlxplain.experiments import results_dir
    _, grid = _grid("sweep", SWEEP_DATASETS, SPLITS, False, None)
    assert SPLITS == tuple(range(10)) and all(g["seed"] == g["split"] for g in grid)
    assert len(grid) == len(SWEEP_DATASETS) * len(NORMALIZATIONS) * 10
    sw = pd.read_csv(Path(results_dir("extended_plt")) / "sweep.csv")
    assert (sw.seed == sw.split).all() and set(sw.groupby("dataset").split.nunique()) == {10}
