"""Tests for mlxplain.alternatives: definitions, solver search vs alfese, heuristics (paper examples), statuses,
bad input. The reproduction (mlxplain.repro.alternatives) is tested in test_repro_alternatives.py."""
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
from sklearn.datasets import load_breast_cancer

import itertools
import time
from unittest import mock

import mlxplain.alternatives as alt
from mlxplain.alternatives import kernels as alt_kernels, model as alt_model, search as alt_search
from mlxplain.alternatives import (AlternativeFeatureSelector, crosscheck_alfese, dice_dissimilarity, dice_fixed_k_holds,
                                   dice_linear_holds, greedy_balancing, greedy_depth_search, greedy_replacement, max_overlap,
                                   mi_qualities, model_gain_qualities, mrmr_value, solve_alternatives, cpsat_error_bound, greedy_wrapper,
                                   wrapper_mcc, _mrmr_data, _fcbf_pairs, demo, label_specific_alternatives, shared_vs_specific, SolverOptions, tree_mcc)

Q6 = np.array([9, 8, 7, 3, 2, 1.0])


def vec(sets, n=6):
    return [None if s is None else np.isin(np.arange(n), s).astype(int).tolist() for s in sets]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=15), st.data(),
       st.sampled_from([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8, 0.9, 1.0]))
def test_dice_linearisation_equals_set_definition(s1, data, tau):
    s1 = np.array(s1, dtype=int)
    s2 = np.array(data.draw(st.lists(st.booleans(), min_size=len(s1), max_size=len(s1))), dtype=int)
    if s1.sum() + s2.sum() == 0:
        return
    by_sets = dice_dissimilarity(np.flatnonzero(s1), np.flatnonzero(s2)) >= tau - 1e-12
    assert dice_linear_holds(s1, s2, tau) == by_sets


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12), st.data(), st.sampled_from([0.0, 0.2, 0.25, 0.4, 0.5, 0.6, 0.75, 0.8, 1.0]))
def test_fixed_size_constraint_equals_set_definition(n, data, tau):
    k = data.draw(st.integers(1, n))
    a = data.draw(st.permutations(range(n)))[:k]
    b = data.draw(st.permutations(range(n)))[:k]
    v1, v2 = np.isin(np.arange(n), a), np.isin(np.arange(n), b)
    assert dice_fixed_k_holds(v1, v2, k, tau) == (dice_dissimilarity(a, b) >= tau - 1e-12)


def test_max_overlap():
    assert [max_overlap(5, t) for t in (0.2, 0.4, 0.6, 0.8, 1.0)] == [4, 3, 2, 1, 0]
    assert max_overlap(10, 0.3) == 7


def test_paper_examples_heuristics():
    # Example 1
    ex1 = greedy_replacement(np.arange(10, 0, -1.0), 5, 3, 0.4)
    assert [None if s is None else s.tolist() for s in ex1] == [[0, 1, 2, 3, 4], [0, 1, 2, 5, 6], [0, 1, 2, 7, 8], None]
    # Example 2
    assert vec(greedy_replacement(Q6, 2, 2, 0.5)) == [[1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 0, 0], [1, 0, 0, 1, 0, 0]]
    # Example 3
    assert vec(greedy_replacement(Q6, 3, 1, 0.5)) == [[1, 1, 1, 0, 0, 0], [1, 0, 0, 1, 1, 0]]
    # Example 4
    assert vec(greedy_balancing(Q6, 4, 1, 0.5)) == [[1, 1, 1, 0, 0, 1], [1, 1, 0, 1, 1, 0]]
    # Example 7
    assert vec(greedy_depth_search(Q6, 4, 2, 0.5)) == [[1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 1, 1]]
    # Example 8
    q8 = np.array([9, 8, 7, 1.0])
    ds = greedy_depth_search(q8, 2, 3, 0.5)
    assert vec(ds, 4) == [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0]]
    assert [q8[s].sum() for s in ds] == [17, 16, 10, 15]


@pytest.mark.parametrize("solver,formulation", [("cpsat", "paper"), ("cpsat", "fast"), ("scip", "paper")])
def test_paper_examples_exact(solver, formulation):
    p = {"kind": "linear", "q": Q6, "n": 6}
    kw = dict(solver=solver, formulation=formulation)
    # Example 2: exact 48 (sequential and simultaneous)
    for agg in ("sum", "min"):
        sets, status, _ = solve_alternatives(p, 2, 0.5, n_sets=3, aggregation=agg, **kw)
        assert status == "optimal" and sum(Q6[s].sum() for s in sets) == 48
    # Example 3: min-aggregation 19
    sets, _, _ = solve_alternatives(p, 3, 0.5, n_sets=2, aggregation="min", **kw)
    assert min(Q6[s].sum() for s in sets) == 19
    # Example 5: sequential 24 + 14 + 12 = 50, simultaneous sum 54
    seq = []
    for _ in range(3):
        seq.append(solve_alternatives(p, 3, 0.5, fixed_sets=seq, solver=solver)[0][0])
    assert [Q6[s].sum() for s in seq] == [24, 14, 12]
    sets, _, _ = solve_alternatives(p, 3, 0.5, n_sets=3, **kw)
    assert sum(Q6[s].sum() for s in sets) == 54
    # Example 6: min 22
    q = np.array([11, 10, 6, 5, 4, 1.0])
    sets, _, _ = solve_alternatives({"kind": "linear", "q": q, "n": 6}, 3, 0.5, n_sets=2, aggregation="min", **kw)
    assert min(q[s].sum() for s in sets) == 22


@pytest.fixture(scope="module")
def bc():
    return load_breast_cancer(return_X_y=True)


def test_crosscheck_alfese_univariate(bc):
    X, y = bc
    problems = {"bc-MI": {"kind": "linear", "q": mi_qualities(X, y, 0), "n": 30},
                "random-15": {"kind": "linear", "q": np.random.default_rng(7).random(15), "n": 15}}
    settings_ = [(5, 0.4, 3, "sequential", "sum"), (5, 0.2, 4, "sequential", "sum"), (3, 0.6, 2, "simultaneous", "sum"),
                 (3, 0.6, 2, "simultaneous", "min"), (4, 0.5, 2, "simultaneous", "sum"), (3, 1.0, 2, "simultaneous", "min")]
    for solver, form in (("cpsat", "paper"), ("cpsat", "fast"), ("scip", "paper")):
        t = crosscheck_alfese(problems, settings_, solver=solver, formulation=form)
        assert t["same_status"].all() and t["both_optimal"].all()
        assert (t["rel_diff"] <= 1e-6).all(), t


def test_crosscheck_alfese_mrmr_fcbf(bc):
    X, y = bc
    rel, R = _mrmr_data(X[:250, :8], y[:250], 0)
    rel12, R12 = _mrmr_data(X[:250, :12], y[:250], 0)
    problems = {"mrmr": {"kind": "mrmr", "rel": rel, "R": R, "n": 8},
                "fcbf": {"kind": "fcbf", "q": rel12 / rel12.sum(), "rel": rel12, "R": R12, "pairs": _fcbf_pairs(rel12, R12), "n": 12}}
    t = crosscheck_alfese(problems, [(4, 0.5, 2, "sequential", "sum"), (3, 0.6, 1, "simultaneous", "sum"), (3, 0.6, 1, "simultaneous", "min"),
                                     (4, 1.0, 2, "sequential", "sum")])
    assert t["same_status"].all(), t
    assert t["both_optimal"].sum() >= 4
    assert (t["rel_diff"].dropna() <= 1e-6).all(), t


def test_estimator_sequential_continuation_and_determinism(bc):
    X, y = bc
    sel = AlternativeFeatureSelector(objective="mi", k=5, n_alternatives=2, tau=0.4, random_state=0).fit(X, y)
    nxt = sel.next_alternative()
    longer = AlternativeFeatureSelector(objective="mi", k=5, n_alternatives=3, tau=0.4, random_state=0).fit(X, y)
    assert nxt.tolist() == longer.feature_sets_[-1].tolist()
    assert sel.results_["features"].tolist() == longer.results_["features"].tolist()
    for i, a in enumerate(sel.feature_sets_):
        for b in sel.feature_sets_[:i]:
            assert dice_dissimilarity(a, b) >= 0.4
    assert set(sel.results_.columns) >= {"set", "features", "quality", "status", "time"}


def test_other_objectives_run(bc):
    X, y = bc
    Xs, ys = X[:200, :10], y[:200]
    for obj in ("model_gain", "mrmr", "fcbf"):
        sel = AlternativeFeatureSelector(objective=obj, k=3, n_alternatives=1, tau=0.5, random_state=0, time_limit=20).fit(Xs, ys)
        assert all(s in ("optimal", "feasible", "infeasible", "not solved") for s in sel.statuses_)
        assert len(sel.score_sets(X[200:300, :10], y[200:300])) == 2
    w = AlternativeFeatureSelector(objective="wrapper", k=3, n_alternatives=1, tau=0.5, max_iters=15, random_state=0).fit(Xs, ys)
    assert w.statuses_ == ["feasible", "feasible"] and dice_dissimilarity(*w.feature_sets_) >= 0.5
    w2 = AlternativeFeatureSelector(objective="wrapper", k=3, n_alternatives=1, tau=0.5, max_iters=15, search="simultaneous",
                                    aggregation="min", random_state=0).fit(Xs, ys)
    assert dice_dissimilarity(*w2.feature_sets_) >= 0.5


def test_user_constraints_and_preselection():
    rng = np.random.default_rng(0)
    q = rng.random(20)
    for search in ("sequential", "simultaneous"):
        for solver in ("cpsat", "scip"):
            sel = AlternativeFeatureSelector(objective=q, k=4, n_alternatives=2, tau=0.5, search=search, solver=solver,
                                             must_select=[3], must_not_select=[int(np.argmax(q))]).fit()
            assert all(3 in s and int(np.argmax(q)) not in s for s in sel.feature_sets_)
    for agg in ("sum", "min"):
        full = AlternativeFeatureSelector(objective=q, k=4, n_alternatives=3, tau=0.5, search="simultaneous", aggregation=agg).fit()
        pre = AlternativeFeatureSelector(objective=q, k=4, n_alternatives=3, tau=0.5, search="simultaneous", aggregation=agg,
                                         preselect=True, formulation="fast").fit()
        f = sum if agg == "sum" else min
        assert abs(f(full.qualities_) - f(pre.qualities_)) <= 1e-6


def test_infeasible_and_timeouts_are_statuses():
    q = np.linspace(1, 0.1, 12)
    s = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=1.0).fit()
    assert s.statuses_ == ["optimal", "optimal", "infeasible", "infeasible"]
    assert s.feature_sets_[2] is None and np.isnan(s.qualities_[3])
    for solver in ("cpsat", "scip"):
        s = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=1.0, search="simultaneous", solver=solver).fit()
        assert s.statuses_ == ["infeasible"] * 4
    assert AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=1.0, method="greedy_balancing").fit().statuses_ == ["not solved"] * 4
    r = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=1.0, method="greedy_replacement").fit()
    assert r.statuses_ == ["feasible", "feasible", "not solved", "not solved"]
    # tau=0.5: the search without a limit takes about 15 ms, 25 times the 0.6 ms allowed here (at tau=0.3 the
    # walk alone can finish within it on a fast machine)
    to = AlternativeFeatureSelector(objective=np.random.default_rng(0).random(60), k=10, n_alternatives=5, tau=0.5,
                                    search="simultaneous", aggregation="min", time_limit=1e-4).fit()
    assert to.statuses_[0] in ("not solved", "feasible")


@pytest.mark.parametrize("kw,msg", [(dict(tau=1.5), "tau"), (dict(tau=-0.2), "tau"), (dict(k=31), "k=31"), (dict(k=0), "k=0"),
                                    (dict(n_alternatives=-1), "n_alternatives"), (dict(objective="relief"), "objective"),
                                    (dict(search="greedy"), "search"), (dict(aggregation="mean"), "aggregation"),
                                    (dict(solver="gurobi"), "solver"), (dict(formulation="fast", solver="scip"), "fast"),
                                    (dict(objective="mrmr", method="greedy_replacement"), "univariate"),
                                    (dict(must_select=[40]), "must_select")])
def test_bad_input(bc, kw, msg):
    X, y = bc
    with pytest.raises(ValueError, match=msg):
        AlternativeFeatureSelector(**kw).fit(X, y)


def test_nan_input(bc):
    X, y = bc
    Xn = X.copy(); Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        AlternativeFeatureSelector().fit(Xn, y)
    with pytest.raises(ValueError, match="NaN"):
        AlternativeFeatureSelector(objective=np.array([0.1, np.nan, 0.3]), k=1).fit()


def test_multilabel_views():
    scores = np.random.default_rng(0).random((3, 12))
    t = label_specific_alternatives(scores, k=3, n_alternatives=1, tau=1.0)
    assert set(t.label) == {"label_0", "label_1", "label_2", "shared"} and len(t) == 8
    v = shared_vs_specific(t, scores)
    assert len(v) == 3 and (v.kept_by_shared_original <= 1 + 1e-12).all()


def test_demo(tmp_path):
    out = demo(tmp_path)
    assert out["all_signal_sets"] == 3 and (tmp_path / "alternatives_demo.png").exists()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(3, 0.34), (3, 0.67), (4, 0.25), (4, 0.5), (4, 0.75), (3, 1.0)]), st.integers(1, 3),
       st.sampled_from(["sum", "min"]))
def test_fast_formulation_equals_paper_formulation(seed, k_tau, a, agg):
    k, tau = k_tau
    q = np.random.default_rng(seed).random(11)
    p = {"kind": "linear", "q": q, "n": 11}
    f = sum if agg == "sum" else min
    s1, st1, _ = solve_alternatives(p, k, tau, a + 1, aggregation=agg, solver="scip", formulation="paper", time_limit=None)
    s2, st2, _ = solve_alternatives(p, k, tau, a + 1, aggregation=agg, formulation="fast", preselect=True, time_limit=None)
    assert st1 == st2
    if st1 == "optimal":
        assert abs(f(q[s].sum() for s in s1) - f(q[s].sum() for s in s2)) <= 1e-6
        for i in range(len(s2)):
            assert len(s2[i]) == k and all(len(set(s2[i]) & set(s2[j])) <= max_overlap(k, tau) for j in range(i))


def test_sparse_input(bc):
    import scipy.sparse as sp
    X, y = bc
    Xs = sp.csr_matrix(np.round(X[:200, :12]))
    for obj in ("mi", "model_gain"):
        sel = AlternativeFeatureSelector(objective=obj, k=3, n_alternatives=1, tau=0.5, random_state=0).fit(Xs, y[:200])
        assert all(s in ("optimal", "infeasible") for s in sel.statuses_)


# ---- solver robustness -------------------------------------------------------------------------------------------

def _best_tuple(v, C, n_sets, ov, agg):
    """Exhaustive branch and bound over n_sets of the candidate sets C (values v, sorted decreasing), pairwise
    overlap <= ov: the largest sum or minimum of their values, -inf if none. Cross-checked by plain enumeration."""
    best = -np.inf
    def rec(start, chosen, total):
        nonlocal best
        if len(chosen) == n_sets:
            best = max(best, total)
            return
        for i in range(start, len(C)):  # later candidates are worth at most v[i] each
            bound = total + (n_sets - len(chosen)) * v[i] if agg == "sum" else min(total, v[i])
            if bound <= best: return
            if all(len(set(C[i]) & set(C[j])) <= ov for j in chosen):
                rec(i + 1, chosen + [i], total + v[i] if agg == "sum" else min(total, v[i]))
    rec(0, [], 0.0 if agg == "sum" else np.inf)
    return best


def brute(value, n, k, tau, n_sets, agg):
    "Exact optimum over all n_sets-tuples of k-subsets (small problems), by branch and bound."
    C = sorted(itertools.combinations(range(n), k), key=lambda F: -value(list(F)))
    return _best_tuple([value(list(F)) for F in C], C, n_sets, max_overlap(k, tau), agg)


@pytest.mark.parametrize("scale", [1e-12, 1.0, 1e12])
@pytest.mark.parametrize("precision", [None, 2])
def test_cpsat_relative_scaling_within_bound(scale, precision):
    rng = np.random.default_rng(int(np.log10(scale)) + 20)
    for _ in range(2):
        q = rng.random(8) * scale
        p = {"kind": "linear", "q": q, "n": 8}
        for agg in ("sum", "min"):
            best = brute(lambda s: q[s].sum(), 8, 3, 0.5, 3, agg)
            for form in ("paper", "fast"):
                sets, status, _ = solve_alternatives(p, 3, 0.5, 3, (), agg, "cpsat", form, None, precision=precision)
                got = (sum if agg == "sum" else min)(q[s].sum() for s in sets)
                assert status == "optimal"
                assert -1e-12 * best <= best - got <= cpsat_error_bound(p, 3, 3, agg, precision, form) + 1e-12 * best


def test_cpsat_tiny_qualities_pick_the_best_feature():
    q = np.array([1e-12, 3e-12, 2e-12, 5e-13])
    s = AlternativeFeatureSelector(objective=q, k=1, n_alternatives=1, tau=1.0).fit()
    assert [f.tolist() for f in s.feature_sets_] == [[1], [2]] and s.statuses_ == ["optimal", "optimal"]
    big = AlternativeFeatureSelector(objective=q * 1e24, k=1, n_alternatives=1, tau=1.0).fit()
    assert [f.tolist() for f in big.feature_sets_] == [[1], [2]]


def test_cpsat_precision_overflow_raises():
    p = {"kind": "linear", "q": np.random.default_rng(0).random(10), "n": 10}
    with pytest.raises(ValueError, match="2\\*\\*31-1"):
        solve_alternatives(p, 5, 0.4, 2, (), "min", precision=9)
    with pytest.raises(ValueError, match="precision"):
        AlternativeFeatureSelector(objective=p["q"], k=3, precision=12).fit()
    with pytest.raises(ValueError, match=r"precision=-1: precision must be an integer in \[0, 9\]"):
        solve_alternatives(p, 3, 0.5, 1, precision=-1)


