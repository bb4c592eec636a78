"""Bad input across mlxplain.alternatives' public functions (issue 42).

Two parts:
- the cases of issue 42, one named test each (each fails on the code before the fix);
- a generated suite (hypothesis): every public function on generated arguments. Most draws start from valid arguments
  and break one of them (a wrong type, NaN, inf, a huge or tiny value, an index out of range or repeated, a wrong
  shape or length, a name that is not a choice); the rest keep them all valid. A broken argument must raise a
  ValueError or TypeError whose message names it; valid arguments must give a result that keeps its contract: sets of
  k distinct features in range that honour tau, must/must_not and the fixed sets, statuses from the four, and on small
  problems the brute-force optimum (or 'infeasible' exactly when no solution exists). Any other exception fails.
  The functions that reach OR-Tools (native code) run in a fresh interpreter (`isolated`), so a crash or a hang fails
  that test, not the run. `pytest --hypothesis-show-statistics` prints how many cases each test drew and their outcomes.
"""
import itertools, math, os, re, subprocess, sys, time, warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, event, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import mlxplain.alternatives as alt
from mlxplain.alternatives import model as alt_model, search as alt_search
from mlxplain.alternatives import (AlternativeFeatureSelector, SolverOptions, cpsat_error_bound, crosscheck_alfese,
                                   dice_dissimilarity, dice_fixed_k_holds, dice_linear_holds, feature_mi_matrix,
                                   greedy_balancing, greedy_depth_search, greedy_replacement, greedy_wrapper,
                                   label_specific_alternatives, max_overlap, mi_qualities, model_gain_qualities,
                                   mrmr_value, shared_vs_specific, solve_alternatives, tree_mcc, wrapper_mcc)

ROOT = Path(__file__).parents[1]
ISOLATED = os.environ.get("MLXPLAIN_ISOLATED") == "1"
STATUSES = {"optimal", "feasible", "infeasible", "not solved"}
Q6 = np.array([9, 8, 7, 3, 2, 1.0])
FUZZ = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True, database=None)


def isolated(test):
    "Run `test` in a fresh interpreter (OR-Tools is native): a crash or a hang fails this test, not the run."
    if ISOLATED: return test
    def run():
        env = {**os.environ, "MLXPLAIN_ISOLATED": "1",
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-n", "0", "-p", "no:cacheprovider",
                            f"{__file__}::{test.__name__}"], capture_output=True, text=True, timeout=900, env=env,
                           cwd=ROOT)
        assert p.returncode == 0, f"exit {p.returncode}:\n{p.stdout[-6000:]}\n{p.stderr[-2000:]}"
    run.__name__, run.__doc__ = test.__name__, test.__doc__
    return run


def named(call, *names):
    "('ok', value), or ('error', e) for a ValueError/TypeError whose message names one of `names`; else it fails."
    try:
        out = call()
    except (ValueError, TypeError) as e:
        msg = str(e)
        assert any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", msg) for n in names), \
            f"{type(e).__name__} names none of {names}: {msg}"
        event(f"error ({type(e).__name__})")
        return "error", e
    event("ok")
    return "ok", out


def quiet(f):
    "Call f with warnings silenced (constant features and duplicate columns warn by design)."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f()


# ======================================================================================================================
# The cases of issue 42, one test each
# ======================================================================================================================

def test_sequential_search_stops_at_its_first_infeasible_step(monkeypatch):
    "10**6 alternatives: two sets exist (12 features, disjoint sets of 5), so the search solves three steps, not 10**6."
    calls = []
    step = alt_search.SequentialSearch.step
    def counted(self, fixed):
        calls.append(len(fixed))
        assert len(calls) <= 3, "a step was solved after the first infeasible one"
        return step(self, fixed)
    monkeypatch.setattr(alt_search.SequentialSearch, "step", counted)
    AlternativeFeatureSelector(objective=np.linspace(1, 0.1, 12), k=5, n_alternatives=1, tau=1.0).fit()  # warm up
    calls.clear()
    t0 = time.perf_counter()
    sel = AlternativeFeatureSelector(objective=np.linspace(1, 0.1, 12), k=5, n_alternatives=10**6, tau=1.0).fit()
    assert time.perf_counter() - t0 < 1.0
    assert sel.statuses_[:3] == ["optimal", "optimal", "infeasible"] and len(sel.statuses_) == 10**6 + 1
    assert set(sel.statuses_[2:]) == {"infeasible"} and sel.feature_sets_[-1] is None and np.isnan(sel.qualities_[-1])
    assert calls == [0, 1]  # Johnson's bound (12 // 5 = 2 sets) settles the third step without the solver
    assert sel.next_alternative() is None and sel.statuses_[-1] == "infeasible" and len(calls) == 2
    assert len(sel.results_) == 10**6 + 2


def test_sequential_search_stops_where_the_solver_proves_infeasibility(monkeypatch):
    "Below Johnson's bound: the solver's first 'infeasible' ends the search (must: no walk, CP-SAT proves it)."
    calls = []
    step = alt_search.SequentialSearch.step
    monkeypatch.setattr(alt_search.SequentialSearch, "step", lambda self, fixed: calls.append(1) or step(self, fixed))
    sel = AlternativeFeatureSelector(objective=np.linspace(1, 0.1, 12), k=5, n_alternatives=50, tau=0.8,
                                     must_select=[0], random_state=0).fit()
    first = sel.statuses_.index("infeasible")
    assert set(sel.statuses_[first:]) == {"infeasible"} and len(calls) == first + 1 and len(sel.statuses_) == 51


def test_simultaneous_search_beyond_johnsons_bound_solves_nothing(monkeypatch):
    def boom(*a, **kw): raise AssertionError("a solver ran although counting proves infeasibility")
    for name in ("solve_model", "_solve_sum_by_counts", "_solve_max_min", "_feasibility", "_solve_counts"):
        monkeypatch.setattr(alt_search, name, boom)
    q = np.random.default_rng(0).random(30)
    for agg in ("sum", "min"):
        t0 = time.perf_counter()
        sel = AlternativeFeatureSelector(objective=q, k=5, n_alternatives=10**6, tau=0.5, search="simultaneous",
                                         aggregation=agg).fit()
        assert time.perf_counter() - t0 < 1.0 and set(sel.statuses_) == {"infeasible"} and len(sel.statuses_) == 10**6 + 1
        # 30 features hold at most 390 sets of 5 sharing <= 2 (Johnson): 391 are infeasible at once, for any solver
        sets, status, secs = solve_alternatives({"kind": "linear", "q": q, "n": 30}, 5, 0.5, 391, aggregation=agg,
                                                solver="scip", formulation="paper")
        assert status == "infeasible" and sets == [None] * 391 and secs == 0.0


def test_tau_zero_repeats_the_best_set_without_solving_again(monkeypatch):
    "tau = 0 constrains nothing: every set is the best one, found once (sequential and simultaneous)."
    q = np.random.default_rng(1).random(20)
    for search in ("sequential", "simultaneous"):
        t0 = time.perf_counter()
        sel = AlternativeFeatureSelector(objective=q, k=4, n_alternatives=10**4, tau=0.0, search=search).fit()
        assert time.perf_counter() - t0 < 5.0 and set(sel.statuses_) == {"optimal"}
        best = np.sort(np.argsort(-q)[:4])
        assert all(np.array_equal(s, best) for s in sel.feature_sets_[::997])
    sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 20}, 4, 0.0, 5, aggregation="min", solver="scip")
    assert status == "optimal" and all(np.array_equal(s, np.sort(np.argsort(-q)[:4])) for s in sets)


