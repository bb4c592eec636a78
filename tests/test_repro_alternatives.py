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
    with pytest.raises(ValueError, match="choose from \\['subset', 'paper', 'confirm'\\]"): reproduce(tmp_path, parts=["full"])
    with pytest.raises(ValueError, match="datasets=.*hepatitis"): reproduce(tmp_path, datasets=["iris"])
    with pytest.raises(ValueError, match="datasets=.*chess"): reproduce(tmp_path, parts="paper", datasets=["iris"])
    with pytest.raises(ValueError, match="datasets="): reproduce(tmp_path, datasets=[])
    with pytest.raises(ValueError, match="seeds=.*0..4"): reproduce(tmp_path, parts=["paper"], seeds=[5])
    with pytest.raises(ValueError, match="seeds="): reproduce(tmp_path, seeds=[True])
    with pytest.raises(ValueError, match="datasets=.*backache"): reproduce(tmp_path, parts="confirm", datasets=["spect"])
    with pytest.raises(ValueError, match="seeds=.*CONFIRM_SPLITS"): reproduce(tmp_path, parts="confirm", seeds=[5])
    with pytest.raises(ValueError, match="seeds=.*SUBSET_SPLITS"): reproduce(tmp_path, seeds=[-1])
    from mlxplain.repro.alternatives import reproduce_paper_slice
    with pytest.raises(ValueError, match="paper_slice=.*unknown"): reproduce_paper_slice(tmp_path, cells=[(7, "MI")])
    assert not list(tmp_path.iterdir())   # nothing written


def test_constants_of_the_api():
    assert PARTS == ("subset", "paper", "confirm") and DEFAULT_PARTS == ("subset",) and set(DEFAULT_PARTS) <= set(PARTS)
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
    assert meta["seeds"] == [25] and meta["design"]["subset"]["datasets"] == QUICK_DATASETS   # random_state 25 + split 0


# a scaled-down paper design: two k, sequential a beyond the simultaneous a, the wrapper's simultaneous search
_SMALL = {"k": [3, 4], "a_max": 1, "a_max_sequential": 2, "a_max_mrmr_simultaneous": 1, "wrapper_max_iters": 3,
          "wrapper_a_max": 2, "wrapper_a_max_simultaneous": 1, "time_limit_per_set_s": 5}


@pytest.fixture(scope="module")
def hepatitis_cell(need_data):
    "One (data set, fold) cell of the small design, run whole; shared, as its mRMR and FCBF estimates take 10 s."
    import pandas as pd
    from mlxplain.repro.alternatives import _repro_cell, PAPER_RUN_DESIGN
    need_data("hepatitis")
    d = {**PAPER_RUN_DESIGN, **_SMALL}
    return d, pd.DataFrame(_repro_cell("hepatitis", 0, design=d))


def test_paper_design_cell_covers_both_k_and_all_searches(hepatitis_cell):
    "A scaled-down paper design (two k, sequential a beyond the simultaneous a, wrapper sim.) yields every search of Section 5."
    _, df = hepatitis_cell
    g = df.groupby(["k", "objective", "search"])
    assert set(df.k) == {3, 4} and g.ngroups == 2 * 19   # 5 objectives x (seq., sim. sum/min) + rep./bal. for MI and Model Gain
    assert (g.tau.nunique().unstack(["objective", "search"]).T == [3, 4]).all().all()   # every tau i/k
    seq = df[df.search == "seq."]
    assert seq.a.max() == 2 and df[df.search != "seq."].a.max() == 1
    assert df.status.isin(["optimal", "feasible", "infeasible", "not solved"]).all()


def _toy(rows):
    "Per-feature-set records from (objective, search, a, tau, qualities of sets 0..a, statuses)."
    import pandas as pd
    return pd.DataFrame([{"dataset": "d", "fold": 0, "k": 5, "n_features": 10, "objective": o, "search": s, "a": a,
                          "tau": t, "set": i, "status": st, "train_objective": q}
                         for o, s, a, t, qs, sts in rows for i, (q, st) in enumerate(zip(qs, sts))])


def _figure4_toy():
    "Two settings (tau 0.2, 1), a in {1, 2}; every set of a run has the same quality; rep. misses a set at tau=1, a=2."
    import numpy as np
    v = {"sim. (min)": lambda a: 0.5 + 0.1 * a, "sim. (sum)": lambda a: 0.7, "bal.": lambda a: 0.5 + 0.05 * a,
         "seq.": lambda a: 0.6, "rep.": lambda a: 0.6 - 0.02 * a}
    return _toy([("MI", s, a, t, [f(a)] * a + [np.nan if (s, t, a) == ("rep.", 1.0, 2) else f(a)], ["optimal"] * (a + 1))
                 for t in (0.2, 1.0) for a in (1, 2) for s, f in v.items()])