def test_mrmr_default_precision_exact_and_unguarded_failure(bc):
    X, y = bc
    rel, R = _mrmr_data(X[:250, 3:11], y[:250])
    p = {"kind": "mrmr", "rel": rel, "R": R, "n": 8}
    for agg in ("sum", "min"):
        best = brute(lambda s: mrmr_value(s, rel, R), 8, 3, 0.6, 2, agg)
        for form in ("paper", "fast"):
            sets, st, _ = solve_alternatives(p, 3, 0.6, 2, (), agg, "cpsat", form, None)
            got = (sum if agg == "sum" else min)(mrmr_value(s, rel, R) for s in sets)
            assert st == "optimal" and 0 <= best - got <= cpsat_error_bound(p, 3, 2, agg, None, form) + 1e-12
    import ortools
    best = brute(lambda s: mrmr_value(s, rel, R), 8, 3, 0.6, 2, "sum")
    inclusion_on = (("presolve_inclusion_work_limit", 100_000_000),)
    for opts, wrong in [(SolverOptions(int_max=2**62), False),  # big-M near 4e9, inclusion presolve off: exact
                        (SolverOptions(cpsat_params=inclusion_on), False),  # integers below 2**31, inclusion on: exact
                        (SolverOptions(int_max=2**62, cpsat_params=inclusion_on), True)]:  # both: CP-SAT 9.15 fails
        sets, st, _ = solve_alternatives(p, 3, 0.6, 2, (), "sum", "cpsat", "paper", None,
                                         precision=9 if opts.int_max > 2**31 else None, options=opts)
        gap = best - sum(mrmr_value(s, rel, R) for s in sets)
        assert st == "optimal"
        if not wrong: assert 0 <= gap <= cpsat_error_bound(p, 3, 2, "sum", 9 if opts.int_max > 2**31 else None, "paper", opts) + 1e-12
        elif ortools.__version__ == "9.15.6755": assert gap > 0.01  # why both safeguards exist


def test_invalid_cpsat_model_raises():
    m, S, _ = solve_alternatives({"kind": "linear", "q": np.arange(1.0, 7.0), "n": 6}, 2, 0.5, 2, return_model=True)
    m.m.new_int_var(3, 1, "empty")
    with pytest.raises(RuntimeError, match="invalid"):
        m.solve()


def test_scip_gap_zero_is_exact_and_default_gap_is_not():
    from ortools.linear_solver import pywraplp
    rng = np.random.default_rng(0)
    wrong = {0.0: 0, 1e-4: 0}
    for _ in range(8):
        q = 1 + 1e-5 * rng.random(10)
        p = {"kind": "linear", "q": q, "n": 10}
        for agg in ("sum", "min"):
            best = brute(lambda s: q[s].sum(), 10, 3, 0.5, 2, agg)
            for gap in wrong:
                m, S, _ = solve_alternatives(p, 3, 0.5, 2, (), agg, "scip", time_limit=None, return_model=True)
                m.params.SetDoubleParam(pywraplp.MPSolverParameters.RELATIVE_MIP_GAP, gap)
                assert m.solve() == "optimal"
                sets = [np.flatnonzero([m.val(v) > 0.5 for v in s]) for s in S]
                wrong[gap] += best - (sum if agg == "sum" else min)(q[s].sum() for s in sets) > 1e-12
    assert wrong[0.0] == 0 and wrong[1e-4] > 0
    # the estimator's default SCIP search is exact on such near ties
    q = 1 + 1e-5 * np.random.default_rng(3).random(10)
    s = AlternativeFeatureSelector(objective=q, k=3, n_alternatives=1, tau=0.5, search="simultaneous", solver="scip").fit()
    assert abs(sum(s.qualities_) - brute(lambda f: q[f].sum(), 10, 3, 0.5, 2, "sum")) <= 1e-12


def test_scip_sub_millisecond_time_limit_still_limits():
    t0 = time.perf_counter()
    _, st, _ = solve_alternatives({"kind": "linear", "q": np.random.default_rng(0).random(60), "n": 60}, 10, 0.3, 6, (), "min", "scip",
                                  time_limit=1e-5)
    assert time.perf_counter() - t0 < 20 and st in ("not solved", "feasible")


def test_greedy_depth_search_cap_and_statuses():
    sets, st = greedy_depth_search(np.arange(8.0), 3, 3, 1.0, return_statuses=True)
    assert st == ["feasible", "feasible", "infeasible", "infeasible"] and sets[2] is None
    t0 = time.perf_counter()
    sets, st = greedy_depth_search(np.arange(40.0), 5, 8, 1.0, max_iters=2000, return_statuses=True)  # C(40, 5) = 658008 subsets
    # 40 features hold at most 8 disjoint sets of 5 (Johnson's bound): the ninth is infeasible, the cap stops the rest
    assert st == ["feasible"] + ["not solved"] * 7 + ["infeasible"] and time.perf_counter() - t0 < 2
    assert greedy_depth_search(np.arange(40.0), 5, 8, 1.0, max_iters=None, time_limit=0.0, return_statuses=True)[1] == ["not solved"] * 8 + ["infeasible"]
    s = AlternativeFeatureSelector(objective=np.arange(40.0), k=5, n_alternatives=8, tau=1.0, method="greedy_depth", time_limit=0.01).fit()
    assert s.statuses_[0] in ("feasible", "not solved") and "not solved" in s.statuses_
    s = AlternativeFeatureSelector(objective=np.arange(8.0), k=3, n_alternatives=3, tau=1.0, method="greedy_depth").fit()
    assert s.statuses_ == ["feasible", "feasible", "infeasible", "infeasible"]


# ---- tests of the model itself ------------------------------------------------------------------------------------

@pytest.mark.parametrize("solver,formulation", [("cpsat", "paper"), ("cpsat", "fast"), ("scip", "paper")])
def test_dice_constraints_in_solver_model_equal_set_definition(solver, formulation):
    rng = np.random.default_rng({"paper": 1, "fast": 2}[formulation] + (10 if solver == "scip" else 0))
    seen = {True: 0, False: 0}
    for _ in range(60):
        n = int(rng.integers(3, 10)); k = int(rng.integers(1, n + 1)); n_sets = int(rng.integers(2, 4))
        tau = float(rng.choice([0, .2, 1 / 3, .4, .5, .6, 2 / 3, .8, 1, rng.random()]))
        q = rng.random(n)
        fix = sorted([np.sort(rng.permutation(n)[:k]) for _ in range(n_sets)], key=lambda f: -q[f].sum())  # fast: sets ordered by quality
        m, S, _ = solve_alternatives({"kind": "linear", "q": q, "n": n}, k, tau, n_sets, solver=solver, formulation=formulation,
                                     time_limit=None, return_model=True)
        for s, f in zip(S, fix):
            for i in range(n):
                m.add(s[i] == int(i in f))
        by_sets = all(dice_dissimilarity(a, b) >= tau - 1e-12 for a, b in itertools.combinations(fix, 2))
        assert m.solve() == ("optimal" if by_sets else "infeasible")
        seen[by_sets] += 1
    assert min(seen.values()) >= 15


def test_dice_linear_holds_rejects_non_binary():
    with pytest.raises(ValueError, match="0/1"):
        dice_linear_holds([0, 2, 1], [1, 1, 0], 0.5)


def test_model_gain_is_entropy_tree_importance():
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = (X[:, 0] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=300) > 0).astype(int)
    t = DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y).tree_
    p = t.value[:, 0, :] / t.value[:, 0, :].sum(1, keepdims=True)
    H = -(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0)).sum(1)
    w, imp = t.weighted_n_node_samples, np.zeros(6)
    for i in np.flatnonzero(t.children_left >= 0):
        left, right = t.children_left[i], t.children_right[i]
        imp[t.feature[i]] += w[i] * H[i] - w[left] * H[left] - w[right] * H[right]
    np.testing.assert_allclose(model_gain_qualities(X, y, 0), imp / imp.sum(), atol=1e-10)


def test_mi_matches_alfese_and_is_deterministic(bc):
    import pandas as pd
    from alfese import alfese as af
    X, y = bc
    Xs, ys = X[:200, :8], y[:200]
    np.testing.assert_allclose(mi_qualities(Xs, ys), af.MISelector().compute_qualities(pd.DataFrame(Xs), pd.Series(ys)), atol=1e-12)
    np.testing.assert_allclose(model_gain_qualities(Xs, ys), af.ModelImportanceSelector().compute_qualities(pd.DataFrame(Xs), pd.Series(ys)),
                               atol=1e-12)
    a = AlternativeFeatureSelector(objective="mi", k=3, n_alternatives=1).fit(Xs, ys)
    b = AlternativeFeatureSelector(objective="mi", k=3, n_alternatives=1).fit(Xs, ys)
    assert a.results_["features"].tolist() == b.results_["features"].tolist() and a.qualities_ == b.qualities_
    c = AlternativeFeatureSelector(objective="mi", k=3, n_alternatives=1, mi_estimator="classif").fit(Xs, ys)
    assert np.isfinite(c.qualities_).all()
    with pytest.raises(ValueError, match="mi_estimator"):
        AlternativeFeatureSelector(mi_estimator="knn").fit(Xs, ys)


@pytest.mark.parametrize("agg", ["sum", "min"])
def test_greedy_wrapper_improves_on_start_and_respects_max_iters(bc, agg):
    X, y = bc
    Xw, yw = X[:250, :12], y[:250]
    f = sum if agg == "sum" else min
    s0, q0, _, _, it0 = greedy_wrapper(Xw, yw, 3, 0.5, n_sets=2, aggregation=agg, max_iters=1, random_state=0)
    assert it0 == 1
    s, qv, st, _, it = greedy_wrapper(Xw, yw, 3, 0.5, n_sets=2, aggregation=agg, max_iters=40, random_state=0)
    assert it <= 40 and st == "feasible" and f(qv) > f(q0)
    np.testing.assert_allclose(qv, [wrapper_mcc(Xw, yw, x, 0) for x in s])
    assert dice_dissimilarity(*s) >= 0.5 and all(len(x) == 3 for x in s)


# ---- exact max-min search and count realisation (formulation='fast') ----------------------------------------------

@pytest.mark.parametrize("n,k", [(7, 3), (9, 4), (6, 1)])
def test_top_subsets_enumerates_every_subset_in_quality_order(n, k):
    c = sorted(np.random.default_rng(n).integers(0, 5, n).tolist(), reverse=True)  # many ties
    out = list(alt_search._top_subsets(c, k))
    assert sorted(I for _, I in out) == list(itertools.combinations(range(n), k))
    assert all(v == sum(c[i] for i in I) for v, I in out)
    assert all(out[i][0] >= out[i + 1][0] for i in range(len(out) - 1))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.sampled_from([(5, 2), (6, 2), (6, 3), (7, 2)]), st.booleans())
def test_sum_bound_is_an_upper_bound_on_the_max_min_optimum(seed, n_sets, n_k, ties):
    "The weakest set is worth at most the sum-aggregation optimum / n_sets: closed forms (2-3 sets), counts (4-5)."
    (n, k), rng = n_k, np.random.default_rng(seed)
    q = np.sort(rng.integers(1, 4, n).astype(float) if ties else rng.random(n))[::-1]  # ties: balanced optima
    scale = 1.0 if ties else 1e6
    c = [int(round(x * scale)) for x in q]
    for tau in (0.0, 0.5, 1.0):
        ov = max_overlap(k, tau)
        best = max((min(sum(c[j] for j in S) for S in T)
                    for T in itertools.combinations(itertools.combinations(range(n), k), n_sets)
                    if all(len(set(A) & set(B)) <= ov for A, B in itertools.combinations(T, 2))), default=None)
        ub, feasible, _ = alt_search._min_ub_by_sum(q, c, scale, k, tau, n_sets, None, 0, SolverOptions())
        assert feasible == ("infeasible" if best is None else "feasible")
        if best is not None: assert best <= ub


@pytest.mark.parametrize("n_sets", [3, 4, 5])
def test_sum_bound_allows_for_the_models_rounding(n_sets):
    "Every quality rounds up by half a unit in the model's integers: the bound must still hold there."
    k, scale = 2, 1e3
    q = np.full(k * n_sets, 1000.501 / scale)
    c = [int(round(x * scale)) for x in q]  # 1001 each: the weakest of the disjoint sets is worth 2002
    ub, feasible, _ = alt_search._min_ub_by_sum(q, c, scale, k, 1.0, n_sets, None, 0, SolverOptions())
    assert feasible == "feasible" and ub >= 2002


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(3, 0.34), (3, 0.67), (3, 1.0), (4, 0.5), (4, 0.75)]), st.integers(1, 2),
       st.booleans())
def test_max_min_search_equals_brute_force_and_cpsat_fallback(seed, k_tau, a, ties):
    k, tau = k_tau
    rng = np.random.default_rng(seed)
    q = rng.integers(1, 4, 9).astype(float) if ties else rng.random(9)
    p = {"kind": "linear", "q": q, "n": 9}
    best = brute(lambda s: q[s].sum(), 9, k, tau, a + 1, "min")
    s1, st1, _ = solve_alternatives(p, k, tau, a + 1, aggregation="min", formulation="fast", time_limit=None)
    s2, st2, _ = solve_alternatives(p, k, tau, a + 1, aggregation="min", formulation="fast", time_limit=None,
                                    options=SolverOptions(nodes=3, nodes_disjoint=3))  # the give-up path: CP-SAT + bound
    if best == -np.inf:
        assert st1 == st2 == "infeasible"
        return
    assert st1 == st2 == "optimal"
    for sets in (s1, s2):
        assert abs(min(q[s].sum() for s in sets) - best) <= 1e-6 * max(1, abs(best))
        assert all(len(s) == k for s in sets)
        assert all(len(set(sets[i]) & set(sets[j])) <= max_overlap(k, tau) for i in range(len(sets)) for j in range(i))


def test_max_min_search_deadline_is_a_status():
    q = np.random.default_rng(0).random(40)
    sets, st_, _ = solve_alternatives({"kind": "linear", "q": q, "n": 40}, 5, 0.8, 6, aggregation="min", formulation="fast",
                                      time_limit=1e-4)
    assert st_ in ("not solved", "feasible") and (st_ == "feasible" or sets == [None] * 6)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(0, 2))
def test_count_realisation_backtracking_agrees_with_cpsat(seed, n_sets, ov):
    k, rng = 3, np.random.default_rng(seed)
    c = np.zeros(9, int)
    for _ in range(n_sets * k):  # a random count vector with sum n_sets * k and entries <= n_sets
        c[rng.choice(np.flatnonzero(c < n_sets))] += 1
    sets, how = alt_search._realize_counts_dfs(c.tolist(), k, n_sets, ov)
    ref, how_ref = alt_search._realize_counts(c.tolist(), k, n_sets, ov, None, 0)
    assert how in ("found", "infeasible") and (how == "found") == (how_ref == "found")
    if sets is not None:
        assert all(len(s) == k for s in sets)
        assert [sum(j in s for s in sets) for j in range(9)] == c.tolist()
        assert all(len(set(sets[i]) & set(sets[j])) <= ov for i in range(n_sets) for j in range(i))


def _brute_partition(c, k, g):
    "Best min group sum over all partitions of range(g * k) into g groups of k (the group of the first item first)."
    def rec(left, gl):
        if gl == 0: return np.inf
        best = -np.inf
        for comb in itertools.combinations(left[1:], k - 1):
            G = (left[0],) + comb
            best = max(best, min(sum(c[i] for i in G), rec([i for i in left if i not in G], gl - 1)))
        return best
    return rec(list(range(g * k)), g)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 4), st.integers(1, 3), st.sampled_from([3, 50, 10**9]), st.integers(0, 3))
def test_partition_search_equals_brute_force(seed, g, k, hi, extra):
    rng = np.random.default_rng(seed)
    c = sorted(rng.integers(0, hi, g * k + extra).tolist(), reverse=True)  # small hi: many ties; extra items beyond g*k are ignored
    groups, status, v = alt_search._solve_min_partition(c, k, g)
    assert status == "optimal" and v == _brute_partition(c, k, g)
    assert sorted(i for G in groups for i in G) == list(range(g * k)) and all(len(G) == k for G in groups)
    assert min(sum(c[i] for i in G) for G in groups) == v
    groups, status, ub = alt_search._solve_min_partition(c, k, g, budget={"nodes_disjoint": 1})
    if status == "gave up":  # the best partition so far, and a valid upper bound
        assert sorted(i for G in groups for i in G) == list(range(g * k)) and min(sum(c[i] for i in G) for G in groups) <= v <= ub



@settings(max_examples=80, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.integers(1, 3), st.sampled_from([None, 1e-3, 0.01, 0.2]),
       st.booleans())
def test_partition_search_stays_within_its_relative_gap(seed, g, k, gap, skew):
    """With a relative gap g the partition returned is worth at least (1 - g) of the optimum, and says 'optimal'.
    gap None: half the start partition's own gap, so the start is not good enough and the search must improve it."""
    rng = np.random.default_rng(seed)
    x = rng.lognormal(0, 2, g * k) if skew else rng.random(g * k)  # skewed values: the LPT start is often poor
    c = sorted((10**6 * x).astype(int).tolist(), reverse=True)
    if seed % 3 == 0: c = [v - 2 * 10**6 for v in c]  # negative qualities too: "within g" is g of the bound's size
    opt = _brute_partition(c, k, g)
    if gap is None:
        start = alt_search._solve_min_partition(c, k, g, budget={"nodes_disjoint": 0})[0]  # gives up at once: LPT
        gap = (opt - min(sum(c[i] for i in G) for G in start)) / abs(opt) / 2 if opt else 0.0
    groups, status, v = alt_search._solve_min_partition(c, k, g, budget={"relative_gap": gap})
    assert status == "optimal" and min(sum(c[i] for i in G) for G in groups) == v
    assert sorted(i for G in groups for i in G) == list(range(g * k)) and all(len(G) == k for G in groups)
    assert opt - gap * abs(opt) <= v <= opt