@pytest.mark.parametrize("f", [greedy_replacement, greedy_balancing, greedy_depth_search], ids=lambda f: f.__name__)
@pytest.mark.parametrize("args, err, msg", [
    ((Q6, 2, 2, 1.5), ValueError, r"tau=1.5: tau must be a finite number in \[0, 1\]"),
    ((Q6, 2, 2, -0.1), ValueError, "tau=-0.1"), ((Q6, 2, 2, float("nan")), ValueError, "tau=nan"),
    ((Q6, -1, 2, 0.5), ValueError, r"k=-1: k must be an integer in \[1, 6\]"), ((Q6, 0, 2, 0.5), ValueError, "k=0"),
    ((Q6, 7, 2, 0.5), ValueError, "k=7"), ((Q6, 2.0, 2, 0.5), TypeError, "k=2.0"),
    ((Q6, 2, -1, 0.5), ValueError, "n_alternatives=-1"), ((Q6, 2, 10**6 + 1, 0.5), ValueError, r"n_alternatives=1000001"),
    ((np.array([1, np.nan, 2.0]), 1, 1, 0.5), ValueError, r"q contains NaN or infinite values \(first at entry 1\)"),
    ((np.ones((2, 3)), 1, 1, 0.5), ValueError, r"q has shape \(2, 3\)"), (([], 1, 1, 0.5), ValueError, "q has 0 qualities"),
    ((["a", "b"], 1, 1, 0.5), TypeError, "q has dtype")])
def test_greedy_heuristics_check_their_arguments(f, args, err, msg):
    "Before: tau = 1.5 gave sets with duplicate features, k = -1 five-feature sets, NaN qualities a silent order."
    with pytest.raises(err, match=msg): f(*args)


def test_greedy_heuristics_keep_their_contract_at_the_edges():
    for f in (greedy_replacement, greedy_balancing, greedy_depth_search):
        sets = f(Q6, 2, 2, 1.0)
        found = [set(s.tolist()) for s in sets if s is not None]
        assert all(len(s) == 2 for s in found) and all(not (a & b) for a, b in itertools.combinations(found, 2))
    # tau = 0 with many alternatives: Depth Search takes the first subsets without comparing each with every set
    # found (before: 2 * 10**8 comparisons here)
    t0 = time.perf_counter()
    sets = greedy_depth_search(np.arange(40.0), 4, 20_000, 0.0)
    assert len(sets) == 20_001 and all(s is not None for s in sets) and time.perf_counter() - t0 < 2.0


def test_max_overlap_checks_k_and_tau():
    "Before: max_overlap(3, 2.0) was -3."
    with pytest.raises(ValueError, match=r"tau=2.0: tau must be a finite number in \[0, 1\]"): max_overlap(3, 2.0)
    with pytest.raises(ValueError, match="k=0"): max_overlap(0, 0.5)
    with pytest.raises(TypeError, match="k=2.5"): max_overlap(2.5, 0.5)
    assert [max_overlap(5, t) for t in (0.0, 0.2, 0.6, 1.0)] == [5, 4, 2, 0]


def test_fixed_set_out_of_range_is_refused():
    "Before: solve_alternatives(fixed_sets=[[0, 9]]) on six features ignored feature 9 and reported 'optimal'."
    p = {"kind": "linear", "q": Q6, "n": 6}
    with pytest.raises(ValueError, match=r"fixed_sets\[0\]=\[0, 9\]: give integer feature indices in \[0, 5\]"):
        solve_alternatives(p, 2, 0.5, fixed_sets=[[0, 9]])
    with pytest.raises(ValueError, match=r"fixed_sets\[1\]=\[2, 2\] lists feature 2 more than once"):
        solve_alternatives(p, 2, 0.5, fixed_sets=[[0, 1], [2, 2]])
    with pytest.raises(ValueError, match=r"fixed_sets\[0\] has 3 features but k=2"):
        solve_alternatives(p, 2, 0.5, fixed_sets=[[0, 1, 2]])
    with pytest.raises(TypeError, match=r"fixed_sets\[0\]"): solve_alternatives(p, 2, 0.5, fixed_sets=[[0.0, 1.0]])
    with pytest.raises(ValueError, match=r"fixed_sets\[0\] is None"): solve_alternatives(p, 2, 0.5, fixed_sets=[None])
    with pytest.raises(ValueError, match=r"must=\[6\]"): solve_alternatives(p, 2, 0.5, must=[6])
    with pytest.raises(ValueError, match=r"must_not=\[-1\]"): solve_alternatives(p, 2, 0.5, must_not=[-1])


def test_mrmr_value_checks_its_indices():
    "Before: mrmr_value([-1, 0], ...) read the last feature (numpy's wrap-round)."
    rel, R = Q6 / 9, np.zeros((6, 6))
    with pytest.raises(ValueError, match=r"idx=\[-1, 0\]: give integer feature indices in \[0, 5\]"): mrmr_value([-1, 0], rel, R)
    with pytest.raises(ValueError, match="lists feature 1 more than once"): mrmr_value([1, 1], rel, R)
    with pytest.raises(ValueError, match=r"R has shape \(5, 5\)"): mrmr_value([0, 1], rel, np.zeros((5, 5)))
    Rn = R.copy(); Rn[0, 1] = np.nan
    with pytest.raises(ValueError, match="R holds NaN"): mrmr_value([0, 1], rel, Rn)
    assert mrmr_value([0, 2], rel, Rn) == pytest.approx((1 + 7 / 9) / 2)  # a NaN the set does not read is harmless
    assert np.isnan(mrmr_value([], rel, R))


@pytest.mark.parametrize("q, msg", [
    (np.array([1, np.nan, 2, 3, 4, 5.0]), r"problem\['q'\] contains NaN or infinite values \(first at entry 1\)"),
    (np.array([1, 2, 3.0]), r"problem\['q'\] has 3 qualities but there are n=6 features"),
    (np.array([1, np.inf, 2, 3, 4, 5.0]), r"problem\['q'\] contains NaN"),
    (np.full(6, 1e308), r"problem\['q'\] is too large"), (np.ones((6, 1)), r"problem\['q'\] has shape \(6, 1\)"),
    (None, r"problem\['q'\]=None")])
@pytest.mark.parametrize("formulation", ["paper", "fast"])
def test_solve_alternatives_names_bad_qualities(q, msg, formulation):
    "Before: KeyError, IndexError or 'cannot convert float NaN to integer'."
    with pytest.raises((ValueError, TypeError), match=msg):
        solve_alternatives({"kind": "linear", "q": q, "n": 6}, 2, 0.5, 3, formulation=formulation)


@pytest.mark.parametrize("scale", [1e-300, 5e-324 * 2**40, 1e-9, 1e9, 1e300])
@pytest.mark.parametrize("solver, formulation", [("cpsat", "paper"), ("cpsat", "fast"), ("scip", "paper")])
def test_tiny_and_huge_qualities_give_the_optimum(scale, solver, formulation):
    "Before: OverflowError for tiny q (10**9 / max|q| overflowed), SCIP misread huge q; a power of two brings q to [0.5, 1)."
    q = Q6 * scale / 9
    for agg in ("sum", "min"):
        sets, status, _ = solve_alternatives({"kind": "linear", "q": q, "n": 6}, 2, 0.5, 3, aggregation=agg,
                                             solver=solver, formulation=formulation)
        ref, _, _ = solve_alternatives({"kind": "linear", "q": Q6, "n": 6}, 2, 0.5, 3, aggregation=agg, solver=solver,
                                       formulation=formulation)
        f = sum if agg == "sum" else min
        assert status == "optimal" and f(Q6[s].sum() for s in sets) == f(Q6[s].sum() for s in ref)