def test_figure4_gaps_compare_complete_runs_only():
    "The paper's filter drops the setting with a missing set; the run filter drops only that pair; values by hand."
    from mlxplain.repro.alternatives import figure4_gaps
    g = figure4_gaps(_figure4_toy())
    assert len(g) == 4 and set(g.tau) == {0.2}
    m = g.groupby(["comparison", "a"]).difference.mean()
    assert m[("sim. (min) − bal.", 1)] == pytest.approx(0.05) and m[("sim. (min) − bal.", 2)] == pytest.approx(0.10)
    assert m[("seq. − rep.", 1)] == pytest.approx(0.02) and m[("seq. − rep.", 2)] == pytest.approx(0.04)
    r = figure4_gaps(_figure4_toy(), exclude="run")
    assert len(r) == 7   # the incomplete rep. run never enters with the mean of the two sets it found
    assert r.groupby("comparison").difference.mean()["seq. − rep."] == pytest.approx((0.02 + 0.04 + 0.02) / 3)
    with pytest.raises(ValueError, match="exclude="): figure4_gaps(_figure4_toy(), exclude="pairs")


def test_status_shares_count_one_status_per_run_as_the_paper():
    "One status per run and a (that of set a): shares 50/50 here, where counting feature sets would give 4/5 and 2/5."
    import numpy as np
    from mlxplain.repro.alternatives import status_shares, paper_share_range, PAPER_TABLE3, PAPER_TABLE4
    st = _toy([("MI", "seq.", 1, 0.4, [0.6, 0.5], ["optimal"] * 2),
               ("MI", "seq.", 2, 0.4, [0.6, 0.5, np.nan], ["optimal", "optimal", "infeasible"]),
               ("MI", "sim. (sum)", 1, 0.4, [0.6, 0.5], ["feasible"] * 2),
               ("MI", "sim. (sum)", 2, 0.4, [0.6, 0.5, 0.4], ["optimal"] * 3)])
    sh = status_shares(st).set_index(["search", "status"])
    assert sh.loc[("seq.", "optimal"), "ours"] == 50 and sh.loc[("seq.", "infeasible"), "ours"] == 50
    assert sh.loc[("sim. (sum)", "feasible"), "ours"] == 50 and sh.loc[("seq.", "optimal"), "runs"] == 2
    assert np.allclose(paper_share_range(28.29, 3), [0, 47.15]) and np.allclose(paper_share_range(67.04, 3), [45.0667, 100], atol=1e-3)
    assert np.allclose(paper_share_range(30.0, 5), [30, 30])
    # the paper weighs every a the same: Table 4's mean over a is Table 3's sim. (sum) mean over the objectives
    s3 = PAPER_TABLE3[PAPER_TABLE3.search == "sim. (sum)"]
    assert PAPER_TABLE4.optimal.mean() == pytest.approx(s3.optimal.mean(), abs=0.01)
    assert abs(np.average(PAPER_TABLE4.optimal, weights=PAPER_TABLE4.a + 1) - s3.optimal.mean()) > 1


def test_tables_on_common_ranges():
    "mRMR sim. stopping at a = 1 gets the paper's range on a <= 1; Table 4 marks the rows with the paper's objectives."
    from mlxplain.repro.alternatives import table3_same_a, table4_same_objectives
    rows = [(o, "sim. (sum)", a, 0.4, [0.5] * (a + 1), ["optimal"] * (a + 1))
            for o in ("FCBF", "MI", "Model Gain", "mRMR") for a in range(1, 6) if not (o == "mRMR" and a > 1)]
    t3 = table3_same_a(_toy(rows)).set_index(["objective", "status"])
    assert t3.loc[("mRMR", "optimal"), "a_max"] == 1 and t3.loc[("MI", "optimal"), "a_max"] == 5
    assert list(t3.loc[("mRMR", "optimal"), ["paper_low", "paper_high"]]) == [0, 100]
    assert list(t3.loc[("MI", "optimal"), ["paper_low", "paper_high"]]) == pytest.approx([92.29, 92.29])
    assert t3.loc[("MI", "optimal"), "ours_vs_paper"] == "higher" and t3.loc[("mRMR", "optimal"), "ours_vs_paper"] == "within"
    t4 = table4_same_objectives(_toy(rows)).drop_duplicates("a").set_index("a")
    assert t4.same_objectives.to_dict() == {1: True, 2: False, 3: False, 4: False, 5: False}


