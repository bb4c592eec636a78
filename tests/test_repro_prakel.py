"""PRAkEL reproduction (`mlxplain.repro.prakel`): summaries, paired claims, the reproduce API, and the guard that the
committed result tables still describe the code."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mlxplain.metrics import hamming_loss
from mlxplain.prakel import MLkNN, FaithfulMLkNN
from mlxplain.repro.prakel import (DATASETS, PARTS, summarize, results_table, paired_comparison, verdict, reproduce,
                                   load_runs, run_split, run_split_csrakel, run_split_onesided, _split_data)

RES = Path(__file__).resolve().parents[1] / "nbs" / "results" / "prakel"


# ---- summaries -------------------------------------------------------------------------------------
def _fake_runs():
    "A tiny runs table: PRAkEL clearly better than RAkEL on d1, clearly worse on d2, tied with BR."
    rows = []
    for d, delta in (("d1", -0.1), ("d2", 0.1), ("d3", -0.05)):
        for r in range(4):
            base = 0.3 + 0.01 * r
            for m, v in (("PRAkEL", base + delta + 0.001 * (r % 2)), ("RAkEL", base),
                         ("BR", base + delta + 0.001 * (r % 2)), ("EPCC", base + 0.2), ("ML-kNN", base + 0.3)):
                rows.append(dict(dataset=d, repeat=r, kind="test", method=m, loss="hamming", value=v))
    return pd.DataFrame(rows)


def test_summarize_verdicts_and_tables(tmp_path):
    out = summarize(_fake_runs(), tmp_path)
    tt = out["ttests"].set_index(["dataset", "other"])
    assert tt.loc[("d1", "RAkEL"), "prakel"] == "superior" and tt.loc[("d1", "RAkEL"), "diff"] < 0
    assert tt.loc[("d2", "RAkEL"), "prakel"] == "inferior" and tt.loc[("d2", "RAkEL"), "diff"] > 0
    assert tt.loc[("d1", "BR"), "prakel"] == "comparable" and tt.loc[("d1", "BR"), "p"] == 1.0
    assert (tt["ref"] == "PRAkEL").all()
    tab = out["tables"].set_index(["dataset", "method"])
    assert np.isclose(tab.loc[("d1", "RAkEL"), "mean"], 0.315) and tab.loc[("d1", "RAkEL"), "n"] == 4
    assert np.isclose(tab.loc[("d1", "RAkEL"), "se"], np.std([0.30, 0.31, 0.32, 0.33], ddof=1) / 2)
    fr = out["friedman"][0]
    assert fr["loss"] == "hamming" and fr["n_datasets"] == 3 and fr["avg_ranks"]["ML-kNN"] == 5.0
    assert all((tmp_path / f).exists() for f in ("tables.csv", "ttests.csv", "friedman.json"))
    t = results_table(out["tables"], "hamming", ["PRAkEL", "RAkEL"])
    assert t.loc["d1", "PRAkEL"].endswith("*") and not t.loc["d1", "RAkEL"].endswith("*")
    assert t.loc["d2", "RAkEL"].endswith("*") and t.loc["d2", "RAkEL"].startswith("0.3150 ± 0.0065")


def test_paired_comparison_matches_scipy_and_counts_wins():
    "Per-set paired t-test and mean difference ± SE over the splits; the verdict counts wins and significant ones."
    from scipy import stats
    runs = _fake_runs()
    cmp = paired_comparison(runs, "hamming", "PRAkEL", "RAkEL").set_index("dataset")
    for d in ("d1", "d2", "d3"):
        g = runs[(runs["dataset"] == d)].pivot(index="repeat", columns="method", values="value")
        diff = g["PRAkEL"] - g["RAkEL"]
        assert np.isclose(cmp.loc[d, "diff"], diff.mean())
        assert np.isclose(cmp.loc[d, "se"], diff.std(ddof=1) / 2)
        assert np.isclose(cmp.loc[d, "p"], stats.ttest_rel(g["PRAkEL"], g["RAkEL"]).pvalue)
    v = verdict(cmp.reset_index())
    assert v["wins"] == "2 of 3" and v["significant"] == "lower on 2, higher on 1" and v["splits"] == "4–4"
    d = cmp["diff"]
    assert v["effect"] == f"{d.mean():+.4f} ± {d.std(ddof=1) / np.sqrt(3):.4f}"


# ---- the reproduce API -----------------------------------------------------------------------------
@pytest.mark.parametrize("kw, names", [(dict(parts=["main", "tables"]), ", ".join(PARTS)),
                                       (dict(parts="table3"), ", ".join(PARTS)),
                                       (dict(datasets=["emotions", "mnist"]), ", ".join(DATASETS))])
def test_reproduce_rejects_unknown_names_writing_nothing(tmp_path, kw, names):
    with pytest.raises(ValueError, match="unknown") as e:
        reproduce(tmp_path / "out", **kw)
    assert names in str(e.value)
    with pytest.raises(TypeError, match="integers"):
        reproduce(tmp_path / "out", seeds=[0.5])
    assert not (tmp_path / "out").exists()


def test_load_runs_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="mlxplain reproduce prakel --parts main,csrakel,onesided"):
        load_runs(tmp_path)
    (tmp_path / "runs.csv").write_text("dataset,repeat,kind,method,loss,value,_cell,_version\n"
                                       "emotions,0,test,PRAkEL,f1,0.3,{},abc\n")
    with pytest.raises(FileNotFoundError, match="--parts csrakel"):
        load_runs(tmp_path, parts=["main", "csrakel"])
    runs = load_runs(tmp_path, parts=["main"])   # any code version: the row is read, provenance columns dropped
    assert list(runs.columns) == ["dataset", "repeat", "kind", "method", "loss", "value"]


# ---- ML-kNN on the reproduction's splits -----------------------------------------------------------
def test_faithful_mlknn_on_emotions_and_yeast(need_data):
    "On the reproduction's splits the two ML-kNNs give different test Hamming losses."
    need_data("emotions", "yeast")
    for d in ("emotions", "yeast"):
        D = _split_data(d, 0)
        lib = hamming_loss(D["Yte"], MLkNN(k=10).fit(D["Xtr"], D["Ytr"]).predict(D["Xte"]))
        ours = hamming_loss(D["Yte"], FaithfulMLkNN(k=10).fit(D["Xtr"], D["Ytr"]).predict(D["Xte"]))
        assert abs(lib - ours) > 1e-3, (d, lib, ours)
        assert ours < 0.25


# ---- the committed result tables still describe the code ------------------------------------------
def test_committed_runs_reproduce(need_data):
    "Split 0 of emotions, re-run with the current code (all three parts), gives the committed values bit for bit."
    need_data("emotions")
    runs = load_runs(RES)
    assert len(runs) == sum(len(pd.read_csv(RES / f)) for f in ("runs.csv", "runs_csrakel.csv", "runs_onesided.csv"))
    new = pd.DataFrame(run_split("emotions", 0) + run_split_csrakel("emotions", 0)
                       + run_split_onesided("emotions", 0, loss="hamming"))
    old = runs[(runs["dataset"] == "emotions") & (runs["repeat"] == 0)]
    both = new.merge(old, on=["kind", "method", "loss"], suffixes=("_new", "_old"))
    assert len(both) == len(new) and len(new) > 60, ("a committed row is missing: rerun "
                                                     "`mlxplain reproduce prakel`", len(both), len(new))
    np.testing.assert_array_equal(both["value_new"], both["value_old"],
                                  err_msg="the committed tables no longer describe the code: rerun "
                                          "`mlxplain reproduce prakel` (and commit nbs/results/prakel)")