def test_partition_search_gap_costs_no_more_than_one_extra_search(monkeypatch):
    "With a gap the partition search aims once at the gap's target, then climbs as the exact search: at most 2x its nodes."
    # aiming again just under each failed target took up to 584x the exact search's nodes on these instances
    count, tick = [0], alt_search._count_node
    def counted(st):
        count[0] += 1
        tick(st)
    monkeypatch.setattr(alt_search, "_count_node", counted)
    worst = 0.0
    for seed in range(300):
        rng = np.random.default_rng(seed)
        g, k = int(rng.integers(2, 4)), 5
        c = sorted((rng.random(g * k + 3) ** 2 * 10**6).astype(int).tolist(), reverse=True)
        nodes = []
        for gap in (0.0, 1e-4):
            count[0] = 0
            _, status, _ = alt_search._solve_min_partition(c, k, g, budget={"relative_gap": gap})
            assert status == "optimal"
            nodes.append(count[0])
        worst = max(worst, nodes[1] / max(nodes[0], 1))
    assert worst <= 2.0, worst


@pytest.mark.parametrize("c, k, g, gap", [  # a scan of random instances: the three first where a search that
    # stopped at three times the gap returns a partition outside the gap (optimum 1221624, 1073142, 1533689)
    ([999176, 974186, 652369, 515325, 434947, 408473, 383368, 285801, 234510, 53930, 48757, 45275], 3, 4, 0.05),
    ([853457, 653345, 218018, 201779, 128644, 113708], 3, 2, 0.05),
    ([950879, 876003, 785130, 765708, 532611, 329415, 329336, 50199, 32198], 3, 3, 0.01)])
def test_partition_search_gap_is_the_gap_asked_for(c, k, g, gap):
    groups, status, v = alt_search._solve_min_partition(c, k, g, budget={"relative_gap": gap})
    assert status == "optimal" and (1 - gap) * _brute_partition(c, k, g) <= v

def test_partition_search_budget_counts_every_node():
    "The node budget bounds all the search's work, the partner enumeration included (three groups of 10: seconds)."
    c = sorted(np.random.default_rng(0).integers(10**8, 10**9, 30).tolist(), reverse=True)
    t = time.perf_counter()
    groups, status, ub = alt_search._solve_min_partition(c, 10, 3, budget={"nodes_disjoint": 2000})
    assert status == "gave up" and min(sum(c[i] for i in G) for G in groups) <= ub
    groups, status, _ = alt_search._solve_min_partition(c, 10, 3, deadline=time.perf_counter() + 0.05)
    assert status == "gave up"  # the deadline is checked inside the enumeration too


def test_partition_search_gives_up_with_a_feasible_partition():
    "When the partition search runs out of budget and CP-SAT (given almost no time) finds nothing better, its partition is returned."
    q = np.random.default_rng(3).random(36)
    sets, st_, _ = solve_alternatives({"kind": "linear", "q": q, "n": 36}, 6, 1.0, 6, aggregation="min", formulation="fast",
                                      time_limit=1e-3, options=SolverOptions(nodes_disjoint=1))
    assert st_ in ("feasible", "optimal") and all(s is not None and len(s) == 6 for s in sets)
    assert len(set(np.concatenate(sets).tolist())) == 36  # disjoint, all features used


# ---- inputs as users pass them ------------------------------------------------------------------------------------

def test_multilabel_y_is_refused_with_its_shape(bc):
    X, y = bc
    with pytest.raises(ValueError, match=r"y must be 1-D .*\(569, 2\)"):
        AlternativeFeatureSelector().fit(X, np.c_[y, 1 - y])
    sel = AlternativeFeatureSelector(k=3, n_alternatives=0, random_state=0).fit(X[:200], y[:200, None])  # a column is fine
    assert sel.statuses_ == ["optimal"]


@pytest.mark.parametrize("tl", [-1, 0, float("nan"), float("inf"), "10"])
def test_time_limit_out_of_range_is_a_value_error(bc, tl):
    X, y = bc
    err = TypeError if isinstance(tl, str) else ValueError  # a wrong type is a TypeError (mlxplain.checks)
    with pytest.raises(err, match=r"time_limit=.*\(0, inf\)"):
        AlternativeFeatureSelector(time_limit=tl).fit(X, y)
    with pytest.raises(err, match=r"time_limit=.*\(0, inf\)"):
        AlternativeFeatureSelector(objective=np.arange(6.0), k=2, time_limit=tl).fit()
    if not isinstance(tl, str):
        with pytest.raises(ValueError, match=r"\(0, inf\)"):
            solve_alternatives({"kind": "linear", "q": np.arange(6.0), "n": 6}, 2, 0.5, 2, time_limit=tl)


def test_random_state_accepts_a_numpy_random_state(bc):
    X, y = bc
    kw = dict(objective="mi", k=3, n_alternatives=1, tau=0.5)
    a = AlternativeFeatureSelector(**kw, random_state=np.random.RandomState(7)).fit(X[:200], y[:200])
    b = AlternativeFeatureSelector(**kw, random_state=np.random.RandomState(7)).fit(X[:200], y[:200])
    assert a.statuses_ == ["optimal"] * 2 and a.qualities_ == b.qualities_  # same generator state, same result
    for bad in ("seed", 1.5, -1, True):
        with pytest.raises(ValueError, match="random_state="):
            AlternativeFeatureSelector(**kw, random_state=bad).fit(X[:200], y[:200])


@pytest.mark.parametrize("objective", ["mi", "model_gain", "fcbf", "mrmr"])
def test_string_class_labels_equal_integer_labels(bc, objective):
    X, y = bc
    names = np.array(["benign", "malignant"])  # sorted: "benign" -> 0, "malignant" -> 1, i.e. 1 - y
    kw = dict(objective=objective, k=3, n_alternatives=1, tau=0.5, random_state=0)
    a = AlternativeFeatureSelector(**kw).fit(X[:150, :8], names[1 - y[:150]])
    b = AlternativeFeatureSelector(**kw).fit(X[:150, :8], 1 - y[:150])
    assert [s.tolist() for s in a.feature_sets_] == [s.tolist() for s in b.feature_sets_] and a.qualities_ == b.qualities_
    np.testing.assert_allclose(a.score_sets(X[150:250, :8], names[1 - y[150:250]]), b.score_sets(X[150:250, :8], 1 - y[150:250]))


@pytest.mark.parametrize("idx", [[1.7], [1.0], [True], [30], [-1], ["a"]])
def test_must_select_needs_integer_indices_in_range(bc, idx):
    X, y = bc
    err = ValueError if isinstance(idx[0], int) and not isinstance(idx[0], bool) else TypeError  # range / type
    with pytest.raises(err, match=r"must_select=.*integer feature indices in \[0, 29\]"):
        AlternativeFeatureSelector(must_select=idx).fit(X, y)
    with pytest.raises(err, match=r"must_not_select=.*\[0, 29\]"):
        AlternativeFeatureSelector(must_not_select=idx).fit(X, y)


@pytest.mark.parametrize("kw", [dict(search="simultaneous"), dict(search="simultaneous", aggregation="min"),
                                dict(method="greedy_replacement"), dict(method="greedy_balancing")])
def test_results_time_is_each_sets_own_share(kw):
    q = np.random.default_rng(0).random(15)
    sel = AlternativeFeatureSelector(objective=q, k=3, n_alternatives=3, tau=0.5, **kw).fit()
    t = sel.results_["time"]
    assert t.nunique() == 1 and len(t) == 4  # one call for all sets, split evenly
    seq = AlternativeFeatureSelector(objective=q, k=3, n_alternatives=3, tau=0.5).fit()
    assert seq.results_["time"].tolist() == seq.times_ and seq.results_["time"].nunique() == 4  # one call per set
    t0 = time.perf_counter()
    sel.fit()
    assert sum(sel.times_) <= time.perf_counter() - t0  # the shares add up to at most the wall time of the fit


# ---- the scikit-learn selector interface ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bc_frame():
    return load_breast_cancer(return_X_y=True, as_frame=True)


def test_selector_api_pandas_names_and_set_output(bc_frame):
    from sklearn.base import clone
    X, y = bc_frame
    sel = AlternativeFeatureSelector(objective="mi", k=4, n_alternatives=2, tau=0.5, random_state=0, use_alternative=2).fit(X, y)
    assert list(sel.feature_names_in_) == list(X.columns) and sel.n_features_in_ == 30
    for i in range(3):
        assert sel.get_support(alternative=i, indices=True).tolist() == sel.feature_sets_[i].tolist()
        assert sel.get_support(alternative=i).sum() == 4
    assert list(sel.get_feature_names_out()) == list(X.columns[sel.feature_sets_[2]])
    np.testing.assert_array_equal(sel.transform(X), X.values[:, sel.feature_sets_[2]])
    out = clone(sel).set_output(transform="pandas").fit_transform(X, y)
    assert list(out.columns) == list(sel.get_feature_names_out()) and out.index.equals(X.index)
    with pytest.raises(ValueError, match=r"alternative=3: .*\[0, 2\]"):
        sel.get_support(alternative=3)
    with pytest.raises(ValueError, match="use_alternative=3"):
        clone(sel).set_params(use_alternative=3).fit(X, y)
    inf = AlternativeFeatureSelector(objective=np.linspace(1, 0.1, 12), k=5, n_alternatives=3, tau=1.0, use_alternative=2).fit()
    with pytest.raises(ValueError, match="set 2 was not found .*infeasible"):
        inf.transform(np.zeros((3, 12)))
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        AlternativeFeatureSelector().transform(X.values)


def test_pipeline_grid_search_over_tau_and_alternative(bc_frame):
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline
    from sklearn.tree import DecisionTreeClassifier
    X, y = bc_frame
    pipe = Pipeline([("select", AlternativeFeatureSelector(objective="mi", k=3, n_alternatives=1, random_state=0)),
                     ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))])
    grid = GridSearchCV(pipe, {"select__tau": [0.5, 1.0], "select__use_alternative": [0, 1]}, cv=2,
                        scoring="matthews_corrcoef").fit(X.iloc[:300], y.iloc[:300])
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all() and len(grid.cv_results_["params"]) == 4
    best = grid.best_estimator_[0]
    assert (best.tau, best.use_alternative) == (grid.best_params_["select__tau"], grid.best_params_["select__use_alternative"])
    assert list(grid.best_estimator_[:-1].get_feature_names_out()) == list(X.columns[best.feature_sets_[best.use_alternative]])
    assert grid.predict(X.iloc[300:]).shape == (len(X) - 300,)


# ---- every objective x search x aggregation equals brute force over all feature subsets ----------------------------

def _brute_step(value, ok, n, k, ov, fixed):
    "Best value of one k-set (passing `ok`) that overlaps every fixed set in <= ov features; -inf if none."
    vals = [value(list(F)) for F in itertools.combinations(range(n), k)
            if ok(F) and all(len(set(F) & set(G.tolist())) <= ov for G in fixed)]
    return max(vals, default=-np.inf)


def _brute_joint(value, ok, n, k, ov, n_sets, agg):
    "Best aggregated value of n_sets k-sets (each passing `ok`), pairwise overlap <= ov; -inf if none."
    C = [F for F in itertools.combinations(range(n), k) if ok(F)]
    v = [value(list(F)) for F in C]
    best = -np.inf
    for tup in itertools.combinations(range(len(C)), n_sets):
        if all(len(set(C[i]) & set(C[j])) <= ov for i, j in itertools.combinations(tup, 2)):
            best = max(best, (sum if agg == "sum" else min)(v[i] for i in tup))
    return best


@pytest.mark.parametrize("objective", ["user", "mi", "model_gain", "fcbf", "mrmr"])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 7), k=st.integers(1, 3), a=st.integers(1, 2),
       tau=st.sampled_from([0.2, 1 / 3, 0.5, 2 / 3, 1.0]))
@example(seed=4155, n=5, k=2, a=2, tau=0.2)  # FCBF: CP-SAT 9.15's inclusion presolve called it infeasible
@example(seed=7754, n=4, k=3, a=2, tau=0.2)  # mRMR, min: CP-SAT left a 29 % gap after 180 s (now listed exactly)
def test_every_objective_and_search_equals_brute_force(objective, seed, n, k, a, tau):
    k = max(k, 2) if objective == "mrmr" else k
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, n))
    y = (X[:, 0] + X[:, 1 % n] * rng.normal(size=60) + rng.normal(size=60) > 0).astype(int)
    obj = rng.random(n) - 0.3 if objective == "user" else objective  # user qualities may be negative
    ov = max_overlap(k, tau)
    problem = None
    for search, agg, form in [("sequential", "sum", "paper"), ("simultaneous", "sum", "paper"), ("simultaneous", "min", "paper"),
                              ("simultaneous", "sum", "fast"), ("simultaneous", "min", "fast"),
                              ("sequential", "sum", "auto"), ("simultaneous", "sum", "auto"), ("simultaneous", "min", "auto")]:
        sel = AlternativeFeatureSelector(objective=obj, k=k, n_alternatives=a, tau=tau, search=search, aggregation=agg,
                                         formulation=form, random_state=0, time_limit=None)
        if problem is None:  # the first search runs fit; the others reuse its (costly) MI estimates
            problem = sel.fit(X, y).problem_
        else:
            sel.fit(X, y, problem=problem)
        p = sel.problem_
        value = (lambda F: mrmr_value(F, p["rel"], p["R"])) if p["kind"] == "mrmr" else (lambda F: float(p["q"][F].sum()))
        pairs = set(map(tuple, p.get("pairs", [])))
        ok = lambda F: not any((j1, j2) in pairs or (j2, j1) in pairs for j1, j2 in itertools.combinations(F, 2))
        if search == "sequential":
            for i, s in enumerate(sel.feature_sets_):  # each step is optimal given the sets found before it
                best = _brute_step(value, ok, n, k, ov, [f for f in sel.feature_sets_[:i] if f is not None])
                if best == -np.inf:
                    assert s is None and sel.statuses_[i] == "infeasible"
                    continue
                assert sel.statuses_[i] == "optimal" and len(s) == k and ok(tuple(s))
                assert -1e-9 <= best - value(list(s)) <= cpsat_error_bound(p, k, 1) + 1e-9
        else:
            best = _brute_joint(value, ok, n, k, ov, a + 1, agg)
            if best == -np.inf:
                assert sel.statuses_ == ["infeasible"] * (a + 1)
                continue
            assert sel.statuses_ == ["optimal"] * (a + 1) and all(len(s) == k and ok(tuple(s)) for s in sel.feature_sets_)
            assert all(len(set(s1) & set(s2)) <= ov for s1, s2 in itertools.combinations(sel.feature_sets_, 2))
            got = (sum if agg == "sum" else min)(value(list(s)) for s in sel.feature_sets_)
            assert -1e-9 <= best - got <= cpsat_error_bound(p, k, a + 1, agg, None, form) + 1e-9


# ---- solver settings and arguments ----------------------------------------------------------------------------------

def test_solver_options_are_frozen_and_reach_the_search():
    "SolverOptions is immutable; an ablation (no ordering, no counting cut) changes the model but not the optimum."
    import dataclasses
    with pytest.raises(dataclasses.FrozenInstanceError):
        SolverOptions().counting_cut = False
    q = np.random.default_rng(4).random(10)
    p = {"kind": "linear", "q": q, "n": 10}
    m1, _, _ = solve_alternatives(p, 3, 0.5, 3, formulation="fast", return_model=True)
    m0, _, _ = solve_alternatives(p, 3, 0.5, 3, formulation="fast", return_model=True,
                                  options=SolverOptions(counting_cut=False, order_sets=False))
    assert len(m0.m.proto.constraints) < len(m1.m.proto.constraints)
    for agg in ("sum", "min"):
        best = brute(lambda s: q[s].sum(), 10, 3, 0.5, 3, agg)
        for opts in (SolverOptions(), SolverOptions(counting_cut=False, order_sets=False, count_rounds=0)):
            sets, st_, _ = solve_alternatives(p, 3, 0.5, 3, aggregation=agg, formulation="fast", time_limit=None,
                                              options=opts)
            got = (sum if agg == "sum" else min)(q[s].sum() for s in sets)
            assert st_ == "optimal" and abs(got - best) <= cpsat_error_bound(p, 3, 3, agg, None, "fast") + 1e-12


def test_cpsat_params_reach_the_solver():
    "Extra CP-SAT parameters are set on the solver: an unknown name fails, a 1-second-ish limit is applied."
    p = {"kind": "linear", "q": np.arange(1.0, 9.0), "n": 8}
    with pytest.raises(ValueError, match="CP-SAT has no parameter 'no_such_parameter'"):  # refused on construction
        solve_alternatives(p, 3, 0.5, 2, options=SolverOptions(cpsat_params=(("no_such_parameter", 1),)))
    with pytest.raises(TypeError, match="cpsat_params: CP-SAT's 'max_time_in_seconds' does not take 'x'"):
        SolverOptions(cpsat_params=(("max_time_in_seconds", "x"),))
    m, _, _ = solve_alternatives(p, 3, 0.5, 2, return_model=True, options=SolverOptions(cpsat_params=(("max_time_in_seconds", 7.0),)))
    m.solve()
    assert m._s.parameters.max_time_in_seconds == pytest.approx(7.0, abs=1e-12)