def test_heuristic_not_solved_reproduces_the_papers_share():
    "Counts per run and per set by hand; on the paper's 30 feature counts both heuristics fail in 9.20 % of the runs."
    import numpy as np
    from mlxplain.repro.alternatives import heuristic_not_solved
    ht = _toy([("MI", s, a, t, q, st) for s, a, t, q, st in [
        ("bal.", 1, 0.2, [0.5, 0.4], ["feasible"] * 2), ("bal.", 2, 1.0, [np.nan] * 3, ["not solved"] * 3),
        ("rep.", 1, 0.2, [0.5, 0.4], ["feasible"] * 2),
        ("rep.", 2, 1.0, [0.5, 0.3, np.nan], ["feasible", "feasible", "not solved"])]])
    hn = heuristic_not_solved(ht, paper_n={"ten": 10})
    o = hn[hn.data_sets == "ours"].set_index(["search", "a"])
    cols = ["runs", "not_solved_runs", "sets", "not_solved_sets"]
    assert o.loc[("bal.", 2), cols].tolist() == [1, 1, 3, 3] and o.loc[("rep.", 2), cols].tolist() == [1, 1, 3, 1]
    assert o.loc[("bal.", 1), cols].tolist() == [1, 0, 2, 0] and o.rule.tolist() == [False, True, False, True]
    pp = heuristic_not_solved(ht).query("data_sets == 'paper'")
    assert ((pp.not_solved_runs > 0) == pp.rule).all()
    s = pp.groupby("search")[["runs", "not_solved_runs"]].sum()
    assert (100 * s.not_solved_runs / s.runs).round(2).tolist() == [9.2, 9.2]


def test_committed_comparable_tables_match_the_records():
    "The committed figure4/table3_same_a/table4_same_objectives/heuristic_not_solved files are views of records.csv."
    import io
    import pandas as pd
    from mlxplain.repro.alternatives import comparable_tables
    rec = load_results("records")
    for name, table in comparable_tables(rec).items():
        committed = load_results(name)
        assert committed is not None, name
        pd.testing.assert_frame_equal(committed, pd.read_csv(io.StringIO(table.to_csv(index=False))),
                                      check_dtype=False, obj=name)
    hn = load_results("heuristic_not_solved")   # our heuristic runs fail exactly where k + a*ceil(tau*k) > n
    assert ((hn.not_solved_runs > 0) == hn.rule).all()
    from mlxplain.repro.alternatives import PAPER_N_FEATURES, PAPER_DATASETS   # Table 2 = our data's feature counts
    assert set(PAPER_N_FEATURES) == set(PAPER_DATASETS)
    assert all(PAPER_N_FEATURES[d] == n for d, n in rec.groupby("dataset").n_features.first().items())


def test_paper_units_record_their_cost_on_a_tiny_grid(hepatitis_cell):
    "The paper part's (data set, fold, k, objective) units each record their own wall/CPU seconds; a cell sums them."
    import time
    from functools import partial
    import pandas as pd
    from mlxplain.experiments import run_grid
    from mlxplain.repro.alternatives import (_repro_cell, _cell_keys, unit_costs, cell_costs, paper_sizes,
                                             PAPER_RUN_DESIGN)
    assert _cell_keys(PAPER_RUN_DESIGN) == ([5, 10], ["mi", "model_gain", "fcbf", "mrmr", "wrapper"])
    d, whole = hepatitis_cell   # the (data set, fold) cell run whole, every objective
    t0 = time.perf_counter()
    df = run_grid(partial(_repro_cell, design=d), {"dataset": ["hepatitis"], "fold": [0], "k": [3, 4],
                                                   "objective": ["mi", "wrapper"]})
    wall = time.perf_counter() - t0
    assert (df.groupby(["k", "objective"])[["cell_wall_s", "cell_cpu_s"]].nunique() == 1).all().all()
    u = unit_costs(df)
    assert len(u) == 4 and (u.wall_s > 0).all() and (u.cpu_s > 0).all() and u.wall_s.sum() <= wall
    assert (u.solves > 0).all() and set(u.objective) == {"MI", "Greedy Wrapper"}
    key = ["k", "objective", "search", "a", "tau", "set"]
    pd.testing.assert_frame_equal(whole[whole.objective.isin(["MI", "Greedy Wrapper"])][key].reset_index(drop=True),
                                  df[key].reset_index(drop=True))
    assert whole.groupby(["k", "objective"]).cell_wall_s.nunique().eq(1).all() and whole.objective.nunique() == 5
    sizes = paper_sizes(["hepatitis"])
    assert sizes.values.tolist() == [["hepatitis", 155, 19]]
    c = cell_costs(df, {"hepatitis": 155})
    assert c[["dataset", "n_samples", "fold", "k", "units"]].values.tolist() == [["hepatitis", 155, 0, 3, 2], ["hepatitis", 155, 0, 4, 2]]
    assert c.wall_s.tolist() == pytest.approx(u.groupby("k").wall_s.sum().tolist())