def test_scaling_up_is_exact_and_leaves_normal_problems_alone():
    p = {"kind": "linear", "q": Q6 / 9, "n": 6}
    assert alt_model.rescaled_problem(p) is p
    for scale in (1e-300, 1e-9, 1e9, 1e300):
        big = alt_model.rescaled_problem({"kind": "linear", "q": Q6 * scale, "n": 6})
        r = big["q"] / (Q6 * scale)  # one power of two for every entry: exact
        assert (r == r[0]).all() and math.log2(r[0]).is_integer() and 0.5 <= big["q"].max() < 1
    # the CP-SAT integers of a scaled problem are those of the problem itself (powers of two commute with rounding)
    q = np.random.default_rng(0).random(6) * 3e-3
    m1, _, _ = solve_alternatives({"kind": "linear", "q": q, "n": 6}, 2, 0.5, return_model=True)
    p2 = {"kind": "linear", "q": np.ldexp(q, 40), "n": 6}
    m2, _, _ = solve_alternatives(p2, 2, 0.5, return_model=True)
    assert alt_model.rescaled_problem(p2) is not p2 and [m1.c(x) for x in q] == [m2.c(x) for x in alt_model.rescaled_problem(p2)["q"]]


_X = np.random.default_rng(0).standard_normal((60, 5))
_Y = (_X[:, 0] + 0.3 * _X[:, 1] > 0).astype(int)


@pytest.mark.parametrize("f", [lambda y: mi_qualities(_X, y), lambda y: mi_qualities(_X, y, estimator="classif"),
                               lambda y: model_gain_qualities(_X, y), lambda y: wrapper_mcc(_X, y, [0, 1]),
                               lambda y: tree_mcc(_X, y, _X, _Y, [0, 1], 0), lambda y: greedy_wrapper(_X, y, 2, 0.5)],
                         ids=["mi", "mi_classif", "model_gain", "wrapper_mcc", "tree_mcc", "greedy_wrapper"])
def test_quality_functions_name_a_missing_y(f):
    "Before: TypeError \"object of type 'NoneType' has no len()\" or \"'NoneType' object is not subscriptable\"."
    with pytest.raises(ValueError, match=r"(y|ytr) is None: pass one class label per row of X"): f(None)


def test_quality_functions_encode_string_classes():
    "String class labels are encoded (as scikit-learn's classifiers take them): the same values as integer labels."
    names = np.array(["no", "yes"])
    np.testing.assert_array_equal(mi_qualities(_X, names[_Y], 0), mi_qualities(_X, _Y, 0))
    np.testing.assert_array_equal(mi_qualities(_X, names[_Y], 0, "classif"), mi_qualities(_X, _Y, 0, "classif"))
    np.testing.assert_array_equal(model_gain_qualities(_X, names[_Y], 0), model_gain_qualities(_X, _Y, 0))
    assert wrapper_mcc(_X, names[_Y], [0, 1]) == wrapper_mcc(_X, _Y, [0, 1])
    assert wrapper_mcc(_X, _Y + 1, [0, 1]) == wrapper_mcc(_X, _Y, [0, 1])  # any two labels
    assert tree_mcc(_X, names[_Y], _X, names[_Y], [0, 1], 0) == tree_mcc(_X, _Y, _X, _Y, [0, 1], 0)
    got = greedy_wrapper(_X, names[_Y], 2, 0.5, max_iters=3, random_state=0)
    want = greedy_wrapper(_X, _Y, 2, 0.5, max_iters=3, random_state=0)
    assert [s.tolist() for s in got[0]] == [s.tolist() for s in want[0]] and got[1] == want[1]
    with pytest.raises(ValueError, match="y has 3 classes: the wrapper objective scores a set by the MCC of two"):
        wrapper_mcc(_X, np.arange(60) % 3, [0])
    with pytest.raises(ValueError, match="y holds continuous values: model_gain_qualities needs class labels"):
        model_gain_qualities(_X, _X[:, 0])
    with pytest.raises(ValueError, match="X has 3 rows: the MI estimates"): mi_qualities(_X[:3], [0, 1, 0])
    with pytest.raises(ValueError, match="estimator='knn'"): mi_qualities(_X, _Y, estimator="knn")
    with pytest.raises(ValueError, match="random_state=-1"): model_gain_qualities(_X, _Y, random_state=-1)


def test_selector_verbose_shows_progress(capsys):
    q = np.linspace(1, 0.1, 12)
    AlternativeFeatureSelector(objective=q, k=3, n_alternatives=3, tau=0.5).fit()
    assert capsys.readouterr().err == ""  # silent by default
    AlternativeFeatureSelector(objective=q, k=5, n_alternatives=5, tau=1.0, verbose=1).fit()
    err = capsys.readouterr().err
    assert "sequential search" in err and "6/6" in err and "3 more infeasible, not solved again" in err
    AlternativeFeatureSelector(objective=q, k=3, n_alternatives=2, tau=0.5, search="simultaneous", verbose=1).fit()
    err = capsys.readouterr().err
    assert "simultaneous search for 3 sets" in err and "simultaneous search: optimal" in err
    with pytest.raises(ValueError, match="verbose=-1"): AlternativeFeatureSelector(objective=q, verbose=-1).fit()


def test_mrmr_needs_two_features_and_wrapper_needs_greedy_wrapper():
    "Before: k = 1 made the mRMR objective 0 (every set 'optimal'), a wrapper problem had no objective at all."
    rel, R = Q6 / 9, np.full((6, 6), 0.1) - 0.1 * np.eye(6)
    with pytest.raises(ValueError, match="k=1: mRMR needs k >= 2"):
        solve_alternatives({"kind": "mrmr", "rel": rel, "R": R, "n": 6}, 1, 0.5)
    with pytest.raises(ValueError, match="wrapper.*greedy_wrapper"): solve_alternatives({"kind": "wrapper", "n": 6}, 2, 0.5)
    with pytest.raises(ValueError, match="k=1: mRMR"): cpsat_error_bound({"kind": "mrmr", "rel": rel, "R": R, "n": 6}, 1)


def test_fitted_selector_checks_its_other_inputs():
    "Before: score_sets on narrower X raised IndexError; set_quality wrapped negative indices; get_support took 1.0."
    Xb, yb = _X, _Y
    sel = AlternativeFeatureSelector(k=2, n_alternatives=1, tau=0.5, random_state=0).fit(Xb, yb)
    with pytest.raises(ValueError, match="X has 4 features, but AlternativeFeatureSelector is expecting 5"):
        sel.score_sets(Xb[:, :4], yb)
    with pytest.raises(ValueError, match=r"features=\[-1\]"): sel.set_quality([-1])
    with pytest.raises(ValueError, match="lists feature 0 more than once"): sel.set_quality([0, 0])
    with pytest.raises(TypeError, match="alternative=1.0"): sel.get_support(alternative=1.0)
    with pytest.raises(ValueError, match=r"problem\['q'\] has 3"): sel.set_quality([0], {"kind": "linear", "q": np.ones(3), "n": 5})
    with pytest.raises(ValueError, match=r"problem\['q'\] contains NaN"):
        AlternativeFeatureSelector(k=2).fit(Xb, yb, problem={"kind": "linear", "q": np.r_[np.nan, np.ones(4)], "n": 5})
    with pytest.raises(ValueError, match="y holds continuous values: objective='model_gain' needs class labels"):
        AlternativeFeatureSelector(objective="model_gain").fit(Xb, Xb[:, 0])
    with pytest.raises(ValueError, match="y has 3 classes: objective='wrapper'"):
        AlternativeFeatureSelector(objective="wrapper").fit(Xb, np.arange(60) % 3)


def test_solver_options_are_checked_on_construction():
    "Before: SolverOptions(nodes=-1) and friends were accepted and reached the compiled searches."
    for kw, err in [(dict(nodes=-1), ValueError), (dict(candidates=1.5), TypeError), (dict(time_share=0), ValueError),
                    (dict(band="yes"), TypeError), (dict(walk_share=float("nan")), ValueError),
                    (dict(int_max=2**63), ValueError), (dict(cpsat_params="x"), TypeError),
                    (dict(cpsat_params=(("no_such", 1),)), ValueError)]:
        name = next(iter(kw))
        with pytest.raises(err, match=name): SolverOptions(**kw)


