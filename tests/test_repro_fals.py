"Tests of mlxplain.repro.fals: the experiment cells, the parts of `reproduce`, its argument checks and its record."
import json
import time
import numpy as np
import pandas as pd
import pytest
import torch

import mlxplain.repro.fals as E
from mlxplain.experiments import corrected_resampled_t
from mlxplain.repro.fals import cv_metrics, wilcoxon_pairs

torch.set_num_threads(1)


def test_reproduce_rejects_unknown_part_dataset_and_seed(tmp_path):
    with pytest.raises(ValueError, match="choose from table3, variants, ksweep, hidden, arch, leaf, cv"):
        E.reproduce(tmp_path, parts=("tabel3",))
    with pytest.raises(ValueError, match="emotions, yeast, scene"):
        E.reproduce(tmp_path, datasets=["emotion"])
    with pytest.raises(ValueError, match="choose from"):
        E.reproduce(tmp_path, parts=())
    with pytest.raises(ValueError, match="seeds=-1"):
        E.reproduce(tmp_path, seeds=[-1])
    assert list(tmp_path.iterdir()) == []     # nothing written


def test_constants_are_consistent():
    # confirm writes to its own folder (confirm/, experiments.confirm_part), so it has no PART_FILES entry
    assert set(E.PART_FILES) | {"confirm"} == set(E.PARTS) == set(E.PART_DATASETS) == set(E.QUICK_PART_DATASETS)
    assert set(E.DEFAULT_PARTS) <= set(E.PARTS) and set(E.QUICK_DATASETS) <= set(E.DATASETS)
    assert all(set(v) <= set(E.DATASETS) for v in E.PART_DATASETS.values())
    assert E.SEEDS == tuple(range(10)) and set(E.PART_SEEDS) == set(E.PARTS)


def test_load_result_reads_or_says_what_to_run(tmp_path, capsys):
    assert E.load_result("fig8_k", tmp_path) is None
    assert "mlxplain reproduce fals --parts ksweep" in capsys.readouterr().out
    pd.DataFrame({"dataset": ["x"], "_version": ["007"]}).to_csv(tmp_path / "fig8_k.csv", index=False)
    assert E.load_result("fig8_k", tmp_path)["_version"].tolist() == ["007"]   # read as written, any version
    with pytest.raises(ValueError, match="not a result"): E.load_result("nope", tmp_path)


def test_experiment_cells_emotions(need_data):
    need_data("emotions")
    rows = E.table3_cell("emotions", "fa")
    assert [r["method"] for r in rows] == ["fals", "fams", "fils", "fims"]
    assert all(0 <= r["HL"] <= 1 and 0 <= r["AP"] <= 1 and r["k"] == 7 for r in rows)
    assert E.table3_cell("emotions", "lift")["select_s"] > 0
    assert len(E.paper_table3()) == 440 and len(E.paper_table4()) == 110
    with pytest.raises(ValueError, match="method="): E.table3_cell("emotions", "svm")


def test_variants_cell_compares_fals_with_another_seed(need_data, monkeypatch):
    need_data("emotions")
    monkeypatch.setattr(E, "VARIANT_SETTINGS", {"FALS": {}, "FAMS": {"variant": "fams"}})
    f3, f4 = E.variants_experiment("emotions", seeds=(0, 1))
    assert f3[["variant", "seed"]].values.tolist() == [["FALS", 0], ["FALS", 1], ["FAMS", 0], ["FAMS", 1]]
    fals = f4.query("variant == 'FALS'")
    assert (fals["jaccard"] < 1).any()                    # against the other seed, not itself
    one, _ = E.variants_experiment("emotions", seeds=(0,))
    assert len(one) == 2