def test_lpt_makespan_lies_between_the_bounds():
    "Longest-first is never faster than sum/W or the longest unit, never slower than sum/W + the longest."
    import numpy as np
    from mlxplain.repro.alternatives import lpt_makespan
    rng = np.random.default_rng(0)
    for _ in range(50):
        c, w = rng.exponential(size=rng.integers(1, 40)), int(rng.integers(1, 9))
        m = lpt_makespan(c, w)
        assert max(c.sum() / w, c.max()) - 1e-9 <= m <= c.sum() / w + c.max() + 1e-9
    assert lpt_makespan([4, 3, 3, 2, 2, 2], 3) == 6 and lpt_makespan([2.0], 64) == pytest.approx(2.0, abs=1e-12)


def test_projection_on_toy_units_scales_with_size_and_workers():
    "Twice the rows and features: 4x the non-solver time (8x for mRMR); more workers never take longer."
    import pandas as pd
    from mlxplain.repro.alternatives import project_paper_design
    rows = [dict(dataset="d", fold=0, k=5, n_features=10, objective=o, search=s, a=1, tau=0.2, set=i, status=st,
                 time=t, cell_wall_s=10.0, cell_cpu_s=8.0)   # MI's sim. run stopped without a set, mRMR's with one
            for o, stop in (("MI", "not solved"), ("mRMR", "feasible"))
            for s, st, t in (("seq.", "optimal", 0.5), ("sim. (sum)", stop, 2.0)) for i in (0, 1)]
    sizes = pd.DataFrame({"dataset": ["d", "e"], "n_samples": [50, 100], "n_features": [10, 20]})
    units, summary = project_paper_design(pd.DataFrame(rows), sizes, time_limit=1.0, folds=3, workers=(1, 2, 4, 64))
    m = units[(units.scenario == "measured stops") & (units.k == 5)].set_index(["dataset", "objective"])
    assert set(units.source) == {"measured", "measured at k = 5 x 2", "paper's Table 5"}   # 2 data sets x k 5, 10 x 5
    for o in ("MI", "mRMR"):   # finished solves: their time x CPU/wall 0.8; the stopped run: 2 sets x 1 s
        assert m.loc[("d", o), "solve_s"] == pytest.approx(0.8 * (0.5 + 0.5) + 2 * 1.0)
    assert m.loc[("d", "MI"), "overhead_s"] == pytest.approx(8 - 0.8 * (0.5 + 0.5 + 2.0))
    assert m.loc[("e", "MI"), "overhead_s"] == pytest.approx(4 * m.loc[("d", "MI"), "overhead_s"])
    assert m.loc[("e", "mRMR"), "overhead_s"] == pytest.approx(8 * m.loc[("d", "mRMR"), "overhead_s"])
    for _, s in summary.groupby("scenario"):
        assert s.wall_h.is_monotonic_decreasing and (s.wall_h >= s.bound_h - 1e-12).all()
        assert s.wall_h.iloc[0] == pytest.approx(s.total_cpu_h.iloc[0]) and (s.units == 2 * 2 * 5 * 3).all()
        assert s.wall_h.iloc[-1] == pytest.approx(s.longest_unit_h.iloc[-1])


def test_committed_projection_is_recomputed_from_the_measured_units(need_data):
    """paper_units.csv, paper_cell_costs.csv, the projection tables and the slice costs are what write_projection makes
    of the committed measured units (paper_probe_records.csv); each unit says how it was measured."""
    import io
    import re
    import pandas as pd
    from mlxplain.repro.alternatives import (cell_costs, paper_sizes, project_paper_design, stitch_probes, unit_costs,
                                             paper_slice_costs, PAPER_UNIT, PAPER_SLICE)
    probes = load_results("paper_probe_records")
    assert probes is not None
    need_data(*PAPER_DATASETS)
    same = lambda a, b: pd.testing.assert_frame_equal(a, pd.read_csv(io.StringIO(b.to_csv(index=False))), check_dtype=False)
    how = probes.groupby(PAPER_UNIT, sort=False).measured.first().reset_index()
    assert all(m == "full unit" or re.fullmatch(r"\d+ of \d+ τ, stitched", m) for m in how.measured)
    records, sizes = stitch_probes(probes), paper_sizes()
    same(load_results("paper_units"), unit_costs(records).merge(how, on=PAPER_UNIT))
    same(load_results("paper_cell_costs"), cell_costs(records, dict(zip(sizes.dataset, sizes.n_samples))))
    units, summary = project_paper_design(records, sizes)
    same(load_results("paper_projection"), summary)
    same(load_results("paper_projection_units"), units)
    same(load_results("paper_slice_costs"), paper_slice_costs(units))
    assert summary.groupby("scenario").units.first().eq(30 * 5 * 2 * 5).all()
    sl = load_results("paper_slice_costs").set_index("cells")
    assert sl.units.tolist() == [90, 450, 150, 180] and sl.data_sets.eq(30).all()   # every set before a second fold
    assert sl.index[1] == "k = 5: FCBF, Model Gain, MI" and sl.folds.iloc[1] == "0, 1, 2, 3, 4"   # k = 5 at every fold
    assert sl.index[2] == "k = 5: FCBF, Model Gain, MI; k = 10: FCBF, Model Gain" and len(PAPER_SLICE) == 5