@pytest.mark.parametrize("kw,msg", [(dict(k=0), "k=0"), (dict(k=7), "k=7"), (dict(tau=1.5), "tau=1.5"), (dict(n_sets=0), "n_sets=0"),
                                    (dict(solver="gurobi"), "solver="), (dict(aggregation="mean"), "aggregation="),
                                    (dict(formulation="fast", solver="scip"), "needs solver='cpsat'"),
                                    (dict(time_limit=0), "time_limit="), (dict(options={"nodes": 1}), "SolverOptions")])
def test_solve_alternatives_validates_each_argument(kw, msg):
    p = {"kind": "linear", "q": np.arange(1.0, 7.0), "n": 6}
    args = {"k": 2, "tau": 0.5, **kw}
    with pytest.raises(ValueError, match=msg.replace("(", "\\(")):
        solve_alternatives(p, args.pop("k"), args.pop("tau"), **args)
    with pytest.raises(ValueError, match="kind"):
        solve_alternatives({"kind": "cfs", "n": 6}, 2, 0.5)


def test_tree_mcc():
    X, y = load_breast_cancer(return_X_y=True)
    assert np.isnan(tree_mcc(X, y, X, y, None, 0))
    assert 0.5 < tree_mcc(X[:400], y[:400], X[400:], y[400:], [20, 22, 27], 0) <= 1


# ---- public problem API, formulation='auto', tied qualities, shared validators ----------------------------------------

def test_estimate_problem_fit_with_problem_and_set_quality(bc):
    "A problem estimated once and handed to fit gives the same search; set_quality is the objective of any set."
    X, y = bc
    for obj in ("mi", "mrmr", "fcbf"):
        Xs = X[:150, :8] if obj != "mi" else X
        ys = y[:150] if obj != "mi" else y
        sel = AlternativeFeatureSelector(objective=obj, k=3, n_alternatives=2, tau=0.5, random_state=0).fit(Xs, ys)
        p = sel.estimate_problem(Xs, ys)
        assert p["kind"] == sel.problem_["kind"] and p["n"] == Xs.shape[1]
        for key in ("q", "rel", "R"):
            if key in p: np.testing.assert_array_equal(p[key], sel.problem_[key])
        again = AlternativeFeatureSelector(objective=obj, k=3, n_alternatives=2, tau=0.5, random_state=0).fit(Xs, ys, problem=p)
        assert [s.tolist() for s in again.feature_sets_] == [s.tolist() for s in sel.feature_sets_]
        np.testing.assert_allclose([again.set_quality(s) for s in again.feature_sets_], sel.qualities_)
        # another problem (the first half of the rows) scores the sets as score_sets does
        half = sel.estimate_problem(Xs[::2], ys[::2])
        np.testing.assert_allclose([sel.set_quality(s, half) for s in sel.feature_sets_], sel.score_sets(Xs[::2], ys[::2]))
        direct = [mrmr_value(s, half["rel"], half["R"]) if obj == "mrmr" else half["q"][s].sum() for s in sel.feature_sets_]
        np.testing.assert_allclose([sel.set_quality(s, half) for s in sel.feature_sets_], direct)
        assert not np.allclose(direct, sel.qualities_)  # other rows, other values: the problem argument matters
    assert np.isnan(sel.set_quality(None))
    # the given problem is what fit searches: a problem of other rows gives that problem's optimum
    other = AlternativeFeatureSelector(k=3, n_alternatives=2, tau=0.5, random_state=0)
    half = other.estimate_problem(X[::2], y[::2])
    got = other.fit(X, y, problem=half)
    want = AlternativeFeatureSelector(objective=half["q"], k=3, n_alternatives=2, tau=0.5, random_state=0).fit()
    assert got.problem_ is half and [s.tolist() for s in got.feature_sets_] == [s.tolist() for s in want.feature_sets_]
    with pytest.raises(ValueError, match="needs kind 'mrmr'"):
        AlternativeFeatureSelector(objective="mrmr").fit(X, y, problem={"kind": "linear", "q": np.ones(30), "n": 30})
    with pytest.raises(ValueError, match="n=30"):
        AlternativeFeatureSelector().fit(X[:, :10], y, problem={"kind": "linear", "q": np.ones(30), "n": 30})
    with pytest.raises(ValueError, match="call fit first or pass a problem"):
        AlternativeFeatureSelector().set_quality([0, 1])


def test_estimate_problem_encodes_string_labels_as_fit():
    "String class labels are encoded once in fit; estimate_problem on other data uses the same encoding."
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6))
    y = np.where(X[:, 0] > 0, "yes", "no")
    sel = AlternativeFeatureSelector(k=2, n_alternatives=1, random_state=0).fit(X, y)
    p_str, p_int = sel.estimate_problem(X, y), sel.estimate_problem(X, (X[:, 0] > 0).astype(int))
    np.testing.assert_allclose(p_str["q"], p_int["q"])
    np.testing.assert_allclose(p_str["q"], sel.problem_["q"])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), k_tau=st.sampled_from([(2, 0.5), (3, 1 / 3), (3, 2 / 3), (3, 1.0)]), a=st.integers(1, 2),
       agg=st.sampled_from(["sum", "min"]), ties=st.booleans())
def test_auto_formulation_equals_brute_force(seed, k_tau, a, agg, ties):
    "'auto' (the default) returns the brute-force optimum on small random problems, with and without ties."
    k, tau = k_tau
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 3, 8) / 2.0 if ties else rng.random(8)
    sel = AlternativeFeatureSelector(objective=q, k=k, n_alternatives=a, tau=tau, search="simultaneous", aggregation=agg,
                                     time_limit=None).fit()
    assert sel.formulation == "auto" and sel.formulation_ == "fast"
    best = _brute_joint(lambda F: float(q[F].sum()), lambda F: True, 8, k, max_overlap(k, tau), a + 1, agg)
    if best == -np.inf:
        assert sel.statuses_ == ["infeasible"] * (a + 1)
        return
    assert sel.statuses_ == ["optimal"] * (a + 1)
    got = (sum if agg == "sum" else min)(q[s].sum() for s in sel.feature_sets_)
    assert abs(got - best) <= cpsat_error_bound({"kind": "linear", "q": q, "n": 8}, k, a + 1, agg, None, "fast") + 1e-9


def test_auto_formulation_resolves_per_solver(bc):
    "'auto' is 'fast' on CP-SAT and 'paper' on SCIP (no indicator constraints there); explicit choices are kept."
    X, y = bc
    q = mi_qualities(X, y, 0)
    assert AlternativeFeatureSelector().formulation == "auto"
    for solver, form, want in [("cpsat", "auto", "fast"), ("scip", "auto", "paper"), ("cpsat", "paper", "paper"),
                               ("cpsat", "fast", "fast")]:
        sel = AlternativeFeatureSelector(objective=q, k=3, n_alternatives=1, tau=0.5, solver=solver, formulation=form).fit()
        assert sel.formulation_ == want and sel.statuses_ == ["optimal"] * 2
    p = {"kind": "linear", "q": q, "n": 30}
    s_auto, st_auto, _ = solve_alternatives(p, 5, 0.4, 4, formulation="auto", solver="scip", time_limit=None)
    s_fast, st_fast, _ = solve_alternatives(p, 5, 0.4, 4, formulation="fast", time_limit=None)
    assert st_auto == st_fast == "optimal"
    assert abs(sum(q[s].sum() for s in s_auto) - sum(q[s].sum() for s in s_fast)) < 1e-6
    with pytest.raises(ValueError, match="formulation='best'"):
        solve_alternatives(p, 5, 0.4, 4, formulation="best")


def test_many_tied_qualities_prove_optimal_quickly():
    "22 features of equal quality (0, like features without MI), sum, a = 5, tau = 0.6, k = 5: proven in seconds."
    # seven distinct qualities: without the histogram cut and the order within tie groups this instance stays
    # 'feasible' after the full 18 s (the fallback model), with them it is proven in well under a second
    q = np.r_[[1.0196, 1.0024, 0.9871, 0.953, 0.8833, 0.3916, 0.3479], np.zeros(22)]
    for qq in (q, np.ones(24)):
        t0 = time.perf_counter()
        sets, status, _ = solve_alternatives({"kind": "linear", "q": qq, "n": len(qq)}, 5, 0.6, 6, formulation="fast",
                                             time_limit=3)
        assert status == "optimal" and time.perf_counter() - t0 < 5
        assert all(len(set(a) & set(b)) <= max_overlap(5, 0.6) for a, b in itertools.combinations(sets, 2))
    # the optimum: the seven distinct features, each in as many sets as the overlaps allow, by count relaxation bound
    sel = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=5, tau=0.6, search="simultaneous", time_limit=3).fit()
    assert sel.statuses_ == ["optimal"] * 6


def test_branch_and_bound_equals_plain_enumeration():
    "The branch-and-bound reference equals enumerating every tuple of sets, for sum and min, with and without ties."
    rng = np.random.default_rng(3)
    for q in (rng.random(7), rng.integers(0, 3, 7).astype(float)):
        for k, tau, n_sets in [(2, 0.5, 3), (3, 0.67, 3), (3, 0.34, 4), (2, 1.0, 3), (3, 1.0, 3)]:
            for agg in ("sum", "min"):
                value = lambda F: float(q[list(F)].sum())
                assert brute(value, 7, k, tau, n_sets, agg) == pytest.approx(
                    _brute_joint(value, lambda F: True, 7, k, max_overlap(k, tau), n_sets, agg))


def test_histogram_cut_removes_every_count_vector_of_an_unrealisable_histogram():
    """Two rounds of the count relaxation suffice here: the first optimum's histogram cannot be realised, and the
    cut removes all count vectors with that histogram at once (a cut of the one vector alone needs 13 rounds)."""
    q = np.array([0.976, 0.865, 0.776, 0.489, 0.43, 0.381, 0.309, 0.059])
    assert alt_search._solve_sum_by_counts(q, 3, 0.2, 4, max_rounds=1) == (None, "rounds")
    sets, status = alt_search._solve_sum_by_counts(q, 3, 0.2, 4, max_rounds=2)
    assert status == "optimal" and all(len(set(a) & set(b)) <= max_overlap(3, 0.2) for a, b in itertools.combinations(sets, 2))
    assert sum(q[s].sum() for s in sets) == pytest.approx(brute(lambda F: float(q[F].sum()), 8, 3, 0.2, 4, "sum"))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6), g=st.integers(1, 5), k=st.integers(1, 4),
       ties=st.booleans())
def test_listed_histograms_are_the_count_relaxation_best_first(seed, n, g, k, ties):
    """The listed histograms, best first, against every count vector by brute force and against CP-SAT's count
    model with a cut after each optimum: the same values in the same order, and the same number of histograms."""
    rng = np.random.default_rng(seed)
    ov = int(rng.integers(0, k))
    cq = np.sort(rng.integers(0, 4, n) if ties else rng.integers(-10**4, 10**6, n))[::-1].astype(np.int64)
    values, histogram = alt_search._count_histograms(cq, k, g, ov)
    brute_vals = {}  # histogram -> best value over its count vectors
    for c in itertools.product(range(g + 1), repeat=n):
        c = np.array(c)
        if c.sum() != g * k or (c * (c - 1) // 2).sum() > ov * g * (g - 1) // 2 or (g > 1 and (c == g).sum() > ov):
            continue
        key = tuple(np.bincount(c, minlength=g + 1)[1:][::-1])
        brute_vals[key] = max(brute_vals.get(key, -np.inf), int(c @ cq))
    assert sorted(brute_vals.values(), reverse=True) == values.tolist()
    assert all(brute_vals[tuple(histogram(i))] == values[i] for i in range(len(values)))
    m, x = alt_search._counts_relaxation(cq, k, g, ov)  # CP-SAT over count vectors, each optimum's histogram cut off
    seen = []
    for _ in range(len(values) + 1):
        sol = alt_model.one_worker_solver(0)
        if sol.solve(m) == alt_model.cp_model.INFEASIBLE: break
        c = [next(v for v in range(g + 1) if sol.value(x[j][v])) for j in range(n)]
        seen.append(int(np.dot(c, cq)))
        alt_search._cut_histogram(m, x, c, g)
    assert seen == values.tolist()


def test_count_relaxation_lists_the_papers_grid_and_hands_more_sets_to_cp_sat(monkeypatch):
    "Up to six sets of ten (the paper's grid) the histograms are listed; beyond the limit CP-SAT finds them, alike."
    cq = np.arange(1000, 0, -1, dtype=np.int64)
    assert len(alt_search._count_histograms(cq, 10, 6, 9)[0]) < alt_search._MAX_HISTOGRAMS
    assert alt_search._count_histograms(cq, 10, 11, 9) is None
    rng, cases = np.random.default_rng(2), []
    for n, k, tau, g in [(12, 3, 0.34, 4), (15, 4, 0.5, 5), (10, 3, 0.67, 6), (9, 2, 0.5, 4)]:
        q = np.sort(np.r_[rng.random(n - 3), 0.5, 0.5, 0.0])[::-1]  # with ties
        cases.append((q, alt_search._solve_sum_by_counts(q, k, tau, g, time_limit=30), k, tau, g))
    monkeypatch.setattr(alt_search, "_MAX_HISTOGRAMS", 0)  # every relaxation now goes to CP-SAT
    for q, (sets, status), k, tau, g in cases:
        sets2, status2 = alt_search._solve_sum_by_counts(q, k, tau, g, time_limit=30)
        assert status == status2
        if status == "optimal":
            assert sum(q[s].sum() for s in sets) == pytest.approx(sum(q[s].sum() for s in sets2), abs=1e-9)
            assert all(len(set(a) & set(b)) <= max_overlap(k, tau) for a, b in itertools.combinations(sets2, 2))


@pytest.mark.parametrize("tau", [1 / 3, 2 / 3])
def test_tied_qualities_match_brute_force(tau):
    "A small instance with three tie groups: the count relaxation with histogram cuts finds the brute-force optimum."
    q = np.array([1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0, 0, 0.0])
    sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 10}, 3, tau, 4, formulation="fast", time_limit=None)
    best = brute(lambda F: float(q[F].sum()), 10, 3, tau, 4, "sum")
    assert status == "optimal" and abs(sum(q[s].sum() for s in sets) - best) < 1e-9


def test_shared_validators_messages(bc):
    "X and y go through mlxplain.checks: NaN located, 1-D X refused with the reshape hint, row counts compared."
    X, y = bc
    Xn = X.copy()
    Xn[3, 2] = np.inf
    with pytest.raises(ValueError, match="row 3, column 2"):
        AlternativeFeatureSelector().fit(Xn, y)
    with pytest.raises(ValueError, match="reshape"):
        AlternativeFeatureSelector().fit(X[:, 0], y)
    yn = y.astype(float)
    yn[5] = np.nan
    with pytest.raises(ValueError, match="y contains NaN or infinite values .first at row 5"):
        AlternativeFeatureSelector().fit(X, yn)
    with pytest.raises(ValueError, match="X has 569 rows but y has 568"):
        AlternativeFeatureSelector().fit(X, y[:-1])
    with pytest.raises(ValueError, match="y is None"):
        alt._check_y(None)


# --- degenerate inputs (issue 28) ---
def _with_constants():
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:300, :8].copy()
    X[:, 2], X[:, 5] = 3.0, 0.0  # two constant columns
    return X, y[:300]


@pytest.mark.parametrize("sparse", [False, True])
def test_constant_features_get_zero_quality_with_a_warning(sparse):
    import scipy.sparse as sps
    X, y = _with_constants()
    Xs = sps.csr_matrix(X) if sparse else X
    with pytest.warns(UserWarning, match=r"2 constant feature\(s\) \[2, 5\]"):
        q = alt.mi_qualities(Xs, y, 0)
    assert q[2] == 0 and q[5] == 0 and q.sum() == pytest.approx(1.0) and (np.delete(q, [2, 5]) > 0).all()
    with pytest.warns(UserWarning, match="constant feature"):
        rel, R = alt._mrmr_data(X, y, 0)
    assert rel[[2, 5]].tolist() == [0, 0] and not R[[2, 5]].any() and not R[:, [2, 5]].any()
    with pytest.warns(UserWarning, match="constant feature"):
        g = alt.model_gain_qualities(X, y, 0)
    assert g[[2, 5]].tolist() == [0, 0]
    # all-constant X: quality 0 and a warning, never a confident "1.0" (scikit-learn alone gives each column > 0)
    Xc = np.tile([1.0, 2.0, 3.0, 4.0], (60, 1))
    with pytest.warns(UserWarning, match="constant feature"):
        sel = AlternativeFeatureSelector(k=2, n_alternatives=1, random_state=0).fit(Xc, y[:60])
    assert sel.qualities_ == [0.0, 0.0]


def test_constant_y_is_refused_naming_y(bc):
    X, y = bc
    for f in (lambda: AlternativeFeatureSelector().fit(X, np.ones(len(y))),
              lambda: AlternativeFeatureSelector(objective="mrmr").fit(X, np.full(len(y), "a")),
              lambda: AlternativeFeatureSelector().estimate_problem(X, np.zeros(len(y))),
              lambda: alt.mi_qualities(X, np.ones(len(y))), lambda: alt.model_gain_qualities(X, np.ones(len(y)))):
        with pytest.raises(ValueError, match="y is constant"):
            f()