def test_label_views_check_scores_and_names():
    scores = np.random.default_rng(0).random((2, 8))
    with pytest.raises(ValueError, match="label_names=.*none may be 'shared'"):
        label_specific_alternatives(scores, k=2, n_alternatives=1, label_names=["a", "shared"])
    with pytest.raises(ValueError, match="label_names=.*distinct"):
        label_specific_alternatives(scores, k=2, n_alternatives=1, label_names=["a", "a"])
    bad = scores.copy(); bad[1, 3] = np.nan
    with pytest.raises(ValueError, match=r"scores contains NaN or infinite values \(first at row 1, column 3\)"):
        label_specific_alternatives(bad, k=2)
    t = label_specific_alternatives(scores, k=2, n_alternatives=1)
    with pytest.raises(ValueError, match=r"table has no rows of label\(s\) \['x', 'y'\]"):
        shared_vs_specific(t, scores, label_names=["x", "y"])
    with pytest.raises(ValueError, match=r"table\['features'\]"): shared_vs_specific(t, scores[:, :1])
    with pytest.raises(TypeError, match="table must be the DataFrame"): shared_vs_specific(t.values, scores)


@pytest.mark.parametrize("settings_, msg", [([(2, 1.5, 1, "sequential", "sum")], "tau=1.5"),
                                            ([(9, 0.5, 1, "sequential", "sum")], "k=9"),
                                            ([(2, 0.5, -1, "sequential", "sum")], "a=-1"),
                                            ([(2, 0.5, 1, "both", "sum")], "search='both'"),
                                            ([(2, 0.5)], r"settings\[0\]"), ("k", "settings='k'")])
def test_crosscheck_alfese_checks_before_solving(settings_, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        crosscheck_alfese({"q": {"kind": "linear", "q": Q6, "n": 6}}, settings_)


def test_tree_mcc_and_demo_check_their_inputs(tmp_path):
    with pytest.raises(ValueError, match="Xte has 4 features, but tree_mcc"): tree_mcc(_X, _Y, _X[:, :4], _Y, [0], 0)
    with pytest.raises(ValueError, match="X has 60 rows but yte has 59"): tree_mcc(_X, _Y, _X, _Y[:-1], [0], 0)
    with pytest.raises(ValueError, match=r"idx=\[7\]"): tree_mcc(_X, _Y, _X, _Y, [7], 0)
    with pytest.raises(ValueError, match="seed=-2"): tree_mcc(_X, _Y, _X, _Y, [0], -2)
    assert np.isnan(tree_mcc(_X, _Y, _X, _Y, [], 0)) and np.isnan(tree_mcc(_X, _Y, _X, _Y, None, 0))
    with pytest.raises(TypeError, match="out_dir=3"): alt.demo(3)


@settings(max_examples=60, **FUZZ)
@given(n=st.integers(1, 9), k=st.integers(1, 5), ov=st.integers(0, 4))
def test_johnsons_bound_is_never_beaten(n, k, ov):
    "Greedy Depth Search's families (maximal, often maximum) never exceed the bound; disjoint sets reach n // k."
    if k > n or ov >= k: return
    tau = 1 - (ov + 0.5) / k  # max_overlap(k, tau) == ov
    assert max_overlap(k, tau) == ov
    found = sum(s is not None for s in greedy_depth_search(np.arange(n, 0, -1.0), k, 50, tau, max_iters=None))
    assert found <= alt_model.johnson_bound(n, k, ov)
    if ov == 0: assert alt_model.johnson_bound(n, k, ov) == n // k == found


# ======================================================================================================================
# Generated bad input
# ======================================================================================================================

JUNK_NUMBERS = [None, "1", b"1", [1], {}, True, np.bool_(False), float("nan"), float("inf"), -float("inf"), 1 + 2j]


def _is_int(v, lo, hi=None):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and lo <= v and (hi is None or v <= hi)


def _is_real(v, lo, hi):
    return (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
            and bool(np.isfinite(v)) and lo <= v <= hi)


ints = st.integers(-3, 9) | st.sampled_from(JUNK_NUMBERS + [2.0, 10**6 + 2, np.int32(2), np.uint8(3)])
reals = st.floats(-0.5, 1.5) | st.sampled_from(JUNK_NUMBERS + [0, 1, np.float32(0.5), 1 / 3, 2 / 3])

INDEX_KINDS = ["list", "array", "int32", "uint8", "tuple", "set", "gen", "empty", "dup", "neg", "big", "float", "bool",
               "2-D", "str", "None", "ragged", "object"]
VALID_INDEX_KINDS = {"list", "array", "int32", "uint8", "tuple", "set", "gen", "empty"}


@st.composite
def index_sets(draw, n=8, kinds=INDEX_KINDS):
    "(value, the sorted indices it stands for or None if invalid, kind): feature indices in many containers."
    base = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=5, unique=True))
    kind = draw(st.sampled_from(kinds))
    value = {"list": lambda: list(base), "array": lambda: np.array(base), "int32": lambda: np.array(base, np.int32),
             "uint8": lambda: np.array(base, np.uint8), "tuple": lambda: tuple(base), "set": lambda: set(base),
             "gen": lambda: (j for j in base), "empty": lambda: [], "dup": lambda: base + base[:1],
             "neg": lambda: base + [-1], "big": lambda: base + [n], "float": lambda: np.array(base, float),
             "bool": lambda: [True] * len(base), "2-D": lambda: np.array(base)[None], "str": lambda: "01",
             "None": lambda: None, "ragged": lambda: [base, [0]], "object": lambda: np.array(base + ["a"], dtype=object)}[kind]()
    clean = [] if kind == "empty" else sorted(base) if kind in VALID_INDEX_KINDS else None
    return value, clean, kind


@settings(max_examples=300, **FUZZ)
@given(a=index_sets(), b=index_sets())
def test_generated_dice_dissimilarity(a, b):
    (va, ca, ka), (vb, cb, kb) = a, b
    if ka == "big": ca = sorted(set(va))  # no n: any non-negative index is a feature
    if kb == "big": cb = sorted(set(vb))
    status, out = named(lambda: dice_dissimilarity(va, vb), "a", "b")
    assert (status == "ok") == (ca is not None and cb is not None), (ka, kb, out)
    if status == "ok":
        want = 0.0 if not ca and not cb else 1 - 2 * len(set(ca) & set(cb)) / (len(ca) + len(cb))
        assert out == pytest.approx(want, abs=1e-12)


@settings(max_examples=300, **FUZZ)
@given(k=ints, tau=reals)
def test_generated_max_overlap(k, tau):
    status, out = named(lambda: max_overlap(k, tau), "k", "tau")
    assert (status == "ok") == (_is_int(k, 1) and _is_real(tau, 0, 1))
    if status == "ok": assert out == math.floor((1 - tau) * k + 1e-9) and 0 <= out <= k


@st.composite
def selections(draw, n):
    "(value, 0/1 list or None if invalid)."
    base = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    kind = draw(st.sampled_from(["list", "bool", "float", "twos", "nan", "2-D", "short", "str", "None"]))
    value = {"list": lambda: base, "bool": lambda: np.array(base, bool), "float": lambda: np.array(base, float),
             "twos": lambda: [2] + base[1:], "nan": lambda: [np.nan] + base[1:], "2-D": lambda: np.array(base)[None],
             "short": lambda: base[:-1], "str": lambda: "".join(map(str, base)), "None": lambda: None}[kind]()
    return value, base[:-1] if kind == "short" else base if kind in ("list", "bool", "float") else None, kind