def test_paper_slice_run_grid_is_the_designs(tmp_path, monkeypatch):
    """reproduce_paper_slice() (the part paper of reproduce, restricted) hands run_grid the slice the design names: fold 0
    of all 30 sets, the five (k, objective) cells of PAPER_SLICE, every data set before the next cell."""
    import mlxplain.repro.alternatives as A

    class Sent(Exception): pass
    def fake(func, grid, **kw): raise Sent(grid)
    monkeypatch.setattr(A, "run_grid", fake)
    with pytest.raises(Sent) as e: A.reproduce_paper_slice(tmp_path)
    grid = e.value.args[0]
    assert len(grid) == 150 and {g["fold"] for g in grid} == {0} and {g["dataset"] for g in grid} == set(PAPER_DATASETS)
    cells = list(dict.fromkeys((g["k"], A._OBJ_NAMES[g["objective"]]) for g in grid))
    assert cells == list(A.PAPER_SLICE)   # cheapest first, each over all 30 sets before the next
    assert [g["dataset"] for g in grid[:30]] == PAPER_DATASETS
    with pytest.raises(Sent) as e: A.reproduce(tmp_path, parts=["paper"])
    assert len(e.value.args[0]) == 1500   # without a slice: the whole design


def test_subset_units_are_independent_splits_not_folds_of_one_partition(tmp_path, monkeypatch):
    """The subset part's unit s is fold 0 of the stratified 5-fold partition random_state = s, seeded 25 + s (unit 0: the
    paper's): so says the grid reproduce hands run_grid, the cell, and the committed records; folds 1-4 of a partition
    share its fold 0's training rows and are never units of their own."""
    from types import SimpleNamespace
    import numpy as np
    import mlxplain.repro.alternatives as A

    class Sent(Exception): pass
    def fake(func, grid, **kw): raise Sent(func, grid)
    monkeypatch.setattr(A, "run_grid", fake)
    with pytest.raises(Sent) as e: A.reproduce(tmp_path, parts=["subset"])
    cell, grid = e.value.args
    assert grid == {"split": list(A.SUBSET_SPLITS), "dataset": list(A.REPRO_DATASETS)} and len(A.SUBSET_SPLITS) == 10
    seen = []
    def kfold(ds, n_splits, random_state):
        seen.append(random_state)
        return [(np.arange(8), np.arange(8, 10))] * n_splits
    monkeypatch.setattr(A, "load", lambda name, data_home=None: SimpleNamespace(X=np.zeros((10, 3)), y=np.arange(10) % 2))
    monkeypatch.setattr(A, "kfold", kfold)
    monkeypatch.setattr(A, "_timed_searches", lambda data, base, k, o, taus, D: [dict(base, objective=o, used=D["random_state"])])
    rows = cell(dataset="d", split=3)
    assert seen == [3] and {(r["split"], r["fold"], r["seed"], r["used"]) for r in rows} == {(3, 0, 28, 28)}
    rec = load_results("records")   # the committed units
    meta = load_provenance("subset")
    assert (rec.fold == 0).all() and (rec.seed == 25 + rec.split).all()
    assert rec.groupby("dataset").split.agg(lambda s: sorted(set(s))).map(lambda s: s == meta["splits"]).all()