@pytest.mark.parametrize("sparse", [False, True])
def test_duplicate_columns_are_reported_or_merged(sparse):
    import scipy.sparse as sps
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[:300], y[:300]
    best = int(np.argmax(alt.mi_qualities(X, y, 0)))
    Xd = np.c_[X, X[:, best], -0.0 * X[:, 0]]  # a copy of the best feature (and a column of -0.0 = 0)
    Xd[:, 0] = 0.0  # ... duplicated by column 31
    Xd = sps.csr_matrix(Xd) if sparse else Xd
    kw = dict(k=3, n_alternatives=2, tau=0.5, random_state=0)
    with pytest.warns(UserWarning, match="identical columns"):
        rep = AlternativeFeatureSelector(**kw).fit(Xd, y)
    assert rep.duplicate_groups_ == [[0, 31], [best, 30]]
    # reported, not changed: the copy is used as a feature of its own (an alternative holds the copy)
    if not sparse: assert any(30 in s for s in rep.feature_sets_)  # (sparse X: discrete MI, another best)
    with pytest.warns(UserWarning, match="merged"):
        mer = AlternativeFeatureSelector(**kw, duplicates="merge").fit(Xd, y)
    used = set(np.concatenate(mer.feature_sets_).tolist())
    assert 30 not in used and 31 not in used
    ref = AlternativeFeatureSelector(**kw).fit(Xd[:, :30], y)  # the same search without the copies
    assert [s.tolist() for s in mer.feature_sets_] == [s.tolist() for s in ref.feature_sets_]
    # a copy in must_select is the one kept; heuristics see the merged features too
    with pytest.warns(UserWarning, match="merged"):
        ms = AlternativeFeatureSelector(**kw, duplicates="merge", must_select=[30]).fit(Xd, y)
    assert all(30 in s and best not in s for s in ms.feature_sets_)
    with pytest.warns(UserWarning, match="merged"):
        hb = AlternativeFeatureSelector(**kw, duplicates="merge", method="greedy_balancing").fit(Xd, y)
    assert not {30, 31} & set(np.concatenate(hb.feature_sets_).tolist())
    with pytest.raises(ValueError, match="duplicates='drop'"):
        AlternativeFeatureSelector(duplicates="drop").fit(X, y)


# --- feasibility pre-check shared by the aggregations (issue 28) ---
def _exists(nf, k, ov, n_sets):
    "Brute force: are there n_sets k-subsets of range(nf) with pairwise overlap <= ov?"
    subs = [set(c) for c in itertools.combinations(range(nf), k)]
    def rec(chosen, start):
        if len(chosen) == n_sets: return True
        return any(rec(chosen + [s], i + 1) for i, s in enumerate(subs[start:], start)
                   if all(len(s & c) <= ov for c in chosen))
    return rec([], 0)


@settings(max_examples=40, deadline=None)
@given(nf=st.integers(3, 7), k=st.integers(1, 3), tau=st.sampled_from([0.34, 0.5, 0.67, 1.0]), n_sets=st.integers(2, 5))
def test_feasibility_precheck_equals_brute_force(nf, k, tau, n_sets):
    if k > nf or alt.max_overlap(k, tau) >= k: return
    status, _ = alt_search._feasibility(nf, k, tau, n_sets, None, 0, alt.SolverOptions())
    assert status == ("feasible" if _exists(nf, k, alt.max_overlap(k, tau), n_sets) else "infeasible")


def test_min_aggregation_infeasibility_proven_by_the_shared_precheck(bc, monkeypatch):
    X, y = bc
    p = {"kind": "linear", "q": alt.mi_qualities(X, y, 0), "n": 30}
    rel, R = alt._mrmr_data(X[:300, :12], y[:300], 0)
    mr = {"kind": "mrmr", "rel": rel, "R": R, "n": 12}
    cases = [(p, 10, 0.8, 7), (mr, 5, 0.8, 5)]
    statuses = {(id(q), agg): alt.solve_alternatives(q, k, tau, n, (), agg, "cpsat", "fast", 10.0)[1]
                for q, k, tau, n in cases for agg in ("sum", "min")}
    assert set(statuses.values()) == {"infeasible"}
    def boom(*a, **kw): raise AssertionError("the pre-check should have proven infeasibility")
    monkeypatch.setattr(alt_search, "solve_model", boom)  # min: the model never runs (the walk's first round may)
    for q, k, tau, n in cases:
        t0 = time.perf_counter()
        sets, status, _ = alt.solve_alternatives(q, k, tau, n, (), "min", "cpsat", "fast", 10.0)
        assert status == "infeasible" and sets == [None] * n and time.perf_counter() - t0 < 2.0


# --- sequential search on one model, with the walk (issue 28) ---
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 9), k=st.integers(1, 4), a=st.integers(1, 6),
       tau=st.sampled_from([0.2, 1 / 3, 0.5, 2 / 3, 1.0]), ties=st.booleans(), pre=st.booleans())
def test_sequential_walk_and_reused_model_equal_brute_force(seed, n, k, a, tau, ties, pre):
    k = min(k, n)
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 3, n).astype(float) if ties else rng.random(n)
    p, ov = {"kind": "linear", "q": q, "n": n}, max_overlap(k, tau)
    value, ok = (lambda F: float(q[F].sum())), (lambda F: True)
    for nodes in (10**9, 0):  # the step search answers, or (no nodes) the reused CP-SAT model with its hint does
        ss = alt_search.SequentialSearch(p, k, tau, "cpsat", "fast", None, pre, (), (), None, 0, 1,
                                   options=alt.SolverOptions(nodes=nodes))
        sets = []
        for _ in range(a + 1):
            (s,), status, _ = ss.step([F for F in sets if F is not None])
            best = _brute_step(value, ok, n, k, ov, [F for F in sets if F is not None])
            if best == -np.inf:
                assert s is None and status == "infeasible"
            else:
                assert status == "optimal" and len(set(s.tolist())) == k and abs(best - value(list(s))) <= 1e-9
            sets.append(s)


def test_sequential_search_builds_one_model(bc, monkeypatch):
    import pickle
    X, y = bc
    calls = []
    orig = alt_model.solve_model
    monkeypatch.setattr(alt_search, "solve_model", lambda *a, **kw: calls.append(1) or orig(*a, **kw))
    rel, R = alt._mrmr_data(X[:200, :10], y[:200], 0)
    mr = {"kind": "mrmr", "rel": rel, "R": R, "n": 10}
    sel = AlternativeFeatureSelector(objective="mrmr", k=3, n_alternatives=4, tau=0.5, random_state=0)
    sel.fit(X[:200, :10], y[:200], problem=mr)
    assert len(calls) == 1  # one model for five steps
    ref = [None]
    for i in range(5):  # each step is what a fresh model gives
        fixed = [s for s in sel.feature_sets_[:i] if s is not None]
        s, st_, _ = alt.solve_alternatives(mr, 3, 0.5, 1, fixed, "sum", "cpsat", "fast", None)
        assert st_ == sel.statuses_[i] and mrmr_value(s[0], rel, R) == pytest.approx(sel.qualities_[i], abs=1e-9)
    # a pickled selector continues the same search (model rebuilt with every set)
    again = pickle.loads(pickle.dumps(sel))
    assert np.array_equal(again.next_alternative(), sel.next_alternative())
    # univariate qualities: the step search answers every step of this search, no model is built at all
    calls.clear()
    AlternativeFeatureSelector(k=5, n_alternatives=10, tau=0.4, random_state=0).fit(X, y, problem={"kind": "linear", "q": alt.mi_qualities(X, y, 0), "n": 30})
    assert calls == []


def test_sequential_infeasible_step_is_not_solved_again(monkeypatch):
    q = np.linspace(1, 0.1, 12)
    sel = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=5, tau=1.0, random_state=0,
                                     must_select=[0]).fit()  # must: no walk, CP-SAT proves step 1 infeasible
    assert sel.statuses_ == ["optimal"] + ["infeasible"] * 5 and sel.times_[2:] == [0.0] * 4


# --- the max-min walk: resumable, its budget by size and progress (issue 28) ---
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(3, 0.34), (3, 0.67), (4, 0.5), (4, 0.75)]), st.integers(1, 3), st.booleans())
def test_max_min_walk_resumed_in_small_steps_equals_one_run(seed, k_tau, a, ties):
    k, tau = k_tau
    rng = np.random.default_rng(seed)
    c = sorted((rng.integers(1, 4, 9) if ties else rng.integers(1, 1000, 9)).tolist(), reverse=True)
    ov = max_overlap(k, tau)
    whole = alt_search._solve_min_by_cliques(c, k, ov, a + 1)
    w, cands = alt_search._MaxMinWalk(c, k, ov, a + 1, 10**9), 1
    while True:
        part = w.run(cands)
        if part[1] != "gave up": break
        assert whole[1] == "infeasible" or part[2] >= whole[2]  # the bound of a stopped walk is an upper bound
        cands += 1
    assert part[1] == whole[1] and part[2] == whole[2]
    if whole[1] == "optimal":
        assert min(sum(c[i] for i in S) for S in part[0]) == whole[2]


def test_max_min_walk_budget_grows_with_the_solvers_progress(monkeypatch):
    q = np.random.default_rng(3).random(14)
    p = {"kind": "linear", "q": q, "n": 14}
    log, run, model = [], alt_search._MaxMinWalk.run, alt_model.solve_model
    monkeypatch.setattr(alt_search._MaxMinWalk, "run", lambda self, m, d=None: log.append(("walk", m)) or run(self, m, d))
    monkeypatch.setattr(alt_search, "solve_model", lambda *a, **kw: log.append(("cpsat", a[-1])) or model(*a, **kw))
    sets, status, _ = solve_alternatives(p, 4, 0.5, 5, aggregation="min", formulation="fast", time_limit=None,
                                         options=SolverOptions(walk_start=1, band=False))
    assert status == "optimal"
    best = brute(lambda s: q[s].sum(), 14, 4, 0.5, 5, "min")
    assert abs(min(q[s].sum() for s in sets) - best) <= 1e-6
    walks = [m for what, m in log if what == "walk"]
    assert walks[0] == 14 and all(b == 4 * a_ for a_, b in zip(walks, walks[1:]))  # n candidates first, then x4
    assert log[1][0] == "cpsat" and log[1][1] is not None  # CP-SAT tried after the first round, with the bound
    log.clear()  # with the band search (here it keeps more than half of the sets above its target, so only with
    # band_keep=1): the optimum after the first round, and no CP-SAT call
    sets, status, _ = solve_alternatives(p, 4, 0.5, 5, aggregation="min", formulation="fast", time_limit=None,
                                         options=SolverOptions(walk_start=1, band_keep=1.0))
    assert status == "optimal" and abs(min(q[s].sum() for s in sets) - best) <= 1e-6
    assert log == [("walk", 14)]
    log.clear()  # by default the walk starts with a first look of walk_look (8) candidates per feature
    sets, status, _ = solve_alternatives(p, 4, 0.5, 5, aggregation="min", formulation="fast", time_limit=None)
    assert status == "optimal" and abs(min(q[s].sum() for s in sets) - best) <= 1e-6
    assert log[0] == ("walk", 8 * 14)


def test_step_search_budget_follows_its_progress():
    p = {"kind": "linear", "q": np.linspace(1, 0.1, 20), "n": 20}
    for nodes, shares in ((10**9, [0.5, 1.0, 1.0, 1.0, 1.0]), (0, [0.125, 0.0625, 0.0625, 0.0625, 0.0625])):
        ss = alt_search.SequentialSearch(p, 3, 0.5, "cpsat", "fast", None, False, (), (), None, 0, 1,
                                   options=alt.SolverOptions(nodes=nodes))
        sets, seen = [], []
        for _ in range(5):
            (s,), status, _ = ss.step(sets)
            assert status == "optimal"
            sets.append(s)
            seen.append(ss.share)
        assert seen == shares  # answered: doubled up to walk_share_max (1); gave up: halved down to 1/16


# --- the exact shortcuts: two and three sets in closed form, the step search's relaxation bound and incumbent, round limits ---
@pytest.mark.parametrize("n_sets,n_max,k_max,examples", [(2, 9, 4, 40), (3, 8, 3, 60)])
def test_two_and_three_sets_sum_closed_forms_equal_brute_force(n_sets, n_max, k_max, examples):
    "The closed forms of two and three sets with sum-aggregation against brute force (ties included)."
    @settings(max_examples=examples, deadline=None)
    @given(seed=st.integers(0, 10_000), n=st.integers(2, n_max), k=st.integers(1, k_max),
           tau=st.sampled_from([0.2, 1 / 3, 0.5, 2 / 3, 1.0]), ties=st.booleans())
    def check(seed, n, k, tau, ties):
        k = min(k, n)
        rng = np.random.default_rng(seed)
        q = rng.integers(-1, 3, n).astype(float) if ties else rng.random(n) - 0.2
        p = {"kind": "linear", "q": q, "n": n}
        sets, status, _ = solve_alternatives(p, k, tau, n_sets, aggregation="sum", formulation="fast", time_limit=None)
        best = brute(lambda s: q[s].sum(), n, k, tau, n_sets, "sum")
        if best == -np.inf:
            assert status == "infeasible" and sets == [None] * n_sets
            return
        ov = max_overlap(k, tau)
        assert status == "optimal" and all(len(set(s.tolist())) == k for s in sets)
        assert all(len(set(a_) & set(b_)) <= ov for a_, b_ in itertools.combinations(sets, 2))
        assert abs(sum(q[s].sum() for s in sets) - best) <= 1e-9
    check()


def test_three_sets_sum_needs_no_solver(monkeypatch):
    def no_solver(*a, **kw): raise AssertionError("the three-set closed form called a solver")
    monkeypatch.setattr(alt_search, "_solve_sum_by_counts", no_solver)
    monkeypatch.setattr(alt_search, "solve_model", no_solver)
    q = np.random.default_rng(0).random(60)
    sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 60}, 10, 0.3, 3, aggregation="sum",
                                         formulation="fast", time_limit=None)
    assert status == "optimal" and len(sets) == 3


def test_step_search_bound_proves_infeasibility_in_few_nodes():
    # 20 features, k = 10, at most 2 shared: the third set would need 10 - 2 - 2 features outside the first two sets'
    # 18, of which there are 2. The relaxation bound sees it at once; the plain bound (the next k best) needed ~1000 nodes.
    c = list(range(100, 80, -1))
    fixed = [list(range(10)), [0, 1] + list(range(10, 18))]
    assert alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 10, 30) == "infeasible"


def test_step_search_takes_each_pattern_best_first():
    "Features in the same earlier sets are interchangeable: passing one over bans the worse ones of its pattern."
    # the fifth step of a sequential search (30 features, k = 8, at most 2 shared); the search without the ban
    # needs 1570 nodes, with it 410
    rng = np.random.default_rng(10)
    c = sorted((rng.random(30) ** 2 * 10**6).astype(int).tolist(), reverse=True)
    fixed = [[0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 8, 9, 10, 11, 12, 13], [2, 3, 8, 9, 14, 15, 16, 17],
             [4, 5, 10, 11, 14, 15, 18, 19]]
    got = alt_search._step_search(c, fixed, 8, 2, time.perf_counter() + 60, 600)
    assert got is not None, "the step search ran out of its 600 nodes"
    q = np.array(c, dtype=float) / 10**6
    (ref,), status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 30}, 8, 0.75, 1, fixed_sets=fixed,
                                           formulation="fast", time_limit=None)
    assert status == "optimal" and sum(c[i] for i in got) == sum(c[i] for i in ref)
    assert all(len(set(got) & set(F)) <= 2 for F in fixed)


def _hard_last_step():
    "The last step of a sequential search (44 close qualities, k = 10, at most 2 shared): 20,000-100,000 nodes."
    rng = np.random.default_rng(0)
    c = sorted((10**6 * (1 + 0.05 * rng.random(44))).astype(int).tolist(), reverse=True)
    fixed = []
    for _ in range(9):
        fixed.append(list(alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 10**9)))
    return c, fixed


def test_step_search_stops_at_its_deadline_with_its_best_set(monkeypatch):
    "The compiled search looks at the clock between chunks of nodes: a deadline already past stops it at once."
    monkeypatch.setattr(alt_search, "_LP_AFTER", 10**9)  # the search without the LP's turn, which settles this step at once
    c, fixed = _hard_last_step()
    assert alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 20_000) is None  # needs more than 20,000
    got, t0 = [], time.perf_counter()
    assert alt_search._step_search(c, fixed, 10, 2, t0 - 1, 10**9, got) is None
    assert time.perf_counter() - t0 < 0.5  # one chunk (4096 nodes, about a millisecond), not the whole search
    assert len(set(got)) == 10 and all(len(set(got) & set(F)) <= 2 for F in fixed)  # a feasible hint


@pytest.mark.parametrize("lp_after", [10**9, 256, 0])
@pytest.mark.parametrize("chunk", [1, 7, 300])
def test_step_search_goes_on_where_a_chunk_stopped(monkeypatch, chunk, lp_after):
    """Stopped after every `chunk` nodes and resumed, the search finds the same set as in one go (its state is kept),
    without the LP's turn, after it, and with the question's search stopped and resumed too."""
    monkeypatch.setattr(alt_search, "_LP_AFTER", lp_after)
    c, fixed = _hard_last_step()
    cases = [(c, fixed, 10, 2)] + [_lp_case(*x)[:4] for x in _LP_CASES]
    rng = np.random.default_rng(3)
    for _ in range(30):
        n, k = int(rng.integers(6, 14)), int(rng.integers(2, 6))
        cases.append((sorted(rng.integers(-5, 10**4, n).tolist(), reverse=True),
                      [sorted(rng.choice(n, k, replace=False).tolist()) for _ in range(int(rng.integers(0, 5)))],
                      k, int(rng.integers(0, k))))
    whole = [alt_search._step_search(*x, time.perf_counter() + 60, 10**9) for x in cases]
    monkeypatch.setattr(alt_search, "_WALK_CHUNK", chunk)
    # (the hard case takes under 100,000 nodes: a search that loses its place runs out of the 200,000 here)
    assert [alt_search._step_search(*x, time.perf_counter() + 60, 200_000) for x in cases] == whole


def _lp_after(nodes):
    "`_step_search` with its LP's turn after this many nodes, in a `with` (hypothesis' tests cannot take monkeypatch)."
    return mock.patch.object(alt_search, "_LP_AFTER", nodes)


@pytest.mark.parametrize("lp_after", [256, 0])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(4, 10), k=st.integers(1, 5), n_fixed=st.integers(0, 4),
       ov=st.integers(0, 4), ties=st.booleans())