def test_leaf_part_writes_table_and_meta(tmp_path, monkeypatch, need_data):
    need_data("emotions")
    df = E.leaf_sensitivity("emotions")
    assert set(df["split"]) == {0} and set(df["min_samples_leaf"]) == {1, 10}
    assert df["AP"].between(0, 1).all() and (df["n_train"] > df["n_test"]).all()
    out = E.reproduce(tmp_path, quick=True, parts=("leaf",))
    written = pd.read_csv(tmp_path / "quick" / "tree_leaf_sensitivity.csv")
    np.testing.assert_allclose(written.query("seed == 0")["AP"], df["AP"])
    assert list(out) == ["leaf"] and len(out["leaf"]) == len(written) and (written["seed"] == written["split"]).all()
    assert sorted(written["seed"].unique()) == [0, 1, 2]   # quick: the first three units
    meta = json.loads((tmp_path / "quick" / "meta.json").read_text())
    assert meta["format"] == E.META_FORMAT and meta["chapter"] == "fals" and set(meta["code_version"]) == {"leaf"}
    assert meta["design"]["datasets_by_part"] == {"leaf": ["emotions"]} and meta["seeds"] == [0, 1, 2]
    cache = tmp_path / "quick" / "_cache" / "leaf.csv"
    assert cache.exists()
    E.reproduce(tmp_path, quick=True, parts=("leaf",))   # cached: the rows are read back, not recomputed
    assert pd.read_csv(tmp_path / "quick" / "tree_leaf_sensitivity.csv").equals(written)
    meta2 = json.loads((tmp_path / "quick" / "meta.json").read_text())
    assert [h["started"] for h in meta2["history"]] == [meta["started"]] and "history" not in meta2["history"][0]


def test_cv_part_folds_and_cache(tmp_path, monkeypatch, need_data):
    need_data("emotions")
    rows = E.cv_fold("emotions", 1, n_splits=3)
    assert [r["method"] for r in rows] == ["fals", "fams"]
    assert all(0 <= r[m] <= 1 for r in rows for m in E.CV_METRICS) and rows[0]["n_train"] + rows[0]["n_test"] == 593
    ds, folds = E._cv_folds("emotions", None, 3)
    assert sorted(np.concatenate([te for _, te in folds]).tolist()) == list(range(ds.n_samples))
    for bad in (3, -1, 1.0):
        with pytest.raises(ValueError, match="fold="): E.cv_fold("emotions", bad, n_splits=3)
    monkeypatch.setattr(E, "CV_FOLDS", 3)
    E.reproduce(tmp_path, quick=True, parts=("cv",))
    out = pd.read_csv(tmp_path / "quick" / "cv_folds.csv")
    assert sorted(zip(out["fold"], out["method"])) == [(f, m) for f in range(3) for m in ("fals", "fams")]
    assert (out["n_splits"] == 3).all() and (out["seed"] == out["fold"]).all()   # fold f runs with seed f
    np.testing.assert_allclose(out.query("fold == 1")[E.CV_METRICS].to_numpy(),
                               [[r[m] for m in E.CV_METRICS] for r in rows])


def test_cv_metrics_match_sklearn_and_bad_input():
    from sklearn.metrics import roc_auc_score, hamming_loss, label_ranking_loss, label_ranking_average_precision_score
    rng = np.random.default_rng(0)
    Y = (rng.random((40, 6)) < 0.3).astype(int); Y[Y.sum(1) == 0, 0] = 1      # every instance has a relevant label
    S = rng.random((40, 6))                                                    # continuous scores: no ties
    m = cv_metrics(Y, S)
    assert m["microAUC"] == pytest.approx(roc_auc_score(Y.ravel(), S.ravel()))
    assert m["HL"] == pytest.approx(hamming_loss(Y, S >= 0.5))
    assert m["RL"] == pytest.approx(label_ranking_loss(Y, S)) and m["AP"] == pytest.approx(label_ranking_average_precision_score(Y, S))
    with pytest.raises(ValueError): cv_metrics(Y, S[:, :5])


