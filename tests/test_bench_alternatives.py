"""The rule-drawn benchmark's helpers (benchmarks/bench_alternatives.py): the grid, the untimed profile of a row."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
bench = pytest.importorskip("bench_alternatives")
import mlxplain.alternatives as alt


def test_rule_grid_is_the_papers_grid_in_a_seeded_order():
    problems = [("p", 100, 20, None), ("small", 100, 8, None)]  # k = 10 needs more than 10 features
    rows = bench.rule_grid(problems)
    per_k = {5: 5 * (10 + 5 + 5), 10: 10 * (10 + 5 + 5)}  # tau = i/k, a <= 10 sequential, <= 5 simultaneous
    assert len(rows) == per_k[5] + per_k[10] + per_k[5] and len(set(rows)) == len(rows)
    assert rows == bench.rule_grid(problems) and rows != bench.rule_grid(problems, order_seed=1)
    assert sorted(rows) == sorted(bench.rule_grid(problems, order="grid"))


def test_profile_ours_splits_the_time_and_restores_the_solver():
    saved = (alt._CpSatModel.solve, alt._one_worker, alt._solve_model, alt._step_search, alt._MaxMinWalk.run)
    p = {"kind": "linear", "q": np.random.default_rng(0).random(40), "n": 40}
    prof = bench.profile_ours(p, 6, 0.5, 6, "sequential", "sum", "auto", 10.0,
                              alt.SolverOptions(nodes=0))  # no step search: every step is a CP-SAT solve
    assert (alt._CpSatModel.solve, alt._one_worker, alt._solve_model, alt._step_search, alt._MaxMinWalk.run) == saved
    assert prof["cpsat_calls"] == 7 and prof["cpsat_s"] > 0 and prof["build_s"] >= 0
    parts = prof["cpsat_s"] + prof["build_s"] + prof["walk_s"] + prof["other_s"]
    assert parts == pytest.approx(prof["profile_total_s"], rel=1e-6) and prof["cause"]