@settings(max_examples=300, **FUZZ)
@given(data=st.data(), n=st.integers(1, 8), tau=reals, k=ints)
def test_generated_dice_constraints(data, n, tau, k):
    (v1, c1, _), (v2, c2, _) = data.draw(selections(n)), data.draw(selections(n))
    if c1 is not None and c2 is not None and len(c1) != len(c2): c2 = None  # vectors of different lengths
    ok_tau = _is_real(tau, 0, 1)
    status, out = named(lambda: dice_linear_holds(v1, v2, tau), "s1", "s2", "tau")
    assert (status == "ok") == (c1 is not None and c2 is not None and ok_tau)
    if status == "ok" and sum(c1) + sum(c2):
        by_sets = dice_dissimilarity(np.flatnonzero(c1), np.flatnonzero(c2)) >= tau - 1e-12
        assert out == by_sets
    status, out = named(lambda: dice_fixed_k_holds(v1, v2, k, tau), "s1", "s2", "k", "tau")
    valid = c1 is not None and c2 is not None and ok_tau and _is_int(k, 1) and sum(c1) == sum(c2) == k
    assert (status == "ok") == valid
    if status == "ok": assert out == (dice_dissimilarity(np.flatnonzero(c1), np.flatnonzero(c2)) >= tau - 1e-12)


Q_VALID = ["array", "list", "int", "bool", "tiny", "huge"]
Q_INVALID = ["nan", "inf", "overflow", "2-D", "str", "None", "empty", "object"]


@st.composite
def qualities(draw, n=None, kinds=Q_VALID + Q_INVALID):
    "(value, valid, kind): a quality vector in many forms."
    n = draw(st.integers(1, 8)) if n is None else n
    q = draw(hnp.arrays(np.float64, n, elements=st.floats(-1, 10, allow_subnormal=False)))
    kind = draw(st.sampled_from(kinds))
    value = {"array": lambda: q, "list": lambda: q.tolist(), "int": lambda: q.astype(int), "bool": lambda: q > 1,
             "tiny": lambda: q * 1e-305, "huge": lambda: q * 1e300 / (10 * n), "nan": lambda: np.r_[q[:-1], np.nan],
             "inf": lambda: np.r_[q[:-1], np.inf], "overflow": lambda: np.full(max(n, 2), 1.7e308),
             "2-D": lambda: q[None], "str": lambda: q.astype(str), "None": lambda: None, "empty": lambda: np.zeros(0),
             "object": lambda: np.array(list(q[:-1]) + ["a"], dtype=object)}[kind]()
    return value, kind in Q_VALID, kind


@settings(max_examples=300, **FUZZ)
@given(data=st.data(), f=st.sampled_from([greedy_replacement, greedy_balancing, greedy_depth_search]),
       broken=st.sampled_from([None, None, "q", "k", "n_alternatives", "tau"]))
def test_generated_greedy_heuristics(data, f, broken):
    "Valid arguments, or one broken: a list of a + 1 sets (k distinct features, overlaps <= max_overlap) or a named error."
    q, valid_q, qkind = data.draw(qualities(kinds=Q_INVALID if broken == "q" else Q_VALID))
    n = len(q) if valid_q else 5
    k = data.draw(st.sampled_from([0, -1, n + 1, 1.5, None, True, "2"]) if broken == "k" else st.integers(1, n))
    a = data.draw(st.sampled_from([-1, 10**6 + 1, 1.5, None, True, "2"]) if broken == "n_alternatives" else st.integers(0, 5))
    tau = data.draw(st.sampled_from([-0.1, 1.5, np.nan, np.inf, None, "0.5", True]) if broken == "tau"
                    else st.sampled_from([0, 0.2, 1 / 3, 0.5, 2 / 3, 1.0]))
    event(f"broken={broken}")
    status, out = named(lambda: f(q, k, a, tau), "q", "k", "n_alternatives", "tau")
    assert (status == "ok") == (broken is None and valid_q), (broken, qkind, out)
    if status == "ok":
        ov = max_overlap(k, tau)
        assert len(out) == a + 1
        found = [s for s in out if s is not None]
        assert all(len(s) == k == len(set(s.tolist())) and list(s) == sorted(s) and 0 <= s.min() and s.max() < n for s in found)
        assert all(len(set(x.tolist()) & set(y.tolist())) <= ov for x, y in itertools.combinations(found, 2))


@st.composite
def matrices(draw, n, d):
    "(X, kind, finite): a feature matrix of some container and dtype."
    kind = draw(st.sampled_from(["float", "float32", "int", "bool", "object", "list", "DataFrame", "CSR", "str",
                                 "complex", "1-D", "3-D", "None"]))
    clean = draw(st.booleans())  # half the matrices hold no special value
    values = st.floats(-5, 5) if clean else st.floats(-5, 5) | st.sampled_from([np.nan, np.inf, 1e300, -1e300, 0.0])
    A = draw(hnp.arrays(np.float64, (n, d), elements=values))
    X = {"float": lambda: A, "float32": lambda: A.astype(np.float32), "int": lambda: np.nan_to_num(A).clip(-9, 9).astype(int),
         "bool": lambda: A > 0, "object": lambda: A.astype(object), "list": lambda: A.tolist(), "DataFrame": lambda: pd.DataFrame(A),
         "CSR": lambda: sp.csr_matrix(A), "str": lambda: A.astype(str), "complex": lambda: A + 1j, "1-D": lambda: A.ravel(),
         "3-D": lambda: A[None], "None": lambda: None}[kind]()
    finite = kind in ("int", "bool") or bool(np.isfinite(np.asarray(A, dtype=np.float32 if kind == "float32" else float)).all())
    return X, kind, finite, finite and (A.size == 0 or np.abs(A).max() < 1e10)


@st.composite
def class_labels(draw, n):
    "(y, kind): class labels for n rows, valid or not."
    kind = draw(st.sampled_from(["int", "bool", "float01", "str", "object-str", "shifted", "three", "continuous",
                                 "constant", "nan", "None", "2-D", "column", "short", "mixed", "list"]))
    base = np.array([0, 1] * n, dtype=int)[:n]
    base = base[np.random.default_rng(draw(st.integers(0, 99))).permutation(n)]
    y = {"int": lambda: base, "bool": lambda: base.astype(bool), "float01": lambda: base.astype(float),
         "str": lambda: np.array(["a", "b"])[base], "object-str": lambda: np.array(["a", "b"], dtype=object)[base],
         "shifted": lambda: base + 5, "three": lambda: np.arange(n) % 3, "continuous": lambda: np.linspace(0, 1, n) + 0.01,
         "constant": lambda: np.zeros(n), "nan": lambda: np.where(base == 1, np.nan, 0.0), "None": lambda: None,
         "2-D": lambda: np.c_[base, base], "column": lambda: base[:, None], "short": lambda: base[:-1],
         "mixed": lambda: np.array(["a", 1] * n, dtype=object)[:n], "list": lambda: base.tolist()}[kind]()
    return y, kind


_BINARY_OK = {"int", "bool", "float01", "str", "object-str", "shifted", "column", "list"}
_QUALITY_FUNCS = {
    "mi_qualities": (lambda X, y: mi_qualities(X, y, 0), _BINARY_OK | {"three", "continuous"}),
    "mi_qualities(classif)": (lambda X, y: mi_qualities(X, y, 0, "classif"), _BINARY_OK | {"three"}),
    "model_gain_qualities": (lambda X, y: model_gain_qualities(X, y, 0), _BINARY_OK | {"three"}),
    "feature_mi_matrix": (lambda X, y: feature_mi_matrix(X, 0), None),
    "wrapper_mcc": (lambda X, y: wrapper_mcc(X, y, [0], 0), _BINARY_OK),
    "tree_mcc": (lambda X, y: tree_mcc(X, y, X, y, [0], 0), _BINARY_OK | {"constant"}),
}