def test_wilcoxon_pairs_against_scipy():
    import pandas as pd
    from scipy.stats import wilcoxon
    rng = np.random.default_rng(1)
    rows = [{"dataset": d, "method": m, "metric": mt, "ours": v}
            for d in range(12) for mt in ("AP", "RL") for m, v in (("x", rng.random()), ("y", rng.random()), ("z", rng.random()))]
    df = pd.DataFrame(rows); w = wilcoxon_pairs(df, ["x", "y", "z"])
    assert len(w) == 6 and set(w["link"]) <= {"none", "thin", "thick"}
    for r in w.itertuples():
        a = df.query("metric == @r.metric and method == @r.a")["ours"].to_numpy(); b = df.query("metric == @r.metric and method == @r.b")["ours"].to_numpy()
        assert r.p == pytest.approx(wilcoxon(a - b).pvalue)
        sign = -1 if r.metric == "AP" else 1
        assert (r.a_better, r.b_better) == (int((sign * (a - b) < 0).sum()), int((sign * (a - b) > 0).sum()))
        assert r.link == ("none" if r.p < 0.05 else "thin" if r.p < 0.1 else "thick")
    assert wilcoxon_pairs(df, ["x", "missing"]).empty                          # a method without rows: no pair


def test_part_seeds_default_and_given():
    assert E._part_seeds(("table3", "variants", "cv"), list(E.SEEDS), given=False) == {
        "table3": (0, 1, 2, 3, 4), "variants": E.SEEDS, "cv": E.SEEDS}
    assert E._part_seeds(("table3", "cv"), [3, 7], given=True) == {"table3": (3, 7), "cv": (3, 7)}
    assert set(E.PART_SEEDS) == set(E.PARTS) and all(len(E.PART_SEEDS[p]) >= 5 for p in ("table3", "ksweep", "hidden", "arch", "scale"))
    assert [g["method"] for g in E._grid("table3", ["imdb"], (0,), None)[1]] == ["fa", "brdt", "lasso", "rf"]  # no LIFT
    func, grid = E._grid("table3", ["emotions"], (0, 1), None)
    assert [(c["seed"], c["method"]) for c in grid] == [(s, m) for s in (0, 1) for m in E.TABLE3_METHODS]
    for part in ("ksweep", "hidden", "arch", "leaf", "scale"):
        assert [c["seed"] for c in E._grid(part, ["emotions"], (0, 1), None)[1]] == [0, 1]
    assert [(c["fold"], c["seed"]) for c in E._grid("cv", ["emotions"], (0, 1), None)[1]] == [(0, 0), (1, 1)]


def test_one_run_part_honours_seeds_and_extends_its_file(tmp_path, need_data):
    need_data("emotions")
    out = E.reproduce(tmp_path, parts=("hidden",), datasets=["emotions"], seeds=[0, 1])["hidden"]
    assert sorted(zip(out["seed"], out["hidden"])) == sorted((s, h) for s in (0, 1) for h in ("D", "C", "sqrt"))
    a, b = (out[out["seed"] == s].set_index("hidden")["AP"] for s in (0, 1))
    assert (a != b).any()                                      # another seed, another network
    np.testing.assert_allclose(a.to_numpy(), E.hidden_sweep("emotions", seed=0)["AP"].to_numpy())
    cache = pd.read_csv(tmp_path / "_cache" / "hidden.csv")
    assert sorted(cache["_cell"].unique()) == sorted(f'{{"dataset": "emotions", "seed": {s}}}' for s in (0, 1))
    E.reproduce(tmp_path, parts=("hidden",), datasets=["emotions"], seeds=[1])    # seed 1 again, from the cache
    again = pd.read_csv(tmp_path / "fig9_hidden.csv")
    assert sorted(again["seed"]) == sorted(out["seed"]) and len(again) == 6        # seed 0 kept, seed 1 replaced
    np.testing.assert_allclose(again.sort_values(["seed", "hidden"])["AP"], out.sort_values(["seed", "hidden"])["AP"])