def test_statement_verdicts_count_independent_splits_not_folds():
    """The paper's statements are tested per data set over its splits: runs of several folds inside one split make one
    unit, so n counts splits (4), never folds (8); the committed verdicts' n is the number of splits of each set."""
    import numpy as np
    import pandas as pd
    from mlxplain.repro.alternatives import sequential_slopes, slope_verdicts, statement_verdicts, UNIT
    rng = np.random.default_rng(0)
    rows = [{"dataset": "d", "split": s, "fold": f, "k": 5, "objective": "MI", "search": "seq.", "a": 5, "tau": t,
             "set": i, "train_objective": 1 - t * i / 10 + rng.normal(0, 0.01), "test_objective": 1 - t * i / 40,
             "test_mcc": 0.5} for s in range(4) for f in range(2) for t in (0.2, 0.6, 1.0) for i in range(6)]
    v = slope_verdicts(sequential_slopes(pd.DataFrame(rows), by=UNIT))
    assert (v.n == 4).all() and (v.estimate < 0).all()
    rec = load_results("records")
    sv = statement_verdicts(load_results("figure4"), rec, load_results("within_runs"), load_results("fig1_mcc"))
    splits = rec.groupby("dataset").split.nunique()
    every = sv[sv.direction == "every run"]
    assert (sv.n <= sv.dataset.map(splits)).all() and (every.n == every.dataset.map(splits)).all() and (splits == 10).all()
    assert sv.p_holm.notna().sum() == sv.p.notna().sum() > 0


def test_claims_table_shows_less_than_as_text():
    "The Results table is HTML: a claim 'a < b' keeps its '< b' (it once read as a tag and vanished)."
    import pandas as pd
    from mlxplain.repro.alternatives import claims_table
    claims = {"claims": [{"id": "c1", "a": "sim. (min)", "b": "sim. (sum)", "direction": "less", "metric": "std"}]}
    verdicts = pd.DataFrame({"claim": ["c1"], "dataset": ["d"], "n_units": [15], "estimate": [-0.04], "se": [0.003],
                             "p_holm": [3.2e-8], "verdict": ["replicated"]})
    t = claims_table(claims, verdicts)
    assert t.claim[0] == '<a href="#c1">sim. (min) &lt; sim. (sum)</a>'
    assert t["d (n = 15 splits)"][0] == "-0.0400 ± 0.0030 (p = 3.2e-08)"


def test_paper_tables_are_the_papers_numbers():
    "paper_*.csv read back in the paper's layout; the former constant names still give them."
    from mlxplain.repro.alternatives import paper_table, PAPER_TABLE5, PAPER_FIG1_MCC, PAPER_N_FEATURES
    t3 = paper_table("table3").set_index(["objective", "search"])
    assert t3.loc[("mRMR", "sim. (sum)"), ["infeasible", "not solved", "feasible", "optimal"]].tolist() == \
        pytest.approx([4.67, 0, 67.04, 28.29], abs=1e-12)
    assert PAPER_TABLE5.set_index("objective").loc["mRMR", "sim. (sum)"] == pytest.approx(189.25, abs=1e-12)
    assert PAPER_FIG1_MCC == pytest.approx({"Model Gain": 0.53, "Greedy Wrapper": 0.53, "MI": 0.47, "mRMR": 0.46,
                                            "FCBF": 0.43}, abs=1e-12)
    assert PAPER_N_FEATURES["clean2"] == 168 and len(PAPER_N_FEATURES) == 30
    with pytest.raises(ValueError, match="table2"): paper_table("table7")


def _split_rows(n_splits, n_seeds, datasets=("d",)):
    "Records of seq. and rep. at a = 5 (tau 0.2 and 0.8): per split an effect shared by its seeds, seq. 0.02 above rep."
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(0)
    rows = []
    for d in datasets:
        for s in range(n_splits):
            shift = rng.normal(0, 0.05)   # what the seeds of one split share
            for f in range(n_seeds):
                for tau in (0.2, 0.8):
                    for search, gap in (("seq.", 0.02), ("rep.", 0.0)):
                        q = 0.5 + shift + gap + rng.normal(0, 0.001)
                        rows += [{"dataset": d, "split": s, "fold": f, "k": 5, "objective": "MI", "search": search,
                                  "a": 5, "tau": tau, "set": i, "train_objective": q, "test_objective": q}
                                 for i in range(6)]
    return pd.DataFrame(rows)


def test_confirm_frame_units_are_splits_not_the_seeds_inside_them():
    """A confirm unit is one independent split: the folds (or seeds) of one split make one unit of the frame, and
    evaluate_claims' n counts splits (4 here), never splits × seeds (20)."""
    from mlxplain.experiments import evaluate_claims, read_claims
    from mlxplain.repro.alternatives import confirm_frame
    claims = read_claims("alternatives")
    frame = confirm_frame(_split_rows(4, 5), claims)
    one = frame[frame.claim == "alternatives-seq-beats-replacement"]
    assert len(one) == 4 * 2 and one.unit.nunique() == 4 and sorted(one.split.unique()) == [0, 1, 2, 3]
    got = evaluate_claims(claims, frame).set_index("claim").loc["alternatives-seq-beats-replacement"]
    assert got.n_units == 4 and got.estimate == pytest.approx(0.02, abs=2e-3)