@pytest.mark.parametrize("fname", list(_QUALITY_FUNCS))
@settings(max_examples=100, **FUZZ)
@given(data=st.data(), n=st.integers(0, 30), d=st.integers(0, 3))
def test_generated_quality_functions(fname, data, n, d):
    "Any X and y: finite qualities of the right shape, or an error naming X or y (Xtr/ytr/Xte/yte for tree_mcc)."
    f, y_ok = _QUALITY_FUNCS[fname]
    X, xkind, finite, tame = data.draw(matrices(n, d))
    y, ykind = data.draw(class_labels(n))
    status, out = named(lambda: quiet(lambda: f(X, y)), "X", "y", "Xtr", "ytr", "Xte", "yte", "idx")
    if status == "ok":
        assert finite and xkind not in ("str", "complex", "1-D", "3-D", "None"), f"accepted X of kind {xkind}"
        assert y_ok is None or ykind in y_ok or (ykind == "three" and n <= 2), f"accepted y of kind {ykind}"  # n <= 2: two classes
        assert np.isfinite(out).all()
        if fname.startswith("mi") or fname == "model_gain_qualities":
            assert out.shape == (d,) and (out >= 0).all() and (out.sum() == pytest.approx(1) or out.sum() == 0)
        if fname == "feature_mi_matrix": assert out.shape == (d, d) and not np.diag(out).any()
    elif tame and xkind in ("float", "int", "DataFrame", "CSR", "list", "object") and n >= 20 and d >= 1 \
            and (y_ok is None or ykind in y_ok) and not (fname == "mi_qualities(classif)" and ykind == "continuous"):
        if fname in ("mi_qualities", "mi_qualities(classif)", "feature_mi_matrix") and xkind == "CSR": return
        pytest.fail(f"refused valid input (X {xkind}, y {ykind}): {out}")


@settings(max_examples=200, **FUZZ)
@given(data=st.data(), n=st.integers(1, 7), broken=st.sampled_from([None, None, "idx", "rel", "R"]))
def test_generated_mrmr_value(data, n, broken):
    rng = np.random.default_rng(data.draw(st.integers(0, 99)))
    rel, R = rng.random(n), rng.random((n, n))
    R = (R + R.T) / 2
    np.fill_diagonal(R, 0)
    idx, clean, kind = data.draw(index_sets(n, INDEX_KINDS if broken == "idx" else sorted(VALID_INDEX_KINDS - {"gen"})))
    if broken == "idx" and kind in VALID_INDEX_KINDS: broken = None
    if broken == "rel": rel = data.draw(st.sampled_from([None, "x", rel[:-1], rel[None], np.r_[rel[:-1], np.nan] if n else rel, rel.astype(str)]))
    if broken == "R": R = data.draw(st.sampled_from([None, R[:-1], R[0], np.full((n, n), np.nan), R.astype(str)]))
    status, out = named(lambda: mrmr_value(idx, rel, R), "idx", "rel", "R")
    if broken == "rel" and isinstance(rel, np.ndarray) and rel.dtype.kind == "f" and rel.shape == (n,) \
            and clean is not None and (not clean or np.isfinite(rel[clean]).all()):
        broken = None  # a NaN the set does not read is harmless
    if broken == "R" and isinstance(R, np.ndarray) and R.dtype.kind == "f" and R.shape == (n, n) and len(clean or []) < 2:
        broken = None
    assert (status == "ok") == (broken is None and clean is not None), (broken, kind, out)
    if status == "ok":
        k = len(clean)
        want = np.nan if k == 0 else rel[clean].sum() / k - (R[np.ix_(clean, clean)].sum() / (k * (k - 1)) if k > 1 else 0)
        assert (np.isnan(out) and np.isnan(want)) or out == pytest.approx(want)


@settings(max_examples=200, **FUZZ)
@given(field=st.sampled_from([f.name for f in SolverOptions.__dataclass_fields__.values()]),
       value=st.sampled_from(JUNK_NUMBERS + [-1, 0, 0.5, 2, 10**7, 2**63, (("x", 1),), (("num_workers", "x"),)]))
def test_generated_solver_options(field, value):
    "Every setting with every kind of bad value: constructed (and then in range) or refused naming the setting."
    status, out = named(lambda: SolverOptions(**{field: value}), field, "cpsat_params")
    if status == "ok":
        default = SolverOptions.__dataclass_fields__[field].default
        assert type(value) in (type(default), int, float) or (isinstance(default, bool) and isinstance(value, np.bool_))


@settings(max_examples=200, **FUZZ)
@given(data=st.data(), broken=st.sampled_from([None, "problem", "kind", "n", "q", "rel", "R", "k", "n_sets",
                                               "aggregation", "precision", "formulation", "options"]))
def test_generated_cpsat_error_bound(data, broken):
    n = data.draw(st.integers(2, 8))
    kind = data.draw(st.sampled_from(["linear", "mrmr", "fcbf"]))
    p = {"kind": kind, "n": n, "q": np.linspace(1, 0.1, n), "rel": np.linspace(1, 0.1, n), "R": np.zeros((n, n)), "pairs": []}
    args = dict(k=data.draw(st.integers(2, n)), n_sets=data.draw(st.integers(1, 4)), aggregation="sum", precision=None,
                formulation="paper", options=None)
    bad = {"problem": [None, [1], "p"], "kind": ["cfs", None, 1], "n": [0, -1, 2.5, None, True],
           "q": [None, np.r_[np.nan, np.ones(n - 1)], np.ones(n + 1)], "rel": [None, np.r_[np.inf, np.ones(n - 1)]],
           "R": [None, np.zeros((n, n + 1)), np.full((n, n), np.nan)], "k": [0, n + 1, 1.5, None],
           "n_sets": [0, -1, 10**7, 2.0], "aggregation": ["max", None], "precision": [-1, 1.5, "2"],
           "formulation": ["best", 3], "options": [{"nodes": 1}, 3]}
    name = {"problem": "problem", "kind": "problem['kind']", "n": "problem['n']", "q": "problem['q']",
            "rel": "problem['rel']", "R": "problem['R']"}.get(broken, broken)
    if (broken == "q" and kind == "mrmr") or (broken in ("rel", "R") and kind == "linear"): broken = None  # not read
    if broken is not None:
        v = data.draw(st.sampled_from(bad[broken]))
        if broken == "problem": p = v
        elif broken in ("kind", "n", "q", "rel", "R"): p[broken] = v
        else: args[broken] = v
    status, out = named(lambda: cpsat_error_bound(p, **args), name or "problem")
    assert (status == "ok") == (broken is None)
    if status == "ok": assert 0 < out < 1e-3 * (args["n_sets"] + 1)


# ---- the functions that reach OR-Tools, in a fresh interpreter ------------------------------------------------------

def _brute(problem, k, tau, n_sets, fixed, must, must_not, agg):
    "The best aggregated value over all n_sets-tuples of allowed k-subsets (-inf: none exists)."
    n, ov = problem["n"], max_overlap(k, tau)
    forbid = {frozenset(p) for p in problem.get("pairs", [])}
    def allowed(c):
        s = set(c)
        return (set(must) <= s and not s & set(must_not) and all(len(s & set(F)) <= ov for F in fixed)
                and not any(frozenset(p) in forbid for p in itertools.combinations(c, 2)))
    def value(c):
        c = list(c)
        if problem["kind"] == "mrmr":
            return problem["rel"][c].sum() / k - problem["R"][np.ix_(c, c)].sum() / (k * (k - 1))
        return problem["q"][c].sum()
    cands = [c for c in itertools.combinations(range(n), k) if allowed(c)]
    vals = {c: value(c) for c in cands}
    f, best = (sum if agg == "sum" else min), -np.inf
    for combo in itertools.combinations_with_replacement(cands, n_sets):
        if all(len(set(a) & set(b)) <= ov for a, b in itertools.combinations(combo, 2)):
            best = max(best, f(vals[c] for c in combo))
    return best