def test_keep_others_replaces_only_recomputed_pairs(tmp_path):
    from mlxplain.experiments import keep_other_rows
    path = tmp_path / "t.csv"
    assert keep_other_rows(path, pd.DataFrame({"dataset": ["a"], "seed": [0], "v": [1.0]}))["v"].tolist() == [1.0]
    pd.DataFrame({"dataset": ["a", "a", "b"], "seed": [0, 1, 0], "v": [1.0, 2.0, 3.0]}).to_csv(path, index=False)
    new = pd.DataFrame({"dataset": ["a"], "seed": [1], "v": [9.0]})
    got = keep_other_rows(path, new)
    assert sorted(zip(got["dataset"], got["seed"], got["v"])) == [("a", 0, 1.0), ("a", 1, 9.0), ("b", 0, 3.0)]


def test_scale_cell_rows_and_random_baseline(need_data):
    need_data("emotions")
    rows = E.scale_cell("emotions", 0)
    assert [r["method"] for r in rows] == ["unscaled", "scaled", "random"] and all(r["k"] == 7 for r in rows)
    assert all(0 <= r["AP"] <= 1 and 0 <= r["HL"] <= 1 for r in rows)
    assert rows[0]["AP"] != rows[1]["AP"]                      # emotions' features differ in scale
    assert E.scale_cell("emotions", 0)[2]["AP"] == rows[2]["AP"]   # the random features are seeded


def test_rows_name_their_code_version_and_run_and_meta_names_both(tmp_path, need_data):
    "Each row keeps the version and run that computed it; meta.json names every version and run a file holds."
    need_data("emotions")
    E.reproduce(tmp_path, parts=("hidden",), datasets=["emotions"], seeds=[0])
    m1 = json.loads((tmp_path / "meta.json").read_text())
    t1 = pd.read_csv(tmp_path / "fig9_hidden.csv", dtype={"_version": str, "_run": str})
    assert set(t1["_run"]) == {m1["started"]} and set(t1["_version"]) == {m1["code_version"]["hidden"]}
    assert m1["runs"][m1["started"]]["code_version"] == {"hidden": m1["code_version"]["hidden"]}
    time.sleep(1.1)                                              # another second, another run label
    E.reproduce(tmp_path, parts=("hidden",), datasets=["emotions"], seeds=[0, 1])   # seed 0 from the cache
    m2 = json.loads((tmp_path / "meta.json").read_text())
    t2 = pd.read_csv(tmp_path / "fig9_hidden.csv", dtype={"_version": str, "_run": str})
    assert t2.groupby("seed")["_run"].agg(set).to_dict() == {0: {m1["started"]}, 1: {m2["started"]}}
    assert set(m2["runs"]) == {m1["started"], m2["started"]} and m2["files"]["hidden"] == ["fig9_hidden.csv"]
    assert m2["code_version"]["hidden"] == m1["code_version"]["hidden"]          # same code: one version


def test_fig3_fig9_depth_and_scale_units_are_split_and_seed(need_data):
    "variants_cell, architecture_sweep and scale_cell of unit s: split s, FALS and the BR trees seeded s (as Table 3's)."
    need_data("emotions")
    from mlxplain.experiments import resampled_split
    from mlxplain.fals import FALS
    tr, te = resampled_split("emotions", 1)
    k = E.check_k(0.1, tr.n_features)
    f = FALS(k=k, scale=False, random_state=1).fit(tr.X, tr.Y)
    want = E.evaluate(tr, te, f.selected_, tree_seed=1)
    rows = E.variants_cell("emotions", 1, 2)
    got = {"variants": next(r for r in rows if r["table"] == "fig3" and r["variant"] == "FALS"),
           "scale": next(r for r in E.scale_cell("emotions", 1) if r["method"] == "unscaled"),
           "arch": E.architecture_sweep("emotions", seed=1, layers=(2,), activations=("ReLU",)).iloc[0]}
    for part, r in got.items():   # the 2-layer ReLU net of the depth sweep is FALS's own network
        assert all(np.isclose(r[m], want[m], rtol=0, atol=1e-9) for m in ("HL", "OE", "RL", "AP")), part