def test_confirm_refuses_the_forming_sets_and_sets_of_another_kind(tmp_path):
    "The claims were formed on FORMING_SETS: confirm refuses them (and non-binary sets), naming `datasets`; nothing is written."
    from mlxplain.repro.alternatives import FORMING_SETS
    for name in FORMING_SETS:
        with pytest.raises(ValueError, match=f"datasets=.*formed on {name}"):
            reproduce(tmp_path, parts=["confirm"], datasets=[name])
    with pytest.raises(ValueError, match="datasets=.*not binary"): reproduce(tmp_path, parts="confirm", datasets=["emotions"])
    with pytest.raises(ValueError, match="datasets=.*iris"): reproduce(tmp_path, parts="confirm", datasets=["iris"])
    with pytest.raises(ValueError, match="seeds=.*CONFIRM_SPLITS"): reproduce(tmp_path, parts="confirm", seeds=[0])
    assert not list(tmp_path.iterdir())


def test_confirm_runs_on_a_further_set(tmp_path, data_home, monkeypatch):
    """`mlxplain reproduce alternatives --parts confirm --datasets horse_colic` (a staged binary set neither the chapter
    nor its held-out rule uses) runs the claims there and writes the verdict table; quick: one split, and here two taus."""
    import pandas as pd
    from mlxplain import cli
    from mlxplain.data import registry
    from mlxplain.experiments import read_claims, read_meta
    import mlxplain.repro.alternatives as alt
    name = "horse_colic"
    assert name not in alt.CONFIRM_SETS + alt.FORMING_SETS
    if not registry(data_home=data_home).set_index("name").available[name]: pytest.skip(f"{name} is not staged")
    monkeypatch.setattr(alt, "REPRO_DESIGN", {**alt.REPRO_DESIGN, "taus": [0.2, 0.8], "time_limit_per_set_s": 1.0})
    assert cli.main(["reproduce", "alternatives", "--out", str(tmp_path), "--quick", "--parts", "confirm",
                     "--datasets", name, "--data-home", str(data_home)]) == 0
    folder = tmp_path / "quick" / "confirm"
    rows, verdicts = pd.read_csv(folder / "confirm.csv"), pd.read_csv(folder / "confirm_claims.csv")
    assert set(rows.dataset) == {name} and set(rows.split) == {0} and set(rows.seed) == {25}
    claims = read_claims("alternatives")
    assert set(verdicts.claim) == {c["id"] for c in claims["claims"]} and set(verdicts.dataset.dropna()) == {name}
    assert (verdicts.verdict == "inconclusive").all()   # one split, one set: decided by nothing
    assert list(read_meta(folder)["datasets"]) == [name]   # with the file facts of the set


def test_paper_slice_covers_every_data_set_and_its_claims_test_counts_sets():
    """The committed slice of the paper's design: k = 5, FCBF, Model Gain and MI on all 30 data sets at each of its folds
    (every data set before a second fold), every unit once. Across it, a claim's units are the data sets the claims
    never used, one per set, its folds averaged."""
    import pandas as pd
    from mlxplain.experiments import read_claims, evaluate_claims, sets_as_units, results_dir
    from mlxplain.repro.alternatives import confirm_frame, FORMING_SETS, PAPER_UNIT
    rp = load_results("records", part="paper")
    units = rp.drop_duplicates(PAPER_UNIT)
    folds = sorted(units.fold.unique())
    assert folds == list(range(len(folds))) and len(folds) >= 3 and len(units) == 90 * len(folds) and set(units.k) == {5}
    assert units.groupby(["fold", "objective"]).dataset.nunique().eq(30).all() and len(units.objective.unique()) == 3
    assert set(units.dataset) == set(PAPER_DATASETS)
    claims = read_claims("alternatives")
    conf = results_dir("alternatives") / "confirm"
    used = set(FORMING_SETS) | {d for f in (conf / "confirm_claims.csv", conf / "further" / "confirm" / "confirm_claims.csv")
                                for d in pd.read_csv(f).dataset}
    rest = rp[~rp.dataset.isin(used)].assign(split=lambda d: d.fold)
    v = evaluate_claims(claims, sets_as_units(confirm_frame(rest, claims)))
    assert len(v) == len(claims["claims"]) and (v.n_units == 30 - len(used)).all() and len(used) == 10
    assert all(set(d.split("+")) == set(PAPER_DATASETS) - used for d in v.dataset)