_SOLVE_BAD = {"problem": [None, [1], "p"], "kind": ["cfs", None, 3], "n": [0, -2, 2.5, None, True, "6"],
              "q": [None, "q", "nan", "short", "long", "2-D", "str", "overflow"], "k": [0, -1, 99, 1.5, None, True, "2"],
              "tau": [-0.1, 1.5, np.nan, np.inf, None, "0.5", True], "n_sets": [0, -1, 1.5, None, 10**6 + 2, True],
              "fixed_sets": ["out", "dup", "size", "none-entry", "float", 3, "x"], "must": [[99], [-1], [0.5], "x", [[0]]],
              "must_not": [[99], [-1], [1.5], "x"], "aggregation": ["max", None, 1], "solver": ["gurobi", None],
              "formulation": ["best", None], "time_limit": [0, -1, np.nan, np.inf, "1", True],
              "precision": [-1, 1.5, "2", 50], "random_state": [-1, 2**33, 1.5, "seed", True], "n_jobs": [0, -1, 1.5, None],
              "options": [{"nodes": 1}, 3], "preselect": ["yes", None, 1], "pairs": [[(0, 0)], [(0, 99)], [(0.5, 1)], None]}
_SOLVE_NAME = {"kind": "problem['kind']", "n": "problem['n']", "pairs": "problem['pairs']"}


@isolated
@settings(max_examples=400, **FUZZ)
@given(data=st.data(), broken=st.sampled_from([None] * 21 + sorted(_SOLVE_BAD)))
def test_generated_solve_alternatives(data, broken):
    "Valid arguments (small problems: compared with brute force), or one broken argument: refused, naming it."
    n = data.draw(st.integers(2, 6))
    kind = data.draw(st.sampled_from(["linear", "linear", "fcbf", "mrmr"]))
    k = data.draw(st.integers(2 if kind == "mrmr" else 1, min(3, n)))
    tau = data.draw(st.sampled_from([0.0, 0.2, 1 / 3, 0.5, 2 / 3, 1.0]))
    n_sets = data.draw(st.integers(1, 3 if n <= 5 else 2))
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    scale = data.draw(st.sampled_from([1.0, 1.0, 1e-300, 1e-9, 1e9, 1e300 / (10 * n)]))
    q = np.round(rng.random(n) * 10, data.draw(st.integers(0, 3))) * scale
    p = {"kind": kind, "n": n}
    if kind in ("linear", "fcbf"): p["q"] = q
    if kind == "fcbf": p["pairs"] = [(j1, j2) for j1 in range(1, n) for j2 in range(j1) if rng.random() < 0.2]
    if kind == "mrmr":
        R = rng.random((n, n)) * scale
        p["rel"], p["R"] = q, (R + R.T) / 2 - np.diag(np.diag(R))
    solver = data.draw(st.sampled_from(["cpsat", "scip"]))
    formulation = data.draw(st.sampled_from(["paper", "auto"] + (["fast"] if solver == "cpsat" else [])))
    args = dict(n_sets=n_sets, fixed_sets=[], aggregation=data.draw(st.sampled_from(["sum", "min"])), solver=solver,
                formulation=formulation, time_limit=data.draw(st.sampled_from([None, 30.0])),
                preselect=data.draw(st.booleans()), must=[], must_not=[],
                precision=data.draw(st.sampled_from([None, None, 4])), random_state=data.draw(st.sampled_from([None, 0, 7])),
                n_jobs=1, options=None)
    feats = rng.permutation(n)
    if data.draw(st.booleans()): args["fixed_sets"] = [np.sort(rng.permutation(n)[:k]) for _ in range(data.draw(st.integers(1, 2)))]
    if data.draw(st.booleans()): args["must"] = sorted(feats[:data.draw(st.integers(0, k))].tolist())
    if data.draw(st.booleans()): args["must_not"] = sorted(feats[n - data.draw(st.integers(0, max(0, n - k - 1))):].tolist())
    event(f"broken={broken}")
    if broken == "pairs" and kind != "fcbf": broken = None
    name = _SOLVE_NAME.get(broken, broken or "problem")
    if broken is not None:
        v = data.draw(st.sampled_from(_SOLVE_BAD[broken]))
        if broken == "problem": p = v
        elif broken in ("kind", "n", "pairs"): p[broken] = v
        elif broken == "q":
            key = "rel" if kind == "mrmr" else "q"
            p[key] = {"nan": np.r_[q[:-1], np.nan], "short": q[:-1], "long": np.r_[q, 1.0], "2-D": q[None],
                      "str": q.astype(str), "overflow": np.full(n, 1e308)}.get(v, v)
            name = f"problem['{key}']"
        elif broken == "k": k = v
        elif broken == "tau": tau = v
        elif broken == "fixed_sets":
            args["fixed_sets"] = {"out": [[0, n]][:1] if k == 2 else [list(range(k - 1)) + [n]], "dup": [[0] * k] if k > 1 else [[0, 0]],
                                  "size": [list(range(min(k + 1, n)))] if k < n else [list(range(k - 1))],
                                  "none-entry": [None], "float": [np.arange(k, dtype=float)]}.get(v, v)
        else: args[broken] = v
    status, out = named(lambda: solve_alternatives(p, k, tau, **args), name)
    assert (status == "ok") == (broken is None), (broken, out)
    if status == "error": return
    sets, st_, secs = out
    assert st_ in STATUSES and len(sets) == n_sets and secs >= 0
    ov = max_overlap(k, tau)
    found = [s for s in sets if s is not None]
    for s in found:
        assert len(s) == k == len(set(s.tolist())) and list(s) == sorted(s) and 0 <= s.min() and s.max() < n
        assert set(args["must"]) <= set(s.tolist()) and not set(args["must_not"]) & set(s.tolist())
        assert all(len(set(s.tolist()) & set(F.tolist())) <= ov for F in args["fixed_sets"])
        if kind == "fcbf": assert not any(frozenset(pr) in {frozenset(x) for x in p["pairs"]} for pr in itertools.combinations(s.tolist(), 2))
    assert all(len(set(a.tolist()) & set(b.tolist())) <= ov for a, b in itertools.combinations(found, 2))
    best = _brute(p, k, tau, n_sets, args["fixed_sets"], args["must"], args["must_not"], args["aggregation"])
    assert (st_ == "infeasible") == (best == -np.inf), (st_, best)
    if st_ == "optimal":
        f = sum if args["aggregation"] == "sum" else min
        got = f(alt._set_quality(s, p) for s in sets)
        big = max(np.abs(p["rel" if kind == "mrmr" else "q"]).max(), np.abs(p["R"]).max() if kind == "mrmr" else 0)
        tol = (cpsat_error_bound(p, k, n_sets, args["aggregation"], args["precision"]) if solver == "cpsat" else 0) \
            + 1e-6 * big * k * n_sets
        assert got >= best - tol, (got, best, tol)


_AFS_BAD = {"objective": ["relief", None, 3, np.array([[1.0, 2.0]]), np.array([1.0, np.nan] * 4), np.array(["a"] * 8), []],
            "k": [0, 9, -1, 1.5, None, True, "2"], "n_alternatives": [-1, 1.5, None, 10**6 + 1, True],
            "tau": [-0.1, 1.5, np.nan, None, "0.5", True], "search": ["both", None], "aggregation": ["max", None],
            "method": ["exhaustive", None], "solver": ["glpk", 1], "formulation": ["best", None],
            "time_limit": [0, -1, np.nan, np.inf, "1"], "preselect": ["yes", None], "must_select": [[9], [-1], [0.5], "x"],
            "must_not_select": [[9], [-1], [1.5]], "duplicates": ["drop", None], "precision": [-1, 1.5, 50],
            "max_iters": [0, -1, 1.5, None], "mi_estimator": ["knn", None], "random_state": [-1, 2**33, 1.5, "seed", True],
            "n_jobs": [0, -1, 1.5, None], "use_alternative": [-1, 9, 0.5, None], "verbose": [-1, 0.5, None, "yes"]}