def test_fig8_and_fig9_width_units_are_split_and_seed(need_data):
    "k_sweep and hidden_sweep of unit s: split s of resampled_split (0: the set's own), FALS and the BR trees seeded s."
    need_data("emotions")
    from mlxplain.experiments import resampled_split
    from mlxplain.fals import FALS
    tr, te = resampled_split("emotions", 1)
    f = FALS(scale=False, random_state=1).fit(tr.X, tr.Y)
    k = E.check_k(0.1, tr.n_features)
    want = E.evaluate(tr, te, E._top_k(f.scores_, k), tree_seed=1)
    got = E.k_sweep("emotions", ratios=(0.1,), seed=1).set_index("method").loc["fals"]
    assert all(np.isclose(got[m], want[m], rtol=0, atol=1e-12) for m in ("HL", "OE", "RL", "AP"))
    want_h = E.evaluate(tr, te, f.selected_, tree_seed=1)
    got_h = E.hidden_sweep("emotions", seed=1).set_index("hidden").loc["sqrt"]
    assert all(np.isclose(got_h[m], want_h[m], rtol=0, atol=1e-12) for m in ("HL", "OE", "RL", "AP"))
    own, unit0 = E._data("emotions")[0], E._unit_split("emotions", 0)[0]   # unit 0 keeps the official split
    assert np.array_equal(np.asarray(unit0.Y.todense() if hasattr(unit0.Y, "todense") else unit0.Y),
                          np.asarray(own.Y.todense() if hasattr(own.Y, "todense") else own.Y))
    assert unit0.n_samples == own.n_samples != tr.n_samples


def test_confirm_units_are_independent_splits_one_seed_each(need_data):
    "A held-out unit is one split seeded by itself: no seed nested in a split, so evaluate_claims counts splits."
    from mlxplain.experiments import evaluate_claims, held_out_sets, read_claims, results_dir
    c = read_claims(results_dir("fals") / "claims.json")
    assert c["splits"] == list(E.CONFIRM_SPLITS) == list(range(20)) and "seeds" not in c
    assert c["held_out"]["args"]["n"] is None                    # every set the rule admits
    assert tuple(c["held_out"]["sets"]) == E.CONFIRM_SETS == tuple(held_out_sets(E.FORMING_SETS, **c["held_out"]["args"]))
    _, grid = E._grid("confirm", ["flags", "birds"], E.CONFIRM_SPLITS[:3], None)
    assert grid == [{"dataset": d, "split": s} for d in ("flags", "birds") for s in (0, 1, 2)]
    need_data("flags")
    rows = E.confirm_cell("flags", 2)
    assert {r["seed"] for r in rows} == {2}
    want = E.table3_cell("flags", "fa", 2, split=2, tree_seed=2)[0]   # FALS and the trees seeded by the split
    got = next(r for r in rows if r["method"] == "fals")
    assert want["method"] == "fals"
    assert all(np.isclose(got[m], want[m], rtol=0, atol=1e-12) for m in ("HL", "OE", "RL", "AP"))
    frame = E.confirm_frame(pd.DataFrame([{**r, "dataset": "flags", "split": 2} for r in rows]), c)
    assert set(frame["split"]) == {2} and frame.groupby(["claim", "side"]).size().eq(1).all()


def test_confirm_frame_counts_splits_not_seeds():
    "Rows of one split under several seeds are one unit: n_units is the number of splits."
    from mlxplain.experiments import evaluate_claims, read_claims, results_dir
    c = read_claims(results_dir("fals") / "claims.json")
    rng = np.random.default_rng(0)
    fake = pd.DataFrame([dict(dataset=d, split=sp, seed=s, method=m, HL=h + rng.normal(0, 0.01), OE=h, RL=h, AP=1 - h)
                         for d in ("h1", "h2", "h3") for sp in range(4) for s in range(5)
                         for m, h in (("lasso", 0.1), ("fals", 0.2), ("fils", 0.2), ("rf", 0.3), ("brdt", 0.4), ("lift", 0.5))])
    got = evaluate_claims(c, E.confirm_frame(fake, c))
    assert (got["n_units"] == 4).all()                           # 4 splits per set, not 4 × 5 split-seed pairs