def test_paper_statements_on_the_slice_are_tested_across_its_data_sets():
    """The paper design's page judges each statement once across the slice's 30 data sets, one unit per set (not per
    run or per setting), and its saved verdict line says what the files give."""
    import json
    import re
    from pathlib import Path
    from mlxplain.repro.alternatives import statement_verdicts
    f4, rec, w, f1 = (load_results(n, part="paper") for n in ("figure4", "records", "within_runs", "fig1_mcc"))
    sets = lambda d: d.assign(split=d.dataset, dataset="all")   # every data set one unit of one block
    sv = statement_verdicts(*(sets(d) for d in (f4, rec, w)), f1)
    tested = sv[sv.direction != "every run"]
    assert len(sv) == 18 and (tested[tested.figure != "Figure 1(a)"].n == rec.dataset.nunique()).all()
    def page(name, kind):   # a page's markdown: its prose ("source") or what its cells print ("outputs")
        cells = json.loads((Path(__file__).parents[1] / "nbs" / name).read_text())["cells"]
        if kind == "source":
            return " ".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").replace("\n", " ")
        return "".join("".join(o.get("data", {}).get("text/markdown", "")) for c in cells for o in c.get("outputs", []))
    f40, e40 = "40f_alternatives_paper_design.ipynb", "40e_alternatives_runs.ipynb"
    m = re.search(r"(\d+) of (\d+) hold across the (\d+) data sets", page(f40, "outputs"))
    assert m and tuple(map(int, m.groups())) == (int(sv.holds.sum()), len(sv), rec.dataset.nunique())
    ran = sorted(rec.fold.unique())   # the prose names the folds that ran (the introduction and the protocol here, the
    rest = [f for f in range(5) if f not in ran]   # experiments page's claims across sets) and those that did not
    name = lambda fs: f"fold {fs[0]}" if len(fs) == 1 else f"folds {', '.join(map(str, fs[:-1]))} and {fs[-1]}"
    assert page(f40, "source").count(name(ran)) == 2, name(ran)
    assert name(ran) in page("40a_alternatives_experiments.ipynb", "source"), name(ran)
    assert not rest or f"Greedy Wrapper, {name(rest)})" in page(f40, "source"), name(rest)
    said = page(e40, "outputs")   # the runs page's cost line names the folds not run, or none
    assert (f"Greedy Wrapper, and folds {', '.join(map(str, rest))} of" if rest else "Greedy Wrapper: by") in said


@pytest.mark.parametrize("fold", [0, 1, 3])
def test_the_slices_older_rows_are_what_the_current_code_computes(fold, need_data):
    """records_paper.csv holds three code versions' rows (fold 0's run, folds 1-2's, folds 3-4's): a unit of each,
    recomputed by the current code through the paper part's cell function, is identical (test_provenance.py's MIXED)."""
    import numpy as np
    import pandas as pd
    from mlxplain.repro.alternatives import measure_paper_unit
    need_data("spect")
    rp = load_results("records", part="paper")
    old = rp[(rp.dataset == "spect") & (rp.fold == fold) & (rp.k == 5) & (rp.objective == "MI")].reset_index(drop=True)
    new = pd.DataFrame(measure_paper_unit("spect", 5, "mi", fold=fold))
    assert len(old) > 0 and len(new) == len(old)
    for c in ["search", "a", "tau", "set", "status", "features"]:
        assert (old[c].fillna("").astype(str) == new[c].fillna("").astype(str)).all(), c
    for c in ["train_objective", "test_objective", "test_mcc"]:
        assert np.allclose(old[c], new[c].astype(float), equal_nan=True, rtol=0, atol=1e-12), c


def test_paper_statements_average_a_sets_folds_not_count_them():
    """Across the paper's sets each set is one unit whatever its folds: a second fold identical to the first leaves
    every statement's n and estimate as they were (the folds of one partition are not independent units)."""
    import numpy as np
    import pandas as pd
    from mlxplain.repro.alternatives import statement_verdicts, comparable_tables, within_run_stats
    rec = load_results("records", part="paper")
    rec = rec[(rec.fold == 0) & rec.dataset.isin(["backache", "churn", "credit_a", "sonar", "spect", "spectf"])]
    sets = lambda d: d.assign(split=d.dataset, dataset="all")

    def verdicts(r):
        return statement_verdicts(sets(comparable_tables(r)["figure4"]), sets(r), sets(within_run_stats(r)),
                                  summarize(r)["fig1_mcc"])
    one, two = verdicts(rec), verdicts(pd.concat([rec, rec.assign(fold=1)], ignore_index=True))
    assert (one.n == two.n).all(), one.assign(n_two=two.n)[["statement", "n", "n_two"]]
    assert np.allclose(one.estimate, two.estimate, equal_nan=True, atol=1e-12)
    assert (two.runs.dropna() == 2 * one.runs.dropna()).all()   # a count over every run counts both folds' runs