def test_step_search_equals_brute_force(lp_after, seed, n, k, n_fixed, ov, ties):
    k, rng = min(k, n), np.random.default_rng(seed)
    c = sorted((rng.integers(0, 4, n) if ties else rng.integers(0, 10**6, n)).tolist(), reverse=True)
    fixed = [np.sort(rng.choice(n, k, replace=False)) for _ in range(n_fixed)]
    with _lp_after(lp_after):
        got = alt_search._step_search(c, [F.tolist() for F in fixed], k, ov, time.perf_counter() + 60, 10**9)
    best = _brute_step(lambda F: sum(c[i] for i in F), lambda F: True, n, k, ov, fixed)
    if best == -np.inf:
        assert got == "infeasible"
    else:
        assert len(set(got)) == k and sum(c[i] for i in got) == best
        assert all(len(set(got) & set(F.tolist())) <= ov for F in fixed)



@pytest.mark.parametrize("lp_after", [256, 0])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(6, 12), k=st.integers(2, 5), n_fixed=st.integers(1, 4),
       ov=st.integers(0, 3), gap=st.sampled_from([None, 0.01, 0.2]))
def test_step_search_stays_within_its_relative_gap(lp_after, seed, n, k, n_fixed, ov, gap):
    k, rng = min(k, n), np.random.default_rng(seed)
    c = sorted((10**6 * rng.lognormal(0, 1, n)).astype(int).tolist(), reverse=True)
    if seed % 3 == 0: c = [v - 3 * 10**6 for v in c]  # negative qualities too
    fixed = [np.sort(rng.choice(n, k, replace=False)) for _ in range(n_fixed)]
    values = sorted({sum(c[i] for i in F) for F in itertools.combinations(range(n), k)
                     if all(len(set(F) & set(F_.tolist())) <= ov for F_ in fixed)}, reverse=True)
    if gap is None:  # just under the step from the best value to the next: only the optimum is within it
        gap = (values[0] - values[1]) / abs(values[0]) / 2 if len(values) > 1 and values[0] else 0.0
    with _lp_after(lp_after):
        got = alt_search._step_search(c, [F.tolist() for F in fixed], k, ov, time.perf_counter() + 60, 10**9, gap=gap)
    best = values[0] if values else -np.inf
    if best == -np.inf:
        assert got == "infeasible"
    else:
        assert len(set(got)) == k and all(len(set(got) & set(F.tolist())) <= ov for F in fixed)
        assert best - gap * abs(best) <= sum(c[i] for i in got) <= best


# instances where the depth-first search meets a worse set first and the optimum's branch has a tight bound (a scan of
# 3,000 random ones found these six): with the gap just under the optimum's lead, only the optimum is within it
_GAP_TRAPS = [
    ([2563001, 1652508, 1411339, 1277843, 1124340, 906437, 892004, 603611, 443237, 438956, 330203, 298964], 5, 2,
     [[0, 1, 2, 4, 10], [0, 1, 6, 8, 9], [0, 1, 2, 5, 11]]),
    ([2990283, 2949529, 1147378, 1084866, 1019485, 449871, 322657, 199518], 4, 2,
     [[1, 2, 4, 6], [0, 2, 3, 4], [2, 3, 4, 7], [0, 1, 4, 5]]),
    ([3452155, 3432911, 1046570, 888331, 739860, 401218, 227951], 3, 1, [[0, 2, 3], [1, 2, 4], [2, 5, 6], [0, 1, 6]]),
    ([5608882, 4612838, 1687074, 746798, 659531, 656213, 516741, 251398, 105878, 96558], 3, 1, [[0, 2, 9], [0, 1, 9]]),
    ([5944796, 5116680, 2462878, 2320195, 1792164, 1790647, 1313492, 595180, 462204, 366995, 311774, 291483], 5, 2,
     [[1, 2, 4, 8, 9], [2, 4, 7, 8, 11], [0, 2, 3, 8, 10]]),
    ([6106373, 4447648, 4284871, 4105005, 1773881, 961488, 887467, 873736, 735396, 550117, 525715, 410379], 5, 1,
     [[0, 2, 6, 10, 11], [0, 2, 8, 10, 11], [2, 4, 5, 6, 11], [0, 1, 5, 8, 11]]),
]


@pytest.mark.parametrize("lp_after", [256, 0])
@pytest.mark.parametrize("c, k, ov, fixed", _GAP_TRAPS)
def test_step_search_gap_cuts_only_what_the_gap_allows(c, k, ov, fixed, lp_after):
    values = sorted({sum(c[i] for i in F) for F in itertools.combinations(range(len(c)), k)
                     if all(len(set(F) & set(F_)) <= ov for F_ in fixed)}, reverse=True)
    gap = (1 - values[1] / values[0]) / 2
    with _lp_after(lp_after):
        got = alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, 10**9, gap=gap)
    assert sum(c[i] for i in got) == values[0]

@pytest.mark.parametrize("search", ["sequential", "sum", "min", "min_disjoint"])
def test_relative_gap_reaches_every_search(search):
    "SolverOptions(relative_gap=g): every search's answer is worth at least (1 - g) of the exact one."
    q = np.random.default_rng(11).lognormal(0, 1, 40)
    p, gap = {"kind": "linear", "q": q, "n": 40}, 0.02
    agg, tau, n_sets = {"sequential": ("sum", 0.5, 1), "sum": ("sum", 0.5, 3), "min": ("min", 0.5, 3),
                        "min_disjoint": ("min", 1.0, 3)}[search]
    def value(options):
        if search == "sequential":
            seq, sets = alt_search.SequentialSearch(p, 8, tau, "cpsat", "fast", None, False, (), (), None, 0, 1, options), []
            for _ in range(4):
                s_, st_, _ = seq.step(sets)
                assert st_ == "optimal"
                sets.append(s_[0])
            return [q[s_].sum() for s_ in sets]
        sets, st_, _ = solve_alternatives(p, 8, tau, n_sets, aggregation=agg, formulation="fast", time_limit=None,
                                          options=options)
        assert st_ == "optimal"
        v = [q[s_].sum() for s_ in sets]
        return [min(v)] if agg == "min" else [sum(v)]
    exact, got = value(SolverOptions()), value(SolverOptions(relative_gap=gap))
    assert got[0] >= (1 - gap) * exact[0] - 1e-9 and got[0] <= exact[0] + 1e-9
    for bad in (-0.1, 1.0, True, "0.1"):
        with pytest.raises((ValueError, TypeError), match="relative_gap"):
            solve_alternatives(p, 8, tau, n_sets, aggregation=agg, options=SolverOptions(relative_gap=bad))


# --- the step search's LP turn: the relaxation against HiGHS, the multipliers' bound and question against brute force ---
def _lp_case(seed, step):
    "A step of a sequential search (k = 10, at most 2 shared) on which the LP's turn asks its question (a scan found it)."
    rng = np.random.default_rng(seed)
    n = int(rng.integers(24, 45))
    q = 1 + 0.05 * rng.random(n) if seed % 2 else rng.lognormal(0, 0.5, n)
    c, fixed = sorted((10**6 * q).astype(int).tolist(), reverse=True), []
    for _ in range(step):
        fixed.append(list(alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 10**9)))
    return c, fixed, 10, 2


_LP_CASES = [(0, 6), (3, 8)]


def _lp_problem(seed, n, k, n_fixed, ov, ties):
    rng = np.random.default_rng(seed)
    c = np.ascontiguousarray(np.sort(rng.integers(0, 4, n) if ties else rng.integers(0, 10**6, n))[::-1])  # the kernels take C order
    fixed = [sorted(rng.choice(n, k, replace=False).tolist()) for _ in range(n_fixed)]
    return rng, c, fixed


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 40), k=st.integers(1, 12), n_fixed=st.integers(1, 12),
       ov=st.integers(0, 6), ties=st.booleans(), start=st.booleans())
def test_lp_relax_equals_highs(seed, n, k, n_fixed, ov, ties, start):
    "The step's LP relaxation against scipy's HiGHS: status, value, a feasible x, and duals whose bound is the value."
    from scipy.optimize import linprog
    k, ov = min(k, n), min(ov, k)
    rng, c, fixed = _lp_problem(seed, n, k, n_fixed, ov, ties)
    A = np.array([[t in F for t in range(n)] for F in fixed], dtype=float)
    first = np.zeros(0, dtype=np.int64)
    for _ in range(30 * start):  # a feasible set to start from, if 30 draws find one
        S = np.sort(rng.choice(n, k, replace=False))
        if (A[:, S].sum(axis=1) <= ov).all():
            first = S
            break
    mptr, midx, _ = alt_search._memberships(n, fixed)
    cs = c / max(c.max(), 1)
    status, x, lam = alt_kernels.lp_relax(cs, mptr, midx, len(fixed), k, ov, 10**5, first)
    ref = linprog(-cs, A_ub=A, b_ub=np.full(len(fixed), ov), A_eq=np.ones((1, n)), b_eq=[k], bounds=(0, 1),
                  method="highs")
    if ref.status == 2:
        assert status == 1
        return
    v = -ref.fun
    assert status == 0 and abs(cs @ x - v) <= 1e-9 * (1 + v) and abs(x.sum() - k) <= 1e-9
    assert (A @ x <= ov + 1e-9).all() and x.min() >= -1e-12 and x.max() <= 1 + 1e-12
    assert lam.min(initial=0) >= 0
    assert abs(ov * lam.sum() + np.sort(cs - A.T @ lam)[::-1][:k].sum() - v) <= 1e-9 * (1 + v)


def _ask(c, fixed, k, ov, mult, T):
    "The question's search on its own: a stand-in incumbent T - 1 (None: no incumbent), stopped at the first set >= T."
    cons = [F for F in fixed if len(F) > ov]
    mptr, midx, pattern = alt_search._memberships(len(c), cons)
    q, got = np.zeros(5, dtype=np.int64), np.zeros(k, dtype=np.int64)
    if T is not None: q[3], q[4] = 1, T - 1
    alt_kernels.step_nodes(np.ascontiguousarray(c, dtype=np.int64), mptr, midx, pattern, k, ov, 0.0, 10**12, q,
                    *alt_search._walk_work(len(c), k, int(pattern.max()) + 1, len(cons)), got, *mult,
                    alt_search._NO_STOP if T is None else T)
    return q, got


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 11), k=st.integers(2, 5), n_fixed=st.integers(1, 4),
       ov=st.integers(0, 3), ties=st.booleans(), lp=st.booleans())
def test_walk_with_multipliers_answers_the_question_exactly(seed, n, k, n_fixed, ov, ties, lp):
    """With the multipliers' bound (the LP's, or arbitrary ones: any lam >= 0 bounds), a search without an incumbent
    finds the brute-force optimum, and the question finds a set worth T at the optimum and none one above it."""
    k, ov = min(k, n), min(ov, k - 1)
    rng, c, fixed = _lp_problem(seed, n, k, n_fixed, ov, ties)
    cons = [F for F in fixed if len(F) > ov]
    mptr, midx, _ = alt_search._memberships(n, cons)
    mult = None
    if lp and cons:
        cp, lam, D, _, _ = alt_kernels.lp_multipliers(c, mptr, midx, len(cons), k, ov, np.zeros(0, dtype=np.int64))
        mult = (cp, np.argsort(-cp, kind="stable"), lam, D)
    if mult is None or not mult[3]:  # arbitrary multipliers, D = 1
        lam = rng.integers(0, int(c.max()) + 2, max(len(cons), 1))[:len(cons)]
        cp = c.astype(np.int64) - np.array([lam[midx[mptr[t]:mptr[t + 1]]].sum() for t in range(n)], dtype=np.int64)
        mult = (cp, np.argsort(-cp, kind="stable"), lam.astype(np.int64), 1)
    best = _brute_step(lambda F: int(sum(c[i] for i in F)), lambda F: True, n, k, ov, [np.array(F) for F in fixed])
    q, got = _ask(c, fixed, k, ov, mult, None)
    if best == -np.inf:
        assert q[3] == 0
        return
    assert q[3] == 1 and q[4] == best and sum(c[i] for i in got) == best
    q, got = _ask(c, fixed, k, ov, mult, best)  # yes, with a set worth best
    assert q[4] == best and sum(c[i] for i in got) == best and len(set(got.tolist())) == k
    assert all(len(set(got.tolist()) & set(F)) <= ov for F in fixed)
    q, _ = _ask(c, fixed, k, ov, mult, best + 1)  # no: nothing beats the stand-in
    assert q[4] == best


@pytest.mark.parametrize("case, gap, answer", [((0, 6), 0.0, "no"), ((0, 6), 1e-4, "no"), ((3, 8), 0.0, "no"),
                                               ((3, 8), 1e-4, "yes")])
def test_step_search_lp_question_either_way_gives_the_searchs_answer(monkeypatch, case, gap, answer):
    """Both ways out of the LP's question (a set within the gap of its bound: done; none: the search goes on with
    both bounds) give what the search without the LP gives: the same value exact, within the gap of it otherwise."""
    c, fixed, k, ov = _lp_case(*case)
    monkeypatch.setattr(alt_search, "_LP_AFTER", 10**9)
    plain = sum(c[i] for i in alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, 10**9))
    seen, lp_step = [], alt_search._lp_step
    def spy(*args):
        state, nodes = args[9], int(args[9][2])
        out = lp_step(*args)
        seen.append(("yes" if out is None else "no") if state[2] > nodes else "not asked")
        return out
    monkeypatch.setattr(alt_search, "_lp_step", spy)
    monkeypatch.setattr(alt_search, "_LP_AFTER", 256)
    got = alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, 10**9, gap=gap)
    assert seen == [answer]
    value = sum(c[i] for i in got)
    assert plain - gap * abs(plain) <= value <= plain and (gap > 0 or value == plain)
    assert len(set(got)) == k and all(len(set(got) & set(F)) <= ov for F in fixed)


def test_step_search_lp_turn_settles_a_hard_last_step(monkeypatch):
    "The last step of `_hard_last_step`: more than 20,000 nodes without the LP's turn, under 1,000 with it."
    c, fixed = _hard_last_step()
    monkeypatch.setattr(alt_search, "_LP_AFTER", 10**9)
    assert alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 20_000) is None
    plain = alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 10**9)
    monkeypatch.setattr(alt_search, "_LP_AFTER", 256)
    got = alt_search._step_search(c, fixed, 10, 2, time.perf_counter() + 60, 1_000)
    assert got is not None and sum(c[i] for i in got) == sum(c[i] for i in plain)



@pytest.mark.parametrize("case, gap, budget", [((0, 6), 0.0, 1_300), ((3, 8), 0.0, 13_000), ((3, 8), 1e-4, 13_000)])
def test_step_search_lp_turn_needs_fewer_nodes_than_the_search_alone(monkeypatch, case, gap, budget):
    """Within half the nodes the search alone needs (2,656, 27,450 and 26,213), the LP's turn answers: its first set,
    its question and the multipliers' bound beside the partition bound (609, 2,430 and 534 nodes)."""
    c, fixed, k, ov = _lp_case(*case)
    monkeypatch.setattr(alt_search, "_LP_AFTER", 10**9)
    assert alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, budget, gap=gap) is None
    monkeypatch.setattr(alt_search, "_LP_AFTER", 256)
    assert alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, budget, gap=gap) is not None


# small steps whose LP's k largest values break an overlap (a scan of random problems finds one in about 370)
_LP_BAD_CANDIDATES = [
    ([943377, 913493, 455322, 413846, 358597, 353256, 342687, 75813], [[1, 2, 4], [0, 1, 5], [0, 2, 5]], 3, 1),
    ([957645, 948475, 930896, 905847, 649912, 463449, 458719, 243791, 113945, 23963, 4052],
     [[0, 1, 3, 6, 8], [1, 2, 4, 5, 10], [0, 2, 3, 6, 8]], 5, 2),
    ([916998, 906843, 891402, 642692, 571035, 545772, 416611, 242766], [[0, 2, 3], [0, 4, 6], [5, 6, 7], [0, 3, 5]], 3, 1),
]


@pytest.mark.parametrize("c, fixed, k, ov", _LP_BAD_CANDIDATES)
def test_step_search_lp_turn_drops_a_first_set_that_breaks_an_overlap(monkeypatch, c, fixed, k, ov):
    mptr, midx, _ = alt_search._memberships(len(c), fixed)
    cand, ok = alt_kernels.lp_multipliers(np.array(c), mptr, midx, len(fixed), k, ov, np.zeros(0, dtype=np.int64))[3:]
    assert not ok and any(len(set(cand.tolist()) & set(F)) > ov for F in fixed)  # the LP's largest values break one
    monkeypatch.setattr(alt_search, "_LP_AFTER", 0)
    got = alt_search._step_search(c, fixed, k, ov, time.perf_counter() + 60, 10**9)
    assert all(len(set(got) & set(F)) <= ov for F in fixed)
    assert sum(c[i] for i in got) == _brute_step(lambda F: sum(c[i] for i in F), lambda F: True, len(c), k, ov,
                                                 [np.array(F) for F in fixed])

def test_step_search_gives_its_best_set_as_hint(monkeypatch):
    # a step the search gives up on: CP-SAT starts from the search's best set, which is feasible for this step
    # (the previous step's solution, the hint otherwise, breaks the new constraint)
    q = np.random.default_rng(5).random(40)
    p, k, tau = {"kind": "linear", "q": q, "n": 40}, 6, 0.5
    hints, solve = [], alt_model.CpSatModel.solve
    def spy(self):
        h = self.m.proto.solution_hint
        hints.append(dict(zip(h.vars, h.values)))
        return solve(self)
    monkeypatch.setattr(alt_model.CpSatModel, "solve", spy)
    ss = alt_search.SequentialSearch(p, k, tau, "cpsat", "fast", None, False, (), (), None, 0, 1,
                               options=alt.SolverOptions(nodes=60))
    sets, checked = [], 0
    for _ in range(6):
        before = len(hints)
        (s,), status, _ = ss.step(sets)
        assert status == "optimal"
        if len(hints) > before and hints[-1]:  # this step went to CP-SAT with a hint
            hinted = [int(ss.feats[i]) for i, v in hints[-1].items() if v]
            assert len(hinted) == k and all(len(set(hinted) & set(F.tolist())) <= max_overlap(k, tau) for F in sets)
            checked += 1
        sets.append(s)
    assert checked >= 2, "fewer than two steps went to CP-SAT with a hint"