def test_confirm_on_a_further_set_writes_verdicts(tmp_path, need_data, monkeypatch):
    "`reproduce(parts=['confirm'], datasets=[...])` runs a registered multilabel set the chapter never uses."
    need_data("CAL500")
    assert "CAL500" not in E.CONFIRM_SETS + E.FORMING_SETS
    monkeypatch.setattr(E, "TABLE3_METHODS", ("fa", "brdt", "lasso"))   # a tiny unit: ranks among the three it has
    out = E.reproduce(tmp_path, parts=["confirm"], datasets=["CAL500"], seeds=[0, 1], quick=True)["confirm"]
    folder = tmp_path / "quick" / "confirm"
    disk = pd.read_csv(folder / "confirm_claims.csv")
    assert set(disk["dataset"]) == set(out["dataset"]) == {"CAL500"} and (disk["n_units"] == 2).all()
    assert set(disk["claim"]) == {"fals-lasso-ranks-ahead", "fals-equals-fils"}
    rows = pd.read_csv(folder / "confirm.csv")
    assert sorted(set(zip(rows["split"], rows["seed"]))) == [(0, 0), (1, 1)]
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["design"]["splits"] == [0, 1] and list(meta["datasets"]) == ["CAL500"]


def test_confirm_refuses_the_sets_that_formed_the_claims(tmp_path):
    with pytest.raises(ValueError, match=r"datasets=\['emotions'\]: the claims were formed on emotions"):
        E.reproduce(tmp_path, parts=["confirm"], datasets=["emotions"])
    with pytest.raises(ValueError, match=r"datasets=\[.nope.\]: nope is no registered data set.*birds"):
        E.reproduce(tmp_path, parts=["confirm"], datasets=["nope"])
    with pytest.raises(ValueError, match=r"backache is not multilabel"):   # a binary set
        E.reproduce(tmp_path, parts=["confirm"], datasets=["backache"])
    assert list(tmp_path.iterdir()) == []     # nothing written


def test_cv_folds_each_run_their_own_seed():
    "Tables 5–9: fold f runs FALS and the trees with seed f, in the grid and in the committed cv_folds.csv (one seed per fold)."
    assert E.PART_SEEDS["cv"] == tuple(range(E.CV_FOLDS))
    _, grid = E._grid("cv", ["20ng", "bibtex"], E.PART_SEEDS["cv"], None)
    assert [(c["dataset"], c["fold"], c["seed"]) for c in grid] == [(d, f, f) for d in ("20ng", "bibtex") for f in range(10)]
    with pytest.raises(ValueError, match="folds in"): E._grid("cv", ["20ng"], (10,), None)
    from mlxplain.experiments import results_dir
    cv = pd.read_csv(results_dir("fals") / "cv_folds.csv")
    assert (cv["seed"] == cv["fold"]).all()
    per_set = cv.groupby("dataset").agg(folds=("fold", "nunique"), seeds=("seed", "nunique"))
    assert (per_set["folds"] == 10).all() and (per_set["seeds"] == 10).all() and len(per_set) == len(E.CV_SETS)


def test_cv_seed_reaches_fals_and_the_trees(need_data):
    "cv_fold's seed (default: the fold) seeds the network and the trees: fold 1 by default equals seed 1, not seed 0."
    need_data("emotions")
    by_default, one, zero = (pd.DataFrame(E.cv_fold("emotions", 1, n_splits=3, seed=s)) for s in (None, 1, 0))
    np.testing.assert_allclose(by_default[E.CV_METRICS], one[E.CV_METRICS])
    assert not np.allclose(by_default[E.CV_METRICS], zero[E.CV_METRICS])


