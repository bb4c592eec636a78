"Tests for mlxplain.alternatives: definitions, solver search vs alfese, heuristics (paper examples), statuses, bad input."
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer

from mlxplain.alternatives import (AlternativeFeatureSelector, crosscheck_alfese, dice_dissimilarity, dice_fixed_k_holds,
                                   dice_linear_holds, greedy_balancing, greedy_depth_search, greedy_replacement, max_overlap,
                                   mi_qualities, solve_alternatives, _mrmr_data, _fcbf_pairs, demo, label_specific_alternatives,
                                   shared_vs_specific)

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
        assert t["both_optimal"].all()
        assert (t["rel_diff"] <= 1e-6).all(), t


def test_crosscheck_alfese_mrmr_fcbf(bc):
    X, y = bc
    rel, R = _mrmr_data(X[:250, :8], y[:250], 0)
    rel12, R12 = _mrmr_data(X[:250, :12], y[:250], 0)
    problems = {"mrmr": {"kind": "mrmr", "rel": rel, "R": R, "n": 8},
                "fcbf": {"kind": "fcbf", "q": rel12 / rel12.sum(), "rel": rel12, "R": R12, "pairs": _fcbf_pairs(rel12, R12), "n": 12}}
    t = crosscheck_alfese(problems, [(4, 0.5, 2, "sequential", "sum"), (3, 0.6, 1, "simultaneous", "sum"), (3, 0.6, 1, "simultaneous", "min")])
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
    to = AlternativeFeatureSelector(objective=np.random.default_rng(0).random(60), k=10, n_alternatives=5, tau=0.3,
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