def test_sequential_step_model_solves_without_presolve(monkeypatch):
    q = np.random.default_rng(6).random(30)
    ss = alt_search.SequentialSearch({"kind": "linear", "q": q, "n": 30}, 5, 0.5, "cpsat", "fast", None, False, (), (), None,
                               0, 1, options=alt.SolverOptions(nodes=0))  # no step search: every step on the model
    sets = []
    for _ in range(3):
        (s,), status, _ = ss.step(sets)
        sets.append(s)
        prm = ss.model._s.parameters
        assert status == "optimal" and not prm.cp_model_presolve and prm.presolve_inclusion_work_limit == 0


def test_max_min_walk_rounds_are_time_limited(monkeypatch):
    # after the first round (candidates only) a walk round may run at most as long as everything before it
    q = np.random.default_rng(3).random(14)
    p = {"kind": "linear", "q": q, "n": 14}
    log, run = [], alt_search._MaxMinWalk.run
    monkeypatch.setattr(alt_search._MaxMinWalk, "run", lambda self, m, d=None: log.append((m, d, time.perf_counter())) or run(self, m, d))
    t0 = time.perf_counter()
    sets, status, _ = solve_alternatives(p, 4, 0.5, 5, aggregation="min", formulation="fast", time_limit=None,
                                         options=SolverOptions(walk_start=1, band=False))  # (the band settles it)
    assert status == "optimal" and len(log) >= 2
    assert log[0][1] is None  # no time limit: the first round is limited by its candidates only
    for m, d, now in log[1:]:
        assert d is not None and d - now <= (now - t0) + 1e-3


def test_counting_proves_infeasibility_without_a_solver(monkeypatch):
    # n_sets sets of k features with pairwise overlap <= ov cover at least n_sets k - C(n_sets, 2) ov features
    def no_solver(*a, **kw): raise AssertionError("a solver or walk ran although counting proves infeasibility")
    for name in ("solve_model", "_solve_sum_by_counts", "_solve_max_min", "_feasibility", "_solve_counts"):
        monkeypatch.setattr(alt_search, name, no_solver)
    q = np.random.default_rng(0).random(20)
    for k, tau, n_sets, agg in ((10, 1.0, 5, "min"), (10, 0.9, 3, "min"), (10, 0.9, 3, "sum"), (5, 1.0, 5, "sum")):
        assert 20 < n_sets * k - n_sets * (n_sets - 1) // 2 * max_overlap(k, tau)
        sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 20}, k, tau, n_sets, aggregation=agg,
                                             formulation="fast", time_limit=None)
        assert status == "infeasible" and sets == [None] * n_sets


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 7), k=st.integers(1, 3), n_sets=st.integers(2, 4),
       tau=st.sampled_from([0.2, 1 / 3, 0.5, 2 / 3, 1.0]), agg=st.sampled_from(["sum", "min"]))
def test_counting_check_agrees_with_brute_force(seed, n, k, n_sets, tau, agg):
    k = min(k, n)
    q = np.random.default_rng(seed).random(n)
    sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": n}, k, tau, n_sets, aggregation=agg,
                                         formulation="fast", time_limit=None)
    best = brute(lambda s: q[s].sum(), n, k, tau, n_sets, agg)
    assert (status == "infeasible") == (best == -np.inf)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 9), k=st.integers(1, 4),
       tau=st.sampled_from([0.2, 1 / 3, 0.5, 2 / 3, 0.75, 1.0]), ties=st.booleans())
def test_two_sets_min_equals_brute_force(seed, n, k, tau, ties):
    k = min(k, n)
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 4, n).astype(float) if ties else rng.random(n)
    sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": n}, k, tau, 2, aggregation="min",
                                         formulation="fast", time_limit=None)
    best = brute(lambda s: q[s].sum(), n, k, tau, 2, "min")
    if best == -np.inf:
        assert status == "infeasible" and sets == [None, None]
        return
    assert status == "optimal" and all(len(set(s.tolist())) == k for s in sets)
    assert len(set(sets[0]) & set(sets[1])) <= max_overlap(k, tau) and abs(min(q[s].sum() for s in sets) - best) <= 1e-9


def test_two_sets_min_needs_no_walk_or_model(monkeypatch):
    # the shared features are the best ones, the rest a balanced split of the next ones: no candidate walk, no CP-SAT
    def no_search(*a, **kw): raise AssertionError("two sets, min-aggregation, went to the walk or the model")
    monkeypatch.setattr(alt_search._MaxMinWalk, "run", no_search)
    monkeypatch.setattr(alt_search, "solve_model", no_search)
    q = np.random.default_rng(2).random(34)
    for tau in (0.3, 0.6, 0.9):
        sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 34}, 10, tau, 2, aggregation="min",
                                             formulation="fast", time_limit=None)
        assert status == "optimal" and len(set(sets[0]) & set(sets[1])) <= max_overlap(10, tau)


@pytest.mark.parametrize("seed", [0, 3])
def test_max_min_walk_over_many_words_of_candidates_equals_cp_sat(seed):
    "The compiled clique search on bit rows of many 64-bit words (over a thousand candidates) against CP-SAT's model."
    q = np.sort(np.random.default_rng(seed).lognormal(0, 0.3, 19))[::-1]
    c = [int(round(x * 1e6)) for x in q]
    w = alt_search._MaxMinWalk(c, 10, 5, 3, 10**9)
    sets, status, value = w.run(20_000)
    assert status == "optimal" and len(w.cands) > 900  # the cliques reach across many words
    assert all(len(set(a) & set(b)) <= 5 for a, b in itertools.combinations(sets, 2))
    assert min(sum(c[i] for i in S) for S in sets) == value
    ref, st_, _ = solve_alternatives({"kind": "linear", "q": np.array(c, dtype=float), "n": 19}, 10, 0.5, 3,
                                     aggregation="min", formulation="fast", time_limit=None,
                                     options=SolverOptions(candidates=0))  # no walk: CP-SAT's model alone
    assert st_ == "optimal" and min(sum(c[i] for i in S) for S in ref) == value


def _max_min_problem(seed, nf=40):
    "Qualities of many features of similar size: the max-min optimum lies within 1e-3 of the sum bound."
    q = np.random.default_rng(seed).lognormal(0, 0.5, nf)
    return {"kind": "linear", "q": q, "n": nf}

@pytest.mark.parametrize("seed", range(6))
def test_balanced_incumbent_settles_the_max_min_within_the_gap(seed, monkeypatch):
    "The balancing search's sets end the call without CP-SAT when they are within the gap of the sum bound."
    p, gap, k, tau, n_sets = _max_min_problem(seed), 1e-3, 8, 0.75, 4
    by_sum, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="sum", formulation="fast", time_limit=None)
    assert st_ == "optimal"
    bound = sum(p["q"][s_].sum() for s_ in by_sum) / n_sets  # no weakest set is worth more than the sets' mean
    calls = []
    real = alt_model.solve_model
    monkeypatch.setattr(alt_search, "solve_model", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    got, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                     options=alt.SolverOptions(relative_gap=gap, walk_start=1))
    assert st_ == "optimal"
    ov = alt.max_overlap(k, tau)
    assert [len(s_) for s_ in got] == [k] * n_sets
    assert all(len(set(A) & set(B)) <= ov for A, B in itertools.combinations([s_.tolist() for s_ in got], 2))
    v = min(p["q"][s_].sum() for s_ in got)
    assert (1 - gap) * bound - 1e-6 <= v <= bound + 1e-6  # within the gap of the bound, so of the optimum
    # the walk's first round (one candidate per feature) does not finish, the sum bound is within the gap of the
    # optimum: no solver runs (a search that failed to balance would hand over to CP-SAT)
    assert not calls, f"CP-SAT ran {len(calls)} times"

def test_cpsat_starts_from_the_hinted_sets():
    "_solve_model(hint=...): every set variable is hinted, the best set first (the model orders sets by quality)."
    p = _max_min_problem(0, 12)
    sets = [np.array([0, 1, 2]), np.array([3, 4, 5]), np.array([6, 7, 8])]
    order = sorted(sets, key=lambda s_: -p["q"][s_].sum())
    m, S, feats = alt_model.solve_model(p, np.arange(12), 3, 1.0, 3, (), (), "min", "cpsat", "fast", None, None, 0, 1,
                                   alt.SolverOptions(), return_model=True, hint=sets)
    hint = m.m.proto.solution_hint
    given = dict(zip(hint.vars, hint.values))
    for s, h in zip(S, order):
        assert [given[v.index] for v in s] == [int(i in set(h.tolist())) for i in range(12)]

def test_an_incumbent_outside_the_gap_hands_over_to_the_exact_search():
    "Sets the balancing search cannot prove within the gap never end the call: the walk and CP-SAT go on."
    k, tau, n_sets, gap, below = 6, 0.5, 4, 1e-6, 0
    ov = alt.max_overlap(k, tau)
    for seed in (1, 2, 5):
        p = _max_min_problem(seed, 24)
        exact, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None)
        assert st_ == "optimal"
        best = min(p["q"][s_].sum() for s_ in exact)
        # the descent alone (no restarts) from the sum path's sets, on the model's integers
        order = np.argsort(-p["q"], kind="stable")
        c = [int(round(x * 1e9)) for x in p["q"][order]]
        _, _, start = alt_search._min_ub_by_sum(p["q"][order], c, 1e9, k, tau, n_sets, None, 0, alt.SolverOptions())
        sets, v = alt_search._balanced_sets(c, start, ov, 0, 10**18)
        below += v / 1e9 < best * (1 - 1e-6)
        got, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                         options=alt.SolverOptions(relative_gap=gap, walk_start=1, balance_kicks=0))
        assert st_ == "optimal" and min(p["q"][s_].sum() for s_ in got) >= (1 - gap) * best - 1e-9
    assert below, "the descent alone found every optimum: this test could not fail"
    for bad in (-1, 2.5, "3", True, 10**7):
        with pytest.raises((ValueError, TypeError), match="balance_kicks"):
            solve_alternatives(p, k, tau, n_sets, aggregation="min", options=alt.SolverOptions(balance_kicks=bad))
    for bad in (0, -0.5, 1.5, "0.5", True, float("nan")):
        with pytest.raises((ValueError, TypeError), match="band_keep"):
            solve_alternatives(p, k, tau, n_sets, aggregation="min", options=alt.SolverOptions(band_keep=bad))


def test_band_search_agrees_with_the_exact_search_without_it(monkeypatch):
    "Where the band search decides a max-min problem, its optimum is that of the walk and CP-SAT without it."
    k, tau, n_sets, found = 6, 0.5, 4, 0
    log, run = [], alt_search._BandSearch.run
    monkeypatch.setattr(alt_search._BandSearch, "run", lambda self, d=None: log.append(run(self, d)) or log[-1])
    for seed in range(1, 13):
        p = _max_min_problem(seed, 18)
        ref, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                         options=alt.SolverOptions(band=False))
        assert st_ == "optimal" and not log
        # a first look of one candidate per feature, and the descent alone (no restarts): the band search has to
        # find better sets than the descent's
        got, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                         options=alt.SolverOptions(balance_kicks=0, walk_look=1, band_keep=1.0))
        assert st_ == "optimal"
        assert all(len(set(A) & set(B)) <= alt.max_overlap(k, tau)
                   for A, B in itertools.combinations([s_.tolist() for s_ in got], 2))
        assert min(p["q"][s_].sum() for s_ in got) == pytest.approx(min(p["q"][s_].sum() for s_ in ref), rel=1e-9)
        found += any(r is not None and r[1] is not None for r in log)
        log.clear()
    assert found >= 2, found  # the band search found the optimum itself (3 of these 12 problems, measured)


def test_band_search_runs_only_where_its_cap_cuts(monkeypatch):
    "A band keeping at least `band_keep` of the k-subsets worth its target T gives up at once (counted by brute force)."
    k, tau, n_sets, seen = 6, 0.5, 4, []
    init = alt_search._BandSearch.__init__
    def spy(self, c, k_, ov, n_, S, T, limit, max_nodes, keep=1.0):
        init(self, c, k_, ov, n_, S, T, limit, max_nodes, keep)
        seen.append((self.dead, np.asarray(c), S - (n_ - 1) * T, T, keep))
    monkeypatch.setattr(alt_search._BandSearch, "__init__", spy)
    verdicts = set()
    for seed in range(1, 13):
        p = _max_min_problem(seed, 18)
        got, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                         options=alt.SolverOptions(balance_kicks=0, walk_look=1))
        assert st_ == "optimal" and seen
        for dead, c, hi, T, keep in seen:
            worth = np.array([c[list(s_)].sum() for s_ in itertools.combinations(range(len(c)), k)])
            above, band = (worth >= T).sum(), ((worth >= T) & (worth <= hi)).sum()
            assert keep == pytest.approx(alt.SolverOptions().band_keep)  # the default share reaches the band
            assert dead == (band > 0 and band >= keep * above), (seed, band, above)
            verdicts.add(dead)
        seen.clear()
    assert verdicts == {True, False}  # both cases occur (1 of the 12 bands keeps nine tenths or more, measured)


def _band_search_in_python(b, ov):
    """The band's clique search written out over Python lists: (value of the first weakest set with partners, or
    None; nodes expanded). Picks go from the latest (cheapest) candidate on, as in the compiled search."""
    X = np.unpackbits(b.A.view(np.uint8), axis=1, bitorder="little").astype(np.int64)
    ok, vals, S, r, nodes = ((X @ X.T) <= ov).tolist(), b.vals.tolist(), b.S, b.r, 0
    def search(pool, d, budget):  # pool: depth d's candidates, in order; budget: what its r - d picks may spend
        nonlocal nodes
        for t in range(len(pool) - 1, -1, -1):
            v = pool[t]
            if t + 1 < r - d or (r - d) * vals[v] > budget: return False  # too few left, or too dear
            nodes += 1
            if d + 1 == r: return True
            cap = budget - (r - d - 1) * vals[v]  # v, and the picks after the next, worth at least vals[v]
            if search([u for u in pool[:t] if ok[u][v] and vals[u] <= cap], d + 1, budget - vals[v]): return True
        return False
    for i in range(len(vals)):
        if search([u for u in range(i) if ok[i][u] and vals[u] <= S - r * vals[i]], 0, S - vals[i]):
            return vals[i], nodes
    return None, nodes