def test_corrected_resampled_t_by_hand_and_against_scipy():
    from scipy import stats
    r = corrected_resampled_t([1.0, 2.0, 3.0, 4.0], 1 / 9)    # mean 2.5, s^2 = 5/3, J = 4
    se = np.sqrt((1 / 4 + 1 / 9) * 5 / 3)
    assert r["se"] == pytest.approx(se) and r["t"] == pytest.approx(2.5 / se) and (r["n"], r["df"]) == (4, 3)
    assert r["p"] == pytest.approx(2 * stats.t.sf(2.5 / se, 3))
    x = np.random.default_rng(0).normal(0.02, 0.03, 10)
    assert corrected_resampled_t(x, 0)["p"] == pytest.approx(stats.ttest_1samp(x, 0).pvalue, rel=1e-10)
    assert corrected_resampled_t(x, 1 / 9)["t"] == pytest.approx(stats.ttest_1samp(x, 0).statistic * np.sqrt(0.1 / (0.1 + 1 / 9)))
    assert corrected_resampled_t(x, 1 / 9)["p"] > stats.ttest_1samp(x, 0).pvalue
    assert corrected_resampled_t(-x, 1 / 9, "less")["p"] == pytest.approx(corrected_resampled_t(x, 1 / 9, "greater")["p"])
    assert corrected_resampled_t([0.0, 0.0, 0.0], 1 / 9)["p"] == pytest.approx(1.0, abs=1e-12)   # no spread, no difference
    assert corrected_resampled_t([0.2, 0.2], 1 / 9)["p"] == pytest.approx(0.0, abs=1e-12)   # no spread, a difference
    for bad, match in (([1.0], "at least 2"), ([[1.0, 2.0]], "1-D"), ([1.0, np.inf], "infinite"), ("ab", "numbers")):
        with pytest.raises((TypeError, ValueError), match=match): corrected_resampled_t(bad, 1 / 9)
    with pytest.raises(ValueError, match="test_train_ratio"): corrected_resampled_t(x, -0.1)
    with pytest.raises(TypeError, match="test_train_ratio"): corrected_resampled_t(x, "1/9")
    with pytest.raises(ValueError, match="alternative"): corrected_resampled_t(x, 1 / 9, "both")


def test_fals_fams_over_folds_use_the_corrected_t_with_holm():
    """The committed Tables 5–9 comparison: per (set, metric) the corrected resampled t over the 10 folds of one partition
    (not a test that treats the folds as independent), n = 10, Holm over the 30 tests."""
    from scipy import stats
    from mlxplain.experiments import holm, results_dir
    cv = pd.read_csv(results_dir("fals") / "cv_folds.csv")
    got = E.fold_pairs(cv, "method", "fals", "fams")
    assert len(got) == len(E.CV_SETS) * len(E.CV_METRICS) and (got["n"] == 10).all()
    np.testing.assert_allclose(got["p_holm"], holm(got["p"].to_numpy()))
    for r in got.itertuples():
        w = cv[cv.dataset == r.dataset].pivot(index="fold", columns="method", values=r.metric)
        d = (w["fals"] - w["fams"]).to_numpy()
        n_te, n_tr = cv[cv.dataset == r.dataset][["n_test", "n_train"]].mean()
        assert n_te / n_tr == pytest.approx(1 / 9, rel=0.02)       # the ratio the correction uses
        se = np.sqrt((1 / 10 + 1 / 9) * d.var(ddof=1))
        assert r.estimate == pytest.approx(d.mean()) and r.p == pytest.approx(2 * stats.t.sf(abs(d.mean()) / se, 9))
        assert r.p >= stats.ttest_rel(w["fals"], w["fams"]).pvalue   # never the folds-as-independent p
    toy = pd.DataFrame([{"dataset": "s", "fold": f, "seed": 0, "method": m, "AP": 0.5 + 0.01 * f * (m == "fals")}
                        for f in range(10) for m in ("fals", "fams")])
    with pytest.raises(ValueError, match="its own seed"): E.fold_pairs(toy, "method", "fals", "fams", metrics=["AP"])
    with pytest.raises(ValueError, match="lacks"): E.fold_pairs(toy.drop(columns="fold"), "method", "fals", "fams", metrics=["AP"])


