"Tests for mlxplain.repro.alternatives: the reproduction's design, protocol, tables and argument checks."
import pytest

from mlxplain.repro.alternatives import (PARTS, DEFAULT_PARTS, DATASETS, QUICK_DATASETS, SEEDS, PAPER_DATASETS,
                                         reproduce, summarize, load_results, load_provenance)


def test_summarize_table4_uses_objectives_present_at_every_a():
    rows = []
    for a in range(1, 6):
        for obj in ("MI", "mRMR"):
            if obj == "mRMR" and a > 3:
                continue
            for i in range(a + 1):
                rows.append({"dataset": "d", "fold": 0, "k": 5, "n_features": 20, "objective": obj, "search": "sim. (sum)", "a": a,
                             "tau": 0.4, "set": i, "features": "0 1 2 3 4", "status": "optimal" if obj == "MI" else "feasible",
                             "time": 0.1, "train_objective": 0.5, "test_objective": 0.4, "test_mcc": 0.3})
    import pandas as pd
    t4 = summarize(pd.DataFrame(rows))["table4"]
    assert (t4[t4.status == "optimal"].ours == 100).all() and (t4[t4.status == "feasible"].ours == 0).all()


def test_design_taus():
    "The paper's 'every tau the set size allows' is i/k for i = 1..k; lists pass through; anything else is an error."
    from mlxplain.repro.alternatives import _design_taus
    assert _design_taus("all", 5) == [0.2, 0.4, 0.6, 0.8, 1.0]
    assert _design_taus("all", 10)[:3] == [0.1, 0.2, 0.3] and len(_design_taus("all", 10)) == 10
    assert _design_taus([0.5], 5) == [0.5]
    with pytest.raises(ValueError, match="taus="): _design_taus("some", 5)


def test_reproduce_rejects_unknown_parts_data_sets_and_seeds(tmp_path):
    "Unknown names are ValueErrors that list the valid ones, and nothing is written."
    with pytest.raises(ValueError, match="choose from \\['subset', 'paper'\\]"): reproduce(tmp_path, parts=["full"])
    with pytest.raises(ValueError, match="datasets=.*hepatitis"): reproduce(tmp_path, datasets=["iris"])
    with pytest.raises(ValueError, match="datasets=.*chess"): reproduce(tmp_path, parts="paper", datasets=["iris"])
    with pytest.raises(ValueError, match="datasets="): reproduce(tmp_path, datasets=[])
    with pytest.raises(ValueError, match="seeds=.*0..4"): reproduce(tmp_path, parts=["paper"], seeds=[5])
    with pytest.raises(ValueError, match="seeds="): reproduce(tmp_path, seeds=[True])
    assert not list(tmp_path.iterdir())   # nothing written


def test_constants_of_the_api():
    assert PARTS == ("subset", "paper") and DEFAULT_PARTS == ("subset",) and set(DEFAULT_PARTS) <= set(PARTS)
    assert set(QUICK_DATASETS) <= set(DATASETS) <= set(PAPER_DATASETS) and list(SEEDS) == [0, 1, 2, 3, 4]


def test_loaders_read_the_committed_results_or_say_what_to_run(tmp_path, capsys):
    t3 = load_results("table3")
    assert t3 is not None and {"objective", "search", "status", "paper", "ours", "delta"} <= set(t3.columns)
    assert load_provenance("subset")["k"] == 5
    assert load_results("table3", out_dir=tmp_path) is None and load_provenance("paper", out_dir=tmp_path) is None
    out = capsys.readouterr().out
    assert "mlxplain reproduce alternatives --parts subset" in out and "--parts paper" in out


@pytest.mark.slow
def test_quick_reproduction_writes_tables_and_meta(tmp_path, need_data):
    "The quick run (one data set, one fold: minutes) writes every table and one meta.json under out_dir/quick."
    from mlxplain.experiments import read_meta
    need_data(*QUICK_DATASETS)
    out = reproduce(tmp_path, quick=True)
    q = tmp_path / "quick"
    assert set(out) == {"subset"} and len(out["subset"]) > 0
    for name in ("records", "table3", "table4", "table5", "table6", "fig1_mcc", "within_runs"):
        assert (q / f"{name}.csv").exists(), name
    meta = read_meta(q)
    assert meta["seeds"] == [0] and meta["design"]["subset"]["datasets"] == QUICK_DATASETS


def test_paper_design_cell_covers_both_k_and_all_searches(need_data):
    "A scaled-down paper design (two k, sequential a beyond the simultaneous a, wrapper sim.) yields every search of Section 5."
    import pandas as pd
    from mlxplain.repro.alternatives import _repro_cell, PAPER_RUN_DESIGN
    need_data("hepatitis")
    d = {**PAPER_RUN_DESIGN, "k": [3, 4], "a_max": 1, "a_max_sequential": 2, "a_max_mrmr_simultaneous": 1, "wrapper_max_iters": 3,
         "wrapper_a_max": 2, "wrapper_a_max_simultaneous": 1, "time_limit_per_set_s": 5}
    df = pd.DataFrame(_repro_cell("hepatitis", 0, design=d))
    g = df.groupby(["k", "objective", "search"])
    assert set(df.k) == {3, 4} and g.ngroups == 2 * 19   # 5 objectives x (seq., sim. sum/min) + rep./bal. for MI and Model Gain
    assert (g.tau.nunique().unstack(["objective", "search"]).T == [3, 4]).all().all()   # every tau i/k
    seq = df[df.search == "seq."]
    assert seq.a.max() == 2 and df[df.search != "seq."].a.max() == 1
    assert df.status.isin(["optimal", "feasible", "infeasible", "not solved"]).all()