@isolated
@settings(max_examples=300, **FUZZ)
@given(data=st.data(), broken=st.sampled_from([None] * 12 + sorted(_AFS_BAD)))
def test_generated_selector_parameters(data, broken):
    "The selector with valid parameters (sets honour them) or one broken: refused, naming the parameter."
    q = np.random.default_rng(data.draw(st.integers(0, 99))).random(8)
    kw = dict(objective=q, k=data.draw(st.integers(1, 4)), n_alternatives=data.draw(st.integers(0, 4)),
              tau=data.draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])), search=data.draw(st.sampled_from(["sequential", "simultaneous"])),
              aggregation=data.draw(st.sampled_from(["sum", "min"])), random_state=0, time_limit=30.0)
    if broken is not None: kw[broken] = data.draw(st.sampled_from(_AFS_BAD[broken]))
    event(f"broken={broken}")
    status, out = named(lambda: quiet(lambda: AlternativeFeatureSelector(**kw).fit()), broken or "objective")
    assert (status == "ok") == (broken is None), (broken, out)
    if status == "ok":
        sel, ov = out, max_overlap(kw["k"], kw["tau"])
        assert len(sel.feature_sets_) == kw["n_alternatives"] + 1 and set(sel.statuses_) <= STATUSES
        found = [set(s.tolist()) for s in sel.feature_sets_ if s is not None]
        assert all(len(s) == kw["k"] for s in found)
        assert all(len(a & b) <= ov for a, b in itertools.combinations(found, 2))
        assert len(sel.results_) == len(sel.feature_sets_)


@isolated
@settings(max_examples=120, **FUZZ)
@given(data=st.data(), objective=st.sampled_from(["mi", "model_gain", "fcbf", "mrmr", "wrapper"]),
       n=st.integers(0, 40), d=st.integers(0, 4))
def test_generated_selector_data(data, objective, n, d):
    "Any X and y at fit (every objective), then any X at score_sets and transform: a result or an error naming X or y."
    X, xkind, finite, _ = data.draw(matrices(n, d))
    y, ykind = data.draw(class_labels(n))
    sel = AlternativeFeatureSelector(objective=objective, k=1 if objective != "mrmr" else 2, n_alternatives=1,
                                     tau=0.5, random_state=0, max_iters=3, time_limit=30.0)
    status, out = named(lambda: quiet(lambda: sel.fit(X, y)), "X", "y", "k")
    if status == "ok":
        assert finite and xkind not in ("str", "complex", "1-D", "3-D", "None"), f"fit accepted X of kind {xkind}"
        assert ykind not in ("nan", "None", "2-D", "short", "mixed", "constant"), f"fit accepted y of kind {ykind}"
        assert set(sel.statuses_) <= STATUSES
        X2, xkind2, finite2, _ = data.draw(matrices(data.draw(st.integers(0, 30)), data.draw(st.sampled_from([d - 1, d, d + 1]))))
        y2, ykind2 = data.draw(class_labels(len(X2) if hasattr(X2, "__len__") and xkind2 not in ("1-D", "None") else 3))
        status2, out2 = named(lambda: quiet(lambda: sel.score_sets(X2, y2)), "X", "y", "AlternativeFeatureSelector")
        if status2 == "ok": assert finite2 and np.shape(out2) == (2,)
        if sel.feature_sets_[0] is not None:
            status3, out3 = named(lambda: sel.transform(X2), "X", "features", "AlternativeFeatureSelector")
            if status3 == "ok": assert finite2 and (X2.shape if hasattr(X2, "shape") else np.shape(X2))[-1] == d


@isolated
@settings(max_examples=200, **FUZZ)
@given(data=st.data(), method=st.sampled_from(["set_quality", "get_support", "estimate_problem", "next_alternative",
                                               "label_specific", "shared_vs_specific"]))
def test_generated_fitted_methods_and_label_views(data, method):
    "A fitted selector's methods and the multi-label views on generated arguments: a result or a named error."
    q = np.linspace(1, 0.1, 8)
    sel = AlternativeFeatureSelector(objective=q, k=2, n_alternatives=2, tau=0.5).fit()
    if method == "set_quality":
        v, clean, kind = data.draw(index_sets(8))
        status, out = named(lambda: sel.set_quality(v), "features")
        assert (status == "ok") == (clean is not None or kind == "None")  # None: a set not found, NaN
        if status == "ok": assert out == pytest.approx(q[clean].sum()) if kind != "None" else np.isnan(out)
    elif method == "get_support":
        v = data.draw(ints)
        status, out = named(lambda: sel.get_support(alternative=v), "alternative")
        assert (status == "ok") == (v is None or _is_int(v, 0, 2))  # None: use_alternative
        if status == "ok": assert out.sum() == 2
    elif method == "estimate_problem":
        v, valid, kind = data.draw(qualities())
        status, out = named(lambda: AlternativeFeatureSelector(objective=v).estimate_problem(), "objective")
        assert (status == "ok") == valid, kind
        if status == "ok": assert np.isfinite(out["q"]).all() and out["n"] == len(out["q"])
    elif method == "next_alternative":
        tau = data.draw(st.sampled_from([0.5, 1.0]))
        s2 = AlternativeFeatureSelector(objective=q, k=2, n_alternatives=data.draw(st.integers(0, 6)), tau=tau).fit()
        before = list(s2.statuses_)
        new = s2.next_alternative()
        assert s2.statuses_[:-1] == before and s2.statuses_[-1] in STATUSES
        if "infeasible" in before: assert new is None and s2.statuses_[-1] == "infeasible" and s2.times_[-1] == 0.0
    else:
        scores, valid, kind = data.draw(qualities(8))
        rows = data.draw(st.integers(0, 3))
        S = np.tile(np.atleast_1d(scores), (rows, 1)) if kind not in ("None", "str", "2-D", "object") else scores
        names = data.draw(st.sampled_from([None, None, ["a", "b", "c"][:rows], ["a"] * rows, ["shared"] * rows, "ab", 3]))
        call = (lambda: label_specific_alternatives(S, k=2, n_alternatives=1, label_names=names)) if method == "label_specific" \
            else (lambda: shared_vs_specific(label_specific_alternatives(q[None].repeat(2, 0), k=2, n_alternatives=1), S, names))
        status, out = named(lambda: quiet(call), "scores", "label_names", "table", "table['features']")
        A = np.asarray(S) if isinstance(S, (np.ndarray, list)) else None
        n_rows = A.shape[0] if A is not None and A.ndim == 2 else -1
        ok_names = names is None or (isinstance(names, list) and len(set(names)) == len(names) == n_rows
                                     and "shared" not in names)
        ok_scores = (A is not None and A.dtype.kind in "biuf" and A.ndim == 2 and A.shape[0] >= 1 and A.shape[1] >= 2
                     and np.isfinite(np.abs(A.astype(float)).sum(axis=1)).all())
        if status == "ok": assert ok_scores and ok_names and isinstance(out, pd.DataFrame), (kind, rows, names)
        elif method == "label_specific": assert not (ok_scores and ok_names), out


def test_mi_of_sparse_continuous_features_is_an_error_naming_x():
    "A fresh fuzz (tools/fuzz_bad_input.py): sparse X with continuous values failed inside scikit-learn's KDTree."
    import scipy.sparse as sp
    from mlxplain.alternatives import mi_qualities
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 8)), (rng.random(60) < 0.5).astype(int)
    with pytest.raises(ValueError, match=r"X is sparse.*pass X dense"):
        mi_qualities(sp.coo_matrix(X), y)
    assert mi_qualities(X, y).shape == (8,)