def test_leaf_units_are_ten_distinct_splits(need_data):
    "Leaf sensitivity: unit s = split s (resampled_split; 0 the official), FALS and the trees seeded s; the committed file has 10 per set."
    from mlxplain.experiments import holm, resampled_split, results_dir
    from mlxplain.fals import FALS
    assert E.PART_SEEDS["leaf"] == tuple(range(10))
    leaf = pd.read_csv(results_dir("fals") / "tree_leaf_sensitivity.csv")
    assert set(leaf["dataset"]) == set(E.LEAF_SETS) and (leaf["split"] == leaf["seed"]).all()
    assert (leaf.groupby("dataset")["split"].apply(lambda s: sorted(s.unique())) .map(lambda u: u == list(range(10)))).all()
    assert not leaf.duplicated(["dataset", "split", "min_samples_leaf"]).any()
    lt = E.leaf_test(leaf)
    assert (lt["n"] == 10).all() and len(lt) == 2
    np.testing.assert_allclose(lt["p_holm"], holm(lt["p"].to_numpy()))
    with pytest.raises(ValueError, match="lacks"): E.leaf_test(leaf.drop(columns="split"))
    with pytest.raises(ValueError, match="one unit"): E.leaf_test(pd.concat([leaf, leaf.head(1)]))
    need_data("emotions")
    tr, te = resampled_split("emotions", 2)
    f = FALS(k=E.check_k(0.1, tr.n_features), scale=False, random_state=2).fit(tr.X, tr.Y)
    want = E.evaluate(tr, te, f.selected_, tree_seed=2)
    got = E.leaf_sensitivity("emotions", leaves=(1,), seed=2).iloc[0]
    assert got["split"] == 2 and got["n_test"] == te.n_samples
    assert all(np.isclose(got[m], want[m], rtol=0, atol=1e-12) for m in ("HL", "OE", "RL", "AP"))
    a, b = (E.leaf_sensitivity("emotions", leaves=(1,), seed=s).iloc[0] for s in (1, 2))
    assert a["AP"] != b["AP"]                                          # distinct splits, distinct units


def test_verify_table3_recomputes_the_unit_of_its_seed(need_data):
    "verify_table3(seed=s) recomputes unit s (split s, trees seeded s): rows of both code versions in table3.csv agree."
    need_data("emotions", "tmc2007-500")
    v = E.verify_table3(cells=(("emotions", "brdt"), ("emotions", "lasso")), seed=1)   # a row of e58b4c40c258
    assert v.identical.all(), v
    v = E.verify_table3(cells=(("tmc2007-500", "brdt"),), seed=2)                      # a row of 948288bd11ab
    assert v.identical.all(), v


def test_table3_gives_every_data_set_three_independent_units():
    """Every Table 3 set has at least three units (split s, trees seeded s), each with every method it runs, so the
    large sets (tmc2007-500, delicious, imdb) get a mean and SE over independent splits, not one fit."""
    t3 = E.load_result("table3")
    units = t3.groupby("dataset").seed.agg(lambda s: sorted(set(s)))
    assert set(units.index) == set(E.TABLE3_SETS)
    assert all(u[:3] == [0, 1, 2] for u in units), units[units.map(len) < 3]
    per_unit = t3.groupby(["dataset", "seed"]).method.apply(frozenset)
    assert (per_unit.groupby("dataset").nunique() == 1).all()   # the same methods in every unit of a set
