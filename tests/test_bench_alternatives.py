"""The rule-drawn benchmark's helpers (benchmarks/bench_alternatives.py): the grid, the untimed profile of a row."""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
bench = pytest.importorskip("bench_alternatives")
import mlxplain.alternatives as alt
from mlxplain.alternatives import model as alt_model, search as alt_search


def test_rule_grid_is_the_papers_grid_in_a_seeded_order():
    problems = [("p", 100, 20, None), ("small", 100, 8, None)]  # k = 10 needs more than 10 features
    rows = bench.rule_grid(problems)
    per_k = {5: 5 * (10 + 5 + 5), 10: 10 * (10 + 5 + 5)}  # tau = i/k, a <= 10 sequential, <= 5 simultaneous
    assert len(rows) == per_k[5] + per_k[10] + per_k[5] and len(set(rows)) == len(rows)
    assert rows == bench.rule_grid(problems) and rows != bench.rule_grid(problems, order_seed=1)
    assert sorted(rows) == sorted(bench.rule_grid(problems, order="grid"))


def test_profile_ours_splits_the_time_and_restores_the_solver():
    saved = (alt_model.CpSatModel.solve, alt_search.one_worker_solver, alt_search.solve_model, alt_search._step_search, alt_search._MaxMinWalk.run,
             alt_search._BandSearch.run)
    p = {"kind": "linear", "q": np.random.default_rng(0).random(40), "n": 40}
    prof = bench.profile_ours(p, 6, 0.5, 6, "sequential", "sum", "auto", 10.0,
                              alt.SolverOptions(nodes=0))  # no step search: every step is a CP-SAT solve
    assert (alt_model.CpSatModel.solve, alt_search.one_worker_solver, alt_search.solve_model, alt_search._step_search, alt_search._MaxMinWalk.run,
             alt_search._BandSearch.run) == saved
    assert prof["cpsat_calls"] == 7 and prof["cpsat_s"] > 0 and prof["build_s"] >= 0
    parts = prof["cpsat_s"] + prof["build_s"] + prof["walk_s"] + prof["other_s"]
    assert parts == pytest.approx(prof["profile_total_s"], rel=1e-6) and prof["cause"]


def test_sequential_rows_compare_step_by_step():
    "Each sequential step is the best set given the sets before it, so the first step that differs decides."
    nan = float("nan")
    # alfese's clean2 row (k=5, tau=0.4, a=9) in small: a worse second set, a better third one, a higher sum
    assert bench.compare_steps([1.0, 0.50, 0.10], [1.0, 0.49, 0.30]) == "better"
    assert bench.compare_steps([1.0, 0.49, 0.30], [1.0, 0.50, 0.10]) == "worse"
    assert bench.compare_steps([1.0, 0.5], [1.0, 0.5 * (1 + 1e-8)]) == "equal"  # within 1e-6
    assert bench.compare_steps([1.0, nan], [1.0, 0.2]) == "worse" and bench.compare_steps([1.0, 0.2], [1.0, nan]) == "better"
    assert bench.compare_steps([1.0, nan, nan], [1.0, nan, nan]) == "equal"


def test_sequential_rows_tell_a_tie_from_a_worse_step():
    """After a different set of equal quality, the searches solve other problems: 'tie' where our step is the exact
    optimum for our own earlier sets, 'worse' where it is not; with the same earlier sets the quality decides."""
    nan = float("nan")
    qo, qa = [1.0, 0.5, 0.3], [1.0, 0.5, 0.4]
    sa = [[0, 1], [0, 2], [2, 3]]
    assert bench.compare_steps(qo, qa, so=[[0, 1], [2, 0], [1, 3]], sa=sa, own_best=lambda i: 0.3) == "worse"
    assert bench.compare_steps(qo, qa, so=[[0, 1], [0, 3], [1, 2]], sa=sa, own_best=lambda i: 0.3) == "tie"
    assert bench.compare_steps(qo, qa, so=[[0, 1], [0, 3], [1, 2]], sa=sa, own_best=lambda i: 0.35) == "worse"
    assert bench.compare_steps([1.0, 0.5, nan], qa, so=[[0, 1], [0, 3], None], sa=sa, own_best=lambda i: nan) == "tie"
    assert bench.compare_steps([1.0, 0.5, nan], qa, so=[[0, 1], [0, 3], None], sa=sa, own_best=lambda i: 0.2) == "worse"
    assert bench.compare_steps([1.0, 0.5, 0.5], qa, so=[[0, 1], [0, 3], [1, 2]], sa=sa, own_best=lambda i: 0.5) == "tie"