def test_band_clique_search_is_pruned_by_the_sum_bound():
    """The band's clique search prunes with the sum bound: it expands exactly the nodes of the search written out in
    Python, and it finds the weakest set that the search without the bound finds (`_clique_nodes` over full
    compatibility rows, passing over cliques worth more than S), with fewer nodes in all."""
    rng, pruned, plain, decided, widths = np.random.default_rng(3), 0, 0, set(), set()
    for t in range(40):  # every tenth problem: more than 64 features, two words per set
        nf, k, n = int(rng.integers(11, 15)), int(rng.integers(3, 6)), int(rng.integers(3, 5))
        if t % 10 == 0: nf, k = int(rng.integers(65, 70)), 3
        ov, c = int(rng.integers(1, k)), np.sort(rng.integers(1, 60, nf))[::-1].astype(np.int64)
        worth = np.sort([int(c[list(s_)].sum()) for s_ in itertools.combinations(range(nf), k)])[::-1]
        T = int(worth[int(rng.integers(1, len(worth) // (4 if nf < 64 else 200)))])
        S = n * T + int(rng.integers(0, 2 * (worth[0] - T) + 1))
        b = alt_search._BandSearch(c, k, ov, n, S, T, 10**6, 10**9)
        if b.done is not None: continue
        got, r, m = b.run(), b.r, len(b.vals)
        assert (got[1], int(b.state[1])) == _band_search_in_python(b, ov)
        # the same walk without the bound: partners of i from the first worth at most S - r * vals[i]
        N = alt_kernels.compat_rows(b.A, ov, np.zeros(m, dtype=np.int64))
        first = np.searchsorted(b.neg, -(S - r * b.vals), side="left")
        state, P = np.zeros(2, dtype=np.int64), np.zeros((r + 1, N.shape[1]), dtype=np.uint64)
        words, chosen, res = np.zeros(r + 1, dtype=np.int64), np.zeros(r, dtype=np.int64), 0
        for i in range(m):
            P[0] = N[i]
            P[0, :first[i] // 64] = 0
            if first[i] // 64 < N.shape[1]: P[0, first[i] // 64] &= ~np.uint64((1 << int(first[i] % 64)) - 1)
            state[0], words[0] = 0, i // 64 + 1
            while (res := alt_kernels.clique_nodes(N, r, 10**12, state, P, words, chosen)) == 1:
                if b.vals[i] + b.vals[chosen].sum() <= S: break
                state[0] = r - 1  # a clique worth more than S: on with the search
            if res == 1: break
        assert (got[1] is not None) == (res == 1) and (res == 0 or got[1] == b.vals[i])
        pruned, plain = pruned + int(b.state[1]), plain + int(state[1])
        decided.add(got[1] is not None)
        widths.add(b.A.shape[1])
    assert decided == {True, False} and widths == {1, 2} and pruned < plain, (decided, widths, pruned, plain)


def _d20_problem(seed):
    "make_classification with 20 features (the rule-drawn benchmark's d=20 family): MI qualities."
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=500, n_features=20, n_informative=4, n_redundant=2, flip_y=0.05,
                               random_state=seed)
    return {"kind": "linear", "q": mi_qualities(X, y, 0), "n": 20}


def test_band_turn_lasts_up_to_twice_everything_before_it(monkeypatch):
    "Each band turn may last twice as long as everything before it in the max-min search (CP-SAT's: as long)."
    p = _d20_problem(0)
    turns, run, solve = [], alt_search._BandSearch.run, alt_search._solve_max_min
    def band_run(self, d=None):
        turns.append((time.perf_counter(), d))
        return run(self, d)
    def solve_max_min(*a, **kw):
        turns.append((time.perf_counter(), None))  # just before the search's own clock starts
        return solve(*a, **kw)
    monkeypatch.setattr(alt_search._BandSearch, "run", band_run)
    monkeypatch.setattr(alt_search, "_solve_max_min", solve_max_min)
    solve_alternatives(p, 10, 0.6, 3, aggregation="min", formulation="fast", time_limit=None,
                       options=alt.SolverOptions(relative_gap=1e-4))
    (t0, _), *band = turns
    assert band and all(1.9 < (d - t) / (t - t0) <= 2 for t, d in band), (t0, band)


def test_band_search_takes_the_walks_turns_once_the_walk_is_out(monkeypatch):
    """Once the walk is out of the race, a live band search alternates with CP-SAT and here decides first. The band
    is held to one chunk of nodes in its first two turns, so that it does not decide before the walk is out (its
    pass takes about 1.5 million nodes)."""
    p = _d20_problem(1)
    log, run, model = [], alt_search._BandSearch.run, alt_model.solve_model
    def band_run(self, d=None):
        turns = sum(e[0] == "band" for e in log)
        log.append(("band", run(self, time.perf_counter() if turns < 2 else d)))
        return log[-1][1]
    def solve_model(*a, **kw):
        r = model(*a, **kw)
        log.append(("cpsat", r[1]))
        return r
    monkeypatch.setattr(alt_search._BandSearch, "run", band_run)
    monkeypatch.setattr(alt_search, "solve_model", solve_model)
    got, st_, _ = solve_alternatives(p, 10, 0.6, 4, aggregation="min", formulation="fast", time_limit=None,
                                     options=alt.SolverOptions(relative_gap=1e-4))
    assert st_ == "optimal"
    # the band proved the incumbent within the gap, after a CP-SAT turn that did not finish
    assert log[-1][0] == "band" and log[-1][1] is not None, log
    undecided = [i for i, e in enumerate(log) if e[0] == "cpsat" and e[1] not in ("optimal", "infeasible")]
    assert undecided and undecided[0] < len(log) - 1, log
    log.clear()
    ref, st_, _ = solve_alternatives(p, 10, 0.6, 4, aggregation="min", formulation="fast", time_limit=None,
                                     options=alt.SolverOptions(relative_gap=1e-4, band=False))
    assert st_ == "optimal" and not any(e[0] == "band" for e in log)
    weakest = lambda ss: min(p["q"][s_].sum() for s_ in ss)
    assert weakest(got) >= weakest(ref) * (1 - 1e-4) - 1e-12


def _model_integers(p, k, n_sets):
    "The max-min search's view of a problem: features best first and their CP-SAT model integers."
    order = np.argsort(-p["q"], kind="stable")
    L = alt_model.cpsat_int_multiplier("linear", k, p["n"], n_sets, "min", "fast")
    scale = 10 ** alt_model.cpsat_precision(L) / alt_model.largest_coefficient(p, k, np.arange(p["n"]))
    return order, [int(round(float(x) * scale)) for x in p["q"][order]]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([(3, 0.34), (4, 0.5), (4, 0.75), (5, 0.6), (5, 0.8)]), st.integers(3, 4),
       st.booleans())
def test_cpsat_question_says_yes_exactly_up_to_the_max_min_optimum(seed, k_tau, n_sets, ties):
    """CP-SAT's yes-or-no question (`_reach`): some solution's weakest set reaches T? Yes, with valid sets, for T =
    the optimum (the exact walk's); no for T = the optimum + 1; no for any T where no solution exists."""
    (k, tau), rng = k_tau, np.random.default_rng(seed)
    nf = 12
    p = {"kind": "linear", "q": rng.integers(1, 4, nf).astype(float) if ties else rng.random(nf), "n": nf}
    order, c = _model_integers(p, k, n_sets)
    ov = max_overlap(k, tau)
    ref, st_, _ = alt_search._solve_min_by_cliques(c, k, ov, n_sets, budget={"candidates": 10**6})
    ask = lambda T: alt_search._cpsat_reaches(p, np.arange(nf), order, c, k, tau, n_sets, None, None, SolverOptions(), 0, 1,  # noqa: E731
                               None, None, T)
    if st_ == "infeasible":
        assert ask(0) == ("infeasible", None)
        return
    opt = min(sum(c[i] for i in s_) for s_ in ref)
    yes, sets = ask(opt)
    assert yes == "optimal" and len(sets) == n_sets and min(sum(c[i] for i in s_) for s_ in sets) >= opt
    assert all(len(s_) == k for s_ in sets)
    assert all(len(set(A) & set(B)) <= ov for A, B in itertools.combinations(sets, 2))
    assert ask(opt + 1) == ("infeasible", None)


@pytest.mark.parametrize("nf, k, tau, n_sets, answer", [
    (16, 5, 0.8, 4, "no"),  # the incumbent is optimal: a "no" ends the call
    (24, 5, 0.8, 5, "yes"),  # then the objective's search, from the better sets
])
def test_cpsat_alone_asks_whether_any_solution_beats_the_incumbent(nf, k, tau, n_sets, answer, monkeypatch):
    """Where the walk is out and the band gives up, CP-SAT goes on alone: first with the question whether any
    solution reaches the incumbent's gap target, then (only after a yes) with the objective's search. The answer is
    the optimum of CP-SAT's objective search alone. The two problems were found by searching lognormal qualities
    (`_max_min_problem`, seed 3) for each path. Under load, a CP-SAT turn beside the walk may come first (also a question)."""
    p, log, model = _max_min_problem(3, nf), [], alt_model.solve_model
    def solve_model(*a, **kw):
        r = model(*a, **kw)
        log.append((kw.get("min_lb") is not None, r[1]))
        return r
    monkeypatch.setattr(alt_search, "solve_model", solve_model)
    for gap in (0.0, 1e-4):
        log.clear()
        got, st_, _ = solve_alternatives(p, k, tau, n_sets, aggregation="min", formulation="fast", time_limit=None,
                                         options=alt.SolverOptions(relative_gap=gap))
        assert st_ == "optimal" and log, log
        if answer == "no":  # questions only, the last one answered no
            assert all(asked for asked, _ in log) and log[-1] == (True, "infeasible"), log
        else:  # a yes (here the objective's search follows it and ends the call), and no objective's search before it
            assert (True, "optimal") in log and all(asked for asked, _ in log[:log.index((True, "optimal"))]), log
        ref, st_, _ = model(p, np.arange(nf), k, tau, n_sets, (), (), "min", "cpsat", "fast", None, None, 0, 1,
                            alt.SolverOptions())
        weakest = lambda ss: min(p["q"][s_].sum() for s_ in ss)  # noqa: E731
        assert st_ == "optimal" and weakest(got) >= weakest(ref) * (1 - gap) - 1e-9
        assert all(len(set(A.tolist()) & set(B.tolist())) <= max_overlap(k, tau)
                   for A, B in itertools.combinations(got, 2))


def test_default_fit_takes_the_exact_shortcuts():
    "The default fit pre-selects the (a+1)k best features where that is exact (univariate qualities), same optimum."
    q = np.random.default_rng(3).random(3000)
    kw = dict(objective=q, k=5, n_alternatives=3, tau=0.5, search="simultaneous", aggregation="min")
    kept = []
    real = alt_search.preselect_features
    with mock.patch.object(alt_search, "preselect_features", lambda q_, n, *a: kept.append(n) or real(q_, n, *a)):
        default = AlternativeFeatureSelector(**kw).fit()
    assert default.preselect_ and kept == [4 * 5]  # (a + 1) k features searched, not 3,000
    full = AlternativeFeatureSelector(**kw, preselect=False).fit()
    assert not full.preselect_ and set(default.statuses_) == set(full.statuses_) == {"optimal"}
    assert min(default.qualities_) == pytest.approx(min(full.qualities_), rel=1e-9)
    # not exact for FCBF / mRMR: the default keeps every feature there
    rel = np.linspace(1, 0.1, 8)
    X, y = np.random.default_rng(0).random((40, 8)), np.arange(40) % 2
    fcbf = AlternativeFeatureSelector(objective="fcbf", k=2, n_alternatives=1, tau=0.5).fit(
        X, y, problem={"kind": "fcbf", "q": rel / rel.sum(), "pairs": [], "n": 8})
    assert not fcbf.preselect_ and fcbf.statuses_ == ["optimal"] * 2


def test_a_short_limit_on_1000_features_returns_feasible_sets_and_keeps_the_budget():
    """time_limit is the whole fit's budget: with 0.1 s for six sets of 10 of 1,000 features (min-aggregation, the
    exact search cannot finish without pre-selection) every set is found, feasible, with its status and proven gap,
    and the wall time stays within the budget + 30 ms (the pieces between two looks at the clock, on a loaded CI)."""
    q = np.random.default_rng(0).random(1000)
    kw = dict(k=10, n_alternatives=5, tau=0.5, search="simultaneous", aggregation="min", preselect=False)
    AlternativeFeatureSelector(objective=q[:60], **{**kw, "time_limit": 5.0}).fit()  # kernels compiled / loaded
    for limit in (0.1, 0.05):
        t0 = time.perf_counter()
        sel = AlternativeFeatureSelector(objective=q, **kw, time_limit=limit).fit()
        wall = time.perf_counter() - t0
        assert wall <= limit + 0.03, wall
        assert set(sel.statuses_) <= {"optimal", "feasible"} and all(s is not None for s in sel.feature_sets_)
        assert all(len(s) == 10 for s in sel.feature_sets_)
        assert all(len(set(a) & set(b)) <= 5 for a, b in itertools.combinations(sel.feature_sets_, 2))
        assert all(0 <= g < 0.05 for g in sel.gaps_) and list(sel.results_["gap"]) == sel.gaps_
    # counting proves infeasibility before any solver: 6 sets of 10 of 30 features, overlap <= 1
    with mock.patch.object(alt_model.CpSatModel, "solve", side_effect=AssertionError("a solver was called")):
        sel = AlternativeFeatureSelector(objective=q[:30], **{**kw, "tau": 0.9}).fit()
    assert sel.statuses_ == ["infeasible"] * 6


# ---- issue 45: FCBF and mRMR infeasibility by counting and bounds, before any solver -------------------------------
def _sets_exist(n, pairs, k, ov, n_sets, fixed=(), must_not=()):
    "Brute force: n_sets k-subsets, pairwise overlap <= ov, within ov of every fixed set, none holding a forbidden pair."
    bad = {frozenset(p) for p in pairs}
    ok = [set(c) for c in itertools.combinations(sorted(set(range(n)) - set(must_not)), k)
          if not any(frozenset(p) in bad for p in itertools.combinations(c, 2))
          and all(len(set(c) & set(F)) <= ov for F in fixed)]
    if n_sets == 1: return bool(ok)
    return any(all(len(a & b) <= ov for a, b in itertools.combinations(cs, 2)) for cs in itertools.combinations(ok, n_sets))


@pytest.mark.parametrize("kind", ["fcbf", "mrmr"])
def test_bounds_infeasible_is_never_wrong(kind):
    # every 'infeasible' the counting, clique and listing proofs give is infeasible by brute force, on random small
    # problems (random conflict graphs for FCBF; earlier sets, excluded features), and the proofs do fire
    rng, fired, n_probs = np.random.default_rng({"fcbf": 11, "mrmr": 12}[kind]), 0, 400
    for _ in range(n_probs):
        n = int(rng.integers(3, 10))
        k = min(int(rng.integers(1 if kind == "fcbf" else 2, 5)), n)
        ov, n_sets = int(rng.integers(0, k + 1)), int(rng.integers(1, 4))
        density = rng.random()
        pairs = [p for p in itertools.combinations(range(n), 2) if rng.random() < density] if kind == "fcbf" else []
        fixed = [sorted(rng.choice(n, k, replace=False).tolist()) for _ in range(int(rng.integers(0, 4)))]
        must_not = rng.choice(n, int(rng.integers(0, 2)), replace=False).tolist()
        p = {"kind": kind, "n": n, "pairs": pairs}
        if alt_search.bounds_infeasible(p, k, ov, n_sets, fixed, must_not):
            assert not _sets_exist(n, pairs, k, ov, n_sets, fixed, must_not), (n, k, ov, n_sets, pairs, fixed, must_not)
            fired += 1
        if kind == "fcbf":  # a sequential step decided by listing: its status and optimum, against brute force
            q = rng.random(n)
            s, status = alt_search._fcbf_step({**p, "q": q}, k, ov, fixed, must_not)
            best = max((q[list(c)].sum() for c in itertools.combinations(sorted(set(range(n)) - set(must_not)), k)
                        if not any(x in pairs for x in itertools.combinations(c, 2))
                        and all(len(set(c) & set(F)) <= ov for F in fixed)), default=None)
            assert (status == "infeasible") == (best is None)
            if best is not None: assert q[s].sum() == pytest.approx(best)
    assert fired >= n_probs // 10


@pytest.fixture(scope="module")
def bc_mrmr(bc):
    X, y = bc
    return _mrmr_data(X, y, 0)


def test_fcbf_and_mrmr_rows_proved_infeasible_before_any_solver(bc, bc_mrmr, monkeypatch):
    # the issue's rows (FCBF on breast cancer, both tools prove infeasible): decided by counting, cliques and listing,
    # with every solver and search patched to raise
    X, y = bc
    rel, R = bc_mrmr
    fcbf = {"kind": "fcbf", "q": rel / rel.sum(), "pairs": _fcbf_pairs(rel, R), "n": 30}
    mrmr = {"kind": "mrmr", "rel": rel, "R": R, "n": 30}
    def no_solver(*a, **kw): raise AssertionError("a solver ran although counting and bounds prove infeasibility")
    for name in ("solve_model", "_feasibility", "_enumerate_joint", "_solve_counts", "_solve_max_min"):
        monkeypatch.setattr(alt_search, name, no_solver)
    monkeypatch.setattr(alt_model.CpSatModel, "solve", no_solver)
    for search, agg, k, tau, a in (("simultaneous", "min", 5, 0.8, 3), ("simultaneous", "sum", 5, 0.8, 3),
                                   ("simultaneous", "sum", 5, 1.0, 3), ("sequential", "sum", 5, 0.8, 3)):
        sel = AlternativeFeatureSelector(objective="fcbf", k=k, n_alternatives=a, tau=tau, search=search,
                                         aggregation=agg).fit(X, y, problem=fcbf)
        want = ["infeasible"] * (a + 1) if search == "simultaneous" else ["optimal"] + ["infeasible"] * a
        assert sel.statuses_ == want
    t0 = time.perf_counter()
    assert alt_search.bounds_infeasible(fcbf, 5, max_overlap(5, 0.8), 4)
    assert time.perf_counter() - t0 < 0.05  # at the speed of the MI rows' counting (measured: about 0.5 ms)
    # mRMR: feasibility does not depend on the qualities; counting decides a joint search and a sequential step
    sets, status, _ = solve_alternatives(mrmr, 10, 0.9, 4, aggregation="min", formulation="fast")
    assert status == "infeasible" and sets == [None] * 4
    sets, status, _ = solve_alternatives(mrmr, 5, 1.0, 1, fixed_sets=[range(i, i + 5) for i in range(0, 25, 5)] + [[25, 26, 27, 28, 0]],
                                         formulation="fast")
    assert status == "infeasible"


def test_mrmr_sequential_step_out_of_time_returns_a_status():
    # an mRMR step whose model building runs out of time is 'not solved' (it raised UnboundLocalError: `got`, the
    # step search's best set, was set on the univariate path only)
    rng, n = np.random.default_rng(0), 60
    R = rng.random((n, n))
    R = (R + R.T) / 2
    np.fill_diagonal(R, 0)
    p = {"kind": "mrmr", "rel": rng.random(n), "R": R, "n": n}
    for tl in (0.001, 0.01):
        sel = AlternativeFeatureSelector(objective="mrmr", k=8, n_alternatives=1, tau=0.5, time_limit=tl)
        sel.fit(rng.random((50, n)), rng.integers(0, 2, 50), problem=p)
        assert len(sel.statuses_) == 2 and set(sel.statuses_) <= {"optimal", "feasible", "not solved", "not found"}


def test_fcbf_without_forbidden_pairs_runs_the_univariate_searches(monkeypatch):
    # FCBF with no forbidden pair is a univariate problem: the exact searches answer it, no CP-SAT model is built
    q = np.random.default_rng(3).random(20)
    lin, fcbf = {"kind": "linear", "q": q, "n": 20}, {"kind": "fcbf", "q": q, "pairs": [], "n": 20}
    want = {s: AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=0.5, search=s).fit().qualities_
            for s in ("sequential", "simultaneous")}
    def no_model(*a, **kw): raise AssertionError("a CP-SAT model was built for FCBF without forbidden pairs")
    monkeypatch.setattr(alt_search, "solve_model", no_model)
    X, y = np.random.default_rng(0).random((40, 20)), np.arange(40) % 2
    for s in ("sequential", "simultaneous"):
        sel = AlternativeFeatureSelector(objective="fcbf", k=5, n_alternatives=3, tau=0.5, search=s).fit(X, y, problem=fcbf)
        assert sel.statuses_ == ["optimal"] * 4 and sel.qualities_ == pytest.approx(want[s])