def test_rule_row_calls_a_tie_of_a_real_sequential_search_a_tie():
    "make_classification d=20 (seed 0), k=10, tau=0.3, a=10: ten features of quality 0, so the searches' sets part at a tie."
    name, _, d, load = next(x for x in bench.rule_problems() if x[0] == "make_classification_d20_s0")
    X, y = load()
    p = {"kind": "linear", "q": bench.mi_qualities(X, y, 0), "n": X.shape[1]}
    r = bench.rule_row(name, d, p, 10, 0.3, 10, "sequential", "sum", "auto", 60, None, 0)
    qo, qa = json.loads(r["ours_set_qualities"]), json.loads(r["alfese_set_qualities"])
    assert bench.compare_steps(qo, qa) == "worse"  # by qualities alone: a lower ninth set
    assert r["ours_vs_alfese"] == "tie"


def test_rule_bench_refuses_to_write_results_of_uncommitted_code(tmp_path, monkeypatch):
    "Rows name the commit they were measured at: with --out, a changed package or benchmark stops the run first."
    import subprocess
    def dirty(cmd, **kw):
        assert cmd[:3] == ["git", "status", "--porcelain"]
        return subprocess.CompletedProcess(cmd, 0, stdout=" M mlxplain/alternatives.py\n", stderr="")
    monkeypatch.setattr(subprocess, "run", dirty)
    monkeypatch.setattr(sys, "argv", ["bench_alternatives.py", "--rule", "--limit", "1", "--out", str(tmp_path / "x.csv")])
    with pytest.raises(SystemExit, match="commit the package and benchmark first"):
        bench.main()
    assert not (tmp_path / "x.csv").exists()


def test_cold_row_times_a_fresh_install_then_a_process_with_its_cache():
    "--cold: the fresh process starts from an empty numba cache, the new-process column reuses that one cache, and the ratios are alfese's same-run times over ours."
    row = {"problem": "random", "d": 12, "k": 3, "tau": 0.5, "a": 1, "search": "simultaneous", "agg": "sum",
           "q": np.random.default_rng(0).random(12).tolist()}
    r = bench.cold_row(row, rounds=1)
    assert r["rounds"] == 1 and r["fresh_cache_files"] == 0 and r["same_cache"]
    assert r["backend"] in ("jit", "aot-v3", "aot-generic") and r["statuses"] == "optimal"
    assert r["ratio_fresh"] == pytest.approx(r["alfese_first_s"] / r["ours_fresh_s"])
    assert r["ratio_newproc"] == pytest.approx(r["alfese_first_s"] / r["ours_newproc_s"])
    assert r["ratio_warm"] == pytest.approx(r["alfese_warm_s"] / r["ours_warm_s"])
    assert 0 < r["ours_warm_s"] and 0 < r["ours_import_s"]


def test_rule_grid_gives_each_objective_its_stated_share():
    "--objectives: the grid once per objective (FCBF, mRMR on d <= 60 only) in one seeded order; 'mi' alone is the old rule."
    problems = [("p", 100, 20, None), ("wide", 100, 80, None)]
    every = bench.rule_grid(problems, objectives=bench.RULE_OBJECTIVES)
    old = bench.rule_grid(problems)
    assert every[0][-1] in bench.RULE_OBJECTIVES and {r[-1] for r in every} == set(bench.RULE_OBJECTIVES)
    assert sorted(r[:-1] for r in every if r[-1] == "mi") == sorted(old)  # each objective: the whole grid ...
    assert not any(r[0] == "wide" for r in every if r[-1] in ("fcbf", "mrmr"))  # ... FCBF, mRMR on d <= 60 only
    some = bench.rule_grid(problems, objectives=("fcbf", "mrmr", "model_gain"))
    assert some == [r for r in every if r[-1] != "mi"]  # a subset keeps the order of the grid with every objective
    shares = bench.objective_shares(problems)
    assert shares["mi"] == shares["model_gain"] == pytest.approx(len(old) / len(every), abs=1e-4)
    assert shares["fcbf"] == shares["mrmr"] == pytest.approx(len(old) / 2 / len(every), abs=1e-4)
    with pytest.raises(ValueError, match="not in"):
        bench.rule_grid(problems, objectives=("wrapper",))


def test_rule_problem_gives_both_tools_the_same_qualities():
    "FCBF's problem carries alfese's inputs (rel, R) and our pairs, from one MI estimate on at most 1,000 rows."
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=60, n_features=8, random_state=0)
    f = bench.rule_problem("fcbf", X, y)
    assert f["kind"] == "fcbf" and f["pairs"] == alt._fcbf_pairs(f["rel"], f["R"])
    assert f["q"] == pytest.approx(f["rel"] / f["rel"].sum())
    m = bench.rule_problem("mrmr", X, y)
    assert m["rel"] == pytest.approx(f["rel"]) and m["R"] == pytest.approx(f["R"])
    assert bench.rule_problem("model_gain", X, y)["q"] == pytest.approx(alt.model_gain_qualities(X, y, 0))
