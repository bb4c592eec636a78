"""PRAkEL chapter: theorems as properties, bad input, cross-checks against scikit-multilearn-ng, real-data claims."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.linear_model import LogisticRegression, Ridge, RidgeClassifier
from sklearn.preprocessing import StandardScaler

from mlxplain.metrics import LOSSES, ranking_loss
from mlxplain.data import make_label_specific
from mlxplain.prakel import (PRAkEL, RAkEL, CSRAkEL, EPCC, MLkNN, CostRegressionClassifier, resolve_loss,
                             transform_costs, greedy_weight, simple_weight, select_labelsets,
                             ranking_as_weighted_hamming, weighted_hamming)



@pytest.fixture(scope="module")
def toy():
    ds, _ = make_label_specific(n_samples=300, n_features=15, n_labels=6, noise=0.2, label_correlation=0.5, random_state=1)
    return np.asarray(ds.X, dtype=float), ds.Y_dense


# ---- Lemma 1 / Lemma 2 / Theorem 3 -------------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(st.integers(2, 12).flatmap(lambda K: st.tuples(st.lists(st.booleans(), min_size=K, max_size=K),
                                                       st.lists(st.booleans(), min_size=K, max_size=K))))
def test_lemma1_ranking_is_weighted_hamming(yy):
    y, yh = (np.array(v, dtype=np.int8) for v in yy)
    w = ranking_as_weighted_hamming(y)
    assert np.isclose(ranking_loss(y[None], yh[None], average=False)[0], (w * (y != yh)).sum())


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["hamming", "ranking"]))
def test_lemma2_costs_do_not_depend_on_reference(seed, name):
    r = np.random.default_rng(seed); K = int(r.integers(2, 9)); k = int(r.integers(1, K + 1))
    Y = r.integers(0, 2, (6, K)).astype(np.int8); ref = r.integers(0, 2, (6, K)).astype(np.int8)
    S = np.sort(r.choice(K, k, replace=False)); f = resolve_loss(name); c = lambda i, P: f(Y[i], P)
    np.testing.assert_allclose(transform_costs(c, np.arange(6), Y, S), transform_costs(c, np.arange(6), ref, S), atol=1e-9)


@pytest.mark.parametrize("weighting", ["uniform", "simple"])
def test_theorem3_identical_predictions(toy, weighting):
    X, Y = toy
    for name in ("hamming", "ranking", "f1"):
        a = PRAkEL(loss=name, reference="true", weighting=weighting, random_state=7).fit(X, Y).predict(X)
        b = PRAkEL(loss=name, reference="predicted", weighting=weighting, random_state=7).fit(X, Y).predict(X)
        assert np.array_equal(a, b) == (name != "f1"), name


def test_theorem3_on_emotions(need_data):
    need_data("emotions")
    from mlxplain.data import load
    ds = load("emotions"); X = StandardScaler().fit_transform(ds.X); Y = ds.Y_dense
    for name, same in (("hamming", True), ("ranking", True), ("f1", False)):
        p = [PRAkEL(loss=name, k=3, reference=r, random_state=0).fit(X, Y).predict(X) for r in ("true", "predicted")]
        assert np.array_equal(*p) == same


# ---- Theorems 4-5 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_theorem4_bound(toy, seed):
    X, Y = toy; K, k, M = 6, 2, 9        # kM = 18 = 3K: every label in exactly r = 3 labelsets
    for base in (None, CostRegressionClassifier(Ridge(alpha=1e4))):
        for name in ("hamming", "ranking"):
            for ref in ("true", "predicted"):
                m = PRAkEL(loss=name, k=k, n_iterations=M, reference=ref, base_estimator=base, random_state=seed).fit(X, Y)
                assert np.bincount(m.labelsets_.ravel(), minlength=K).tolist() == [3] * K
                assert m.training_cost_curve_[-1] <= 2 * K / k * m.subproblem_costs_.mean() + 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_theorem5_bound(toy, seed):
    "M·Ē holds for Hamming; for F1 the provable form is c(H_M) <= c(H_1) + sum_{m>=2} E_m (see the notebook)."
    X, Y = toy
    for base in (None, CostRegressionClassifier(Ridge(alpha=1e4))):
        for name in ("hamming", "f1", "composite"):
            m = PRAkEL(loss=name, k=2, n_iterations=3, base_estimator=base, random_state=seed).fit(X, Y)
            assert len(np.unique(m.labelsets_)) == 6        # disjoint
            E, c = m.subproblem_costs_, m.training_cost_curve_
            assert c[-1] <= c[0] + E[1:].sum() + 1e-12
            if name == "hamming": assert c[-1] <= 3 * E.mean() + 1e-12


# ---- weighting ------------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["f1", "hamming", "composite", "ranking"]))
def test_gw_attains_minimum_on_fine_grid(seed, name):
    r = np.random.default_rng(seed); n, K, k = 30, 6, 3
    Y = r.integers(0, 2, (n, K)).astype(np.int8); f = resolve_loss(name); c = lambda i, P: f(Y[i], P)
    F = r.choice([-3, -1.5, -1, -0.25, 0, 0.5, 1, 2], size=(n, K)); S = np.sort(r.choice(K, k, replace=False))
    h = r.choice([-1, 1], size=(n, k)); idx = np.arange(n)
    def obj(a):
        G = F.copy(); G[:, S] += a * h; return c(idx, (G > 0).astype(np.int8)).mean()
    a_gw, o_gw = greedy_weight(c, idx, F, S, h)
    assert np.isclose(obj(a_gw), o_gw)
    # the objective only changes where some a·h = -F, at multiples of 0.25 here: 201 points (step 0.025) visit
    # every interval between these breakpoints ten times
    assert o_gw <= min(obj(a) for a in np.linspace(1e-3, 5, 201)) + 1e-12
    a_sw, o_sw = simple_weight(c, idx, F, S, h, P=10, M=4)
    assert np.isclose(obj(a_sw), o_sw) and o_gw <= o_sw + 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["f1", "hamming", "composite", "ranking", "subset"]), st.integers(1, 5))
def test_weighting_with_pattern_lookup_equals_cost_calls(seed, name, k):
    "PRAkEL passes GW/SW the pattern costs it already has; the look-up must give what the cost calls give."
    from mlxplain.prakel import decompose_loss, labelset_patterns
    r = np.random.default_rng(seed); n, K = 25, 6
    Y = r.integers(0, 2, (n, K)).astype(np.int8); dc = decompose_loss(resolve_loss(name), Y); idx = np.arange(n)
    F = r.choice([-3, -1, -0.5, 0, 0.5, 1, 2], size=(n, K)); S = np.sort(r.choice(K, k, replace=False))
    h = r.choice([-1, 1], size=(n, k))
    P = dc.labelset_costs(idx, (F > 0).astype(np.int8), S, labelset_patterns(k))
    for fn in (greedy_weight, lambda *a, patterns=None: simple_weight(*a, P=10, M=3, patterns=patterns)):
        a0, o0 = fn(dc, idx, F, S, h); a1, o1 = fn(dc, idx, F, S, h, patterns=P)
        assert a0 == a1 and abs(o0 - o1) <= 1e-12


def test_prakel_iterations_never_recount_all_labels():
    "The kept sums: after the start, every cost-sum call covers the k labels of a labelset, never all K."
    from mlxplain import prakel as pk
    rows = []
    orig = pk.DecomposedCost._sums_T
    def spy(YS, RS, WS, *need):
        rows.append(YS.shape[0]); return orig(YS, RS, WS, *need)
    pk.DecomposedCost._sums_T = staticmethod(spy)
    try:
        r = np.random.default_rng(0); X = r.normal(size=(80, 5)); Y = r.integers(0, 2, (80, 30))
        for w in ("uniform", "greedy"):
            rows.clear(); PRAkEL(loss="f1", k=3, n_iterations=50, weighting=w, random_state=0).fit(X, Y)
            assert rows.count(30) == 2 and set(rows) == {3, 30} and len(rows) > 50   # truth and [F > 0], each built once
    finally:
        pk.DecomposedCost._sums_T = staticmethod(orig)


# ---- API, determinism, costs --------------------------------------------------------------------
def test_labelsets_cover_all_labels():
    for K, k in ((7, 3), (10, 4), (5, 5), (13, 1)):
        L = select_labelsets(K, k, int(np.ceil(K / k)), random_state=0)
        assert set(L.ravel()) == set(range(K))


def test_defaults_and_determinism(toy):
    X, Y = toy
    m = PRAkEL(random_state=0).fit(X, Y)
    assert len(m.estimators_) == int(np.ceil(10 * 6 / 3)) and m.training_cost_curve_.shape == (20,)
    assert np.array_equal(m.predict(X), PRAkEL(random_state=0).fit(X, Y).predict(X))
    import scipy.sparse as sp
    assert np.array_equal(PRAkEL(random_state=0).fit(sp.csr_matrix(X), Y).predict(sp.csr_matrix(X)), m.predict(X))


def test_user_and_example_costs(toy):
    X, Y = toy
    f1 = LOSSES["f1"]
    a = PRAkEL(loss=lambda Yt, P: f1(Yt, P, average=False), random_state=0).fit(X, Y).predict(X)
    b = PRAkEL(loss="f1", random_state=0).fit(X, Y).predict(X)
    assert np.array_equal(a, b)
    # example-dependent costs: a callable on instance indices, and an (N, K) weight matrix
    W = np.random.default_rng(0).random(Y.shape)
    c1 = PRAkEL(random_state=0).fit(X, Y, costs=W).predict(X)
    c2 = PRAkEL(random_state=0).fit(X, Y, costs=lambda idx, P: (W[idx] * (P != Y[idx])).sum(1)).predict(X)
    assert np.array_equal(c1, c2)
    w = np.linspace(1, 2, 6); w /= w.sum()
    PRAkEL(loss=weighted_hamming(w), random_state=0).fit(X, Y)


@pytest.mark.parametrize("kw, fit_kw, msg", [
    (dict(k=0), {}, "k=0"), (dict(k=7), {}, "K=6"), (dict(k=2.5), {}, "integer"),
    (dict(loss="hinge"), {}, "unknown"), (dict(loss=lambda Y, P: np.zeros((len(P), 2))), {}, "one cost per row"),
    (dict(loss=lambda Y, P: np.zeros(3)), {}, "one cost per row"),
    (dict(reference="oracle"), {}, "reference"), (dict(weighting="adaptive"), {}, "weighting"),
    (dict(n_iterations=0), {}, "n_iterations"), ({}, dict(costs=np.ones((2, 2))), "(N, K)"),
])
def test_bad_input(toy, kw, fit_kw, msg):
    X, Y = toy
    with pytest.raises(ValueError, match=None) as e: PRAkEL(**kw).fit(X, Y, **fit_kw)
    assert msg in str(e.value)


def test_bad_XY(toy):
    X, Y = toy
    with pytest.raises(ValueError, match="rows"): PRAkEL().fit(X, Y[:5])
    with pytest.raises(ValueError, match="binary"): PRAkEL().fit(X, Y * 2)
    with pytest.raises(TypeError, match="callable"): PRAkEL(loss=3).fit(X, Y)
    with pytest.raises(ValueError, match="2-D .*reshape"): PRAkEL().fit(X, Y[:, 0])   # one label: a column
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"): PRAkEL().fit(Xn, Y)
    with pytest.raises(ValueError, match="label lists"): RAkEL().fit(X[:3], [[0], [1, 2], [3]])
    m = PRAkEL(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="features"): m.predict(X[:, :3])


def test_oos_and_parallel(toy):
    X, Y = toy
    m = PRAkEL(reference="oos", random_state=0).fit(X, Y)
    assert m.predict(X).shape == Y.shape
    a = PRAkEL(reference="true", random_state=0, n_jobs=2).fit(X, Y).predict(X)
    b = PRAkEL(reference="true", random_state=0, n_jobs=1).fit(X, Y).predict(X)
    assert np.array_equal(a, b)
    assert np.array_equal(RAkEL(random_state=0, n_jobs=2).fit(X, Y).predict(X), RAkEL(random_state=0).fit(X, Y).predict(X))


# ---- baselines vs maintained implementations ----------------------------------------------------
def test_rakel_is_prakel_t_under_subset_loss(toy):
    X, Y = toy
    a = RAkEL(k=3, base_estimator=RidgeClassifier(alpha=1.0), random_state=2).fit(X, Y).predict(X)
    b = PRAkEL(loss="subset", k=3, reference="true", random_state=2).fit(X, Y).predict(X)
    assert (a == b).mean() > 0.99


def test_rakeld_matches_skmultilearn_label_powerset(toy):
    from skmultilearn.ensemble import RakelD
    X, Y = toy
    ours = RAkEL(k=6, mode="disjoint", base_estimator=LogisticRegression(max_iter=2000), random_state=0).fit(X, Y)
    peer = RakelD(base_classifier=LogisticRegression(max_iter=2000), labelset_size=6).fit(X, Y)
    assert np.array_equal(ours.predict(X), np.asarray(peer.predict(X).todense()))


def test_rakeld_k1_is_binary_relevance(toy):
    from mlxplain.learners import BinaryRelevance
    X, Y = toy
    ours = RAkEL(k=1, mode="disjoint", base_estimator=LogisticRegression(max_iter=2000), random_state=0).fit(X, Y)
    br = BinaryRelevance(LogisticRegression(max_iter=2000)).fit(X, Y)
    assert np.array_equal(ours.predict(X), br.predict(X))


def test_rakelo_close_to_skmultilearn(toy):
    from skmultilearn.ensemble import RakelO
    X, Y = toy; tr, te = slice(0, 200), slice(200, None)
    ours = RAkEL(k=3, n_iterations=10, base_estimator=LogisticRegression(max_iter=2000), random_state=0).fit(X[tr], Y[tr])
    peer = RakelO(base_classifier=LogisticRegression(max_iter=2000), base_classifier_require_dense=[True, True],
                  labelset_size=3, model_count=10).fit(X[tr], Y[tr])
    h = LOSSES["hamming"]
    assert abs(h(Y[te], ours.predict(X[te])) - h(Y[te], np.asarray(peer.predict(X[te]).todense()))) < 0.05


def test_mlknn_matches_skmultilearn(toy):
    from skmultilearn.adapt import MLkNN as Sk
    import scipy.sparse as sp
    X, Y = toy
    assert np.array_equal(MLkNN(k=7).fit(X, Y).predict(X),
                          np.asarray(Sk(k=7).fit(sp.csr_matrix(X), sp.csr_matrix(Y)).predict(sp.csr_matrix(X)).todense()))


def test_csrakel_instance_weights_follow_the_labels(toy):
    "The paper's CS-RAkEL: instance weight = Σ of the costs of its relevant labels, so it varies across instances."
    X, Y = toy
    w = np.random.default_rng(0).random(Y.shape[1]); w /= w.sum()          # label-dependent, non-uniform
    cs = CSRAkEL(k=2, weights=w, random_state=3).fit(X, Y)
    expected = np.where(Y.any(1), (Y * w).sum(1), w.mean())                # empty label vectors: mean label cost
    np.testing.assert_allclose(cs.sample_weight_, expected / expected.mean())
    assert cs.sample_weight_.std() > 0.1 and len(np.unique(cs.sample_weight_.round(12))) > 10
    ra = RAkEL(k=2, random_state=3).fit(X, Y).predict(X)
    assert not np.array_equal(cs.predict(X), ra)                          # CS-RAkEL differs from RAkEL ...
    # ... also with equal label weights (Table 12): the weight is then the number of relevant labels
    assert not np.array_equal(CSRAkEL(k=2, random_state=3).fit(X, Y).predict(X), ra)
    # the per-labelset reading gives every instance the same weight under label-dependent weights: plain RAkEL
    assert np.array_equal(CSRAkEL(k=2, weights=w, instance_weight="labelset", random_state=3).fit(X, Y).predict(X), ra)
    # example-dependent costs change the model too
    W = np.random.default_rng(0).random(Y.shape) ** 4
    b = CSRAkEL(k=2, random_state=3).fit(X, Y, costs=W).predict(X)
    assert b.shape == Y.shape and not np.array_equal(cs.predict(X), b)


def test_csrakel_shared_weighted_solver_matches_sklearn(toy):
    X, Y = toy
    w = np.linspace(0.1, 1, Y.shape[1])
    a = CSRAkEL(k=3, weights=w, random_state=0).fit(X, Y).predict(X)
    b = CSRAkEL(k=3, weights=w, random_state=0, shared_solver=False).fit(X, Y).predict(X)
    assert (a == b).mean() > 0.999
    with pytest.raises(ValueError, match="instance_weight"): CSRAkEL(instance_weight="all").fit(X, Y)
    with pytest.raises(ValueError, match="non-negative"): CSRAkEL(weights=-np.ones(Y.shape[1])).fit(X, Y)


def test_epcc_greedy_chain_and_rules(toy):
    from sklearn.multioutput import ClassifierChain
    X, Y = toy
    ep = EPCC(n_chains=1, n_samples=3000, random_state=0).fit(X, Y)
    cc = ep.chains_[0]
    # the sampled marginal of the chain's first label is that link's probability
    first = cc.order_[0]; p = cc.estimators_[0].predict_proba(X[:40])[:, 1]
    assert np.abs(ep.predict_marginals(X[:40])[:, first] - p).max() < 0.06
    # sklearn's ClassifierChain fitted with the same order gives the same links
    sk = ClassifierChain(LogisticRegression(max_iter=1000), order=cc.order_).fit(X, Y)
    np.testing.assert_allclose(sk.estimators_[2].coef_, cc.estimators_[2].coef_, rtol=1e-6, atol=1e-8)
    for loss in ("hamming", "f1", "ranking", "composite"):
        assert ep.predict(X[:20], loss=loss).shape == (20, 6)


# ---- the paper's claim on real data ---------------------------------------------------------------
def test_prakel_beats_rakel_under_f1_on_yeast(need_data):
    need_data("yeast")
    from mlxplain.data import load
    ds = load("yeast"); Y = ds.Y_dense; f1 = resolve_loss("f1")
    diffs = []
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(len(Y)); tr, te = perm[:1800], perm[1800:]
        s = StandardScaler().fit(ds.X[tr]); Xtr, Xte = s.transform(ds.X[tr]), s.transform(ds.X[te])
        p = PRAkEL(loss="f1", k=3, base_estimator=CostRegressionClassifier(Ridge(alpha=10.0)), random_state=seed).fit(Xtr, Y[tr])
        r = RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=seed).fit(Xtr, Y[tr])
        diffs.append(f1(Y[te], r.predict(Xte)).mean() - f1(Y[te], p.predict(Xte)).mean())
    diffs = np.array(diffs)
    assert diffs.mean() > diffs.std(ddof=1) / np.sqrt(len(diffs)), diffs


def test_staged_predict_and_weights(toy):
    X, Y = toy
    for w in ("uniform", "greedy", "simple"):
        m = PRAkEL(k=2, weighting=w, random_state=4).fit(X, Y)
        stages = list(m.staged_predict(X))
        assert len(stages) == len(m.estimators_) and np.array_equal(stages[-1], m.predict(X))
        # the recorded training curve is the cost of the staged training predictions
        f1 = resolve_loss("f1")
        np.testing.assert_allclose([f1(Y, P).mean() for P in stages], m.training_cost_curve_, atol=1e-12)
        assert (m.alphas_ > 0).all()


def test_demo_runs_fast(tmp_path):
    import time
    from mlxplain.prakel import demo
    t = time.perf_counter(); res = demo(tmp_path)
    assert time.perf_counter() - t < 20 and (tmp_path / "prakel_demo.png").exists()
    # cost sensitivity: each PRAkEL is best under the loss it was trained for
    assert res["PRAkEL trained for F1 | F1 loss"] < min(res["PRAkEL trained for Hamming | F1 loss"], res["RAkEL (cost-blind) | F1 loss"])
    assert res["PRAkEL trained for Hamming | Hamming loss"] < res["PRAkEL trained for F1 | Hamming loss"]


def test_shared_svd_paths_match_sklearn(toy):
    "One SVD for all sub-problems gives the same models as refitting scikit-learn's Ridge/RidgeClassifier."
    import scipy.sparse as sp
    X, Y = toy
    Xs = sp.csr_matrix(np.where(np.abs(X) > 1, X, 0))
    for XX in (X, Xs):
        for ref in ("predicted", "true"):
            a = PRAkEL(k=3, reference=ref, random_state=1).fit(XX, Y).predict(XX)
            b = PRAkEL(k=3, reference=ref, random_state=1, shared_solver=False).fit(XX, Y).predict(XX)
            assert (a == b).mean() > 0.999
        a = RAkEL(k=3, random_state=1).fit(XX, Y).predict(XX)
        b = RAkEL(k=3, random_state=1, shared_solver=False).fit(XX, Y).predict(XX)
        assert (a == b).mean() > 0.999


# ---- scikit-learn conventions -----------------------------------------------------------------------
@pytest.mark.parametrize("meth", ["predict", "decision_function", "staged_predict"])
def test_not_fitted_error(toy, meth):
    from sklearn.exceptions import NotFittedError
    X, _ = toy
    with pytest.raises(NotFittedError): getattr(PRAkEL(), meth)(X)
    with pytest.raises(NotFittedError): RAkEL().predict(X)


def test_lists_are_accepted(toy):
    X, Y = toy
    m = PRAkEL(k=3, random_state=0).fit(X.tolist(), Y.tolist())
    assert np.array_equal(m.predict(X[:7].tolist()), m.predict(X[:7]))
    np.testing.assert_array_equal(m.decision_function(X[:7].tolist()), m.decision_function(X[:7]))
    assert np.array_equal(list(m.staged_predict(X[:7].tolist()))[-1], m.predict(X[:7]))
    assert np.array_equal(RAkEL(random_state=0).fit(X.tolist(), Y.tolist()).predict(X[:7].tolist()),
                          RAkEL(random_state=0).fit(X, Y).predict(X[:7]))
    with pytest.raises(ValueError, match="2-D"): m.predict(X[0].tolist())


# ---- fast cost path (outside-S counts once per iteration) -----------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["hamming", "ranking", "f1", "composite", "subset", "weighted"]))
def test_decomposed_costs_equal_generic_path(seed, name):
    from mlxplain.prakel import decompose_loss
    r = np.random.default_rng(seed); n, K = 25, int(r.integers(2, 10)); k = int(r.integers(1, min(K, 5) + 1))
    Y = r.integers(0, 2, (n, K)).astype(np.int8); ref = r.integers(0, 2, (n, K)).astype(np.int8)
    f = weighted_hamming(r.random(K) + 0.01) if name == "weighted" else resolve_loss(name)
    c = decompose_loss(f, Y); S = np.sort(r.choice(K, k, replace=False)); idx = r.permutation(n)[:15]
    for shift in (True, False):
        np.testing.assert_allclose(transform_costs(c, idx, ref[idx], S, shift=shift),
                                   transform_costs(c, idx, ref[idx], S, shift=shift, fast=False), atol=1e-12)


@pytest.mark.parametrize("loss", ["f1", "hamming", "ranking", "composite"])
def test_fast_path_gives_identical_models(toy, loss, monkeypatch):
    "PRAkEL with the decomposed costs = PRAkEL with the generic O(N·K·2^k) path (same predictions, same curves)."
    import mlxplain.prakel as pk
    X, Y = toy
    fast = PRAkEL(loss=loss, k=3, weighting="greedy", random_state=1).fit(X, Y)
    monkeypatch.setattr(pk, "decompose_loss", lambda f, Y: None)
    slow = PRAkEL(loss=loss, k=3, weighting="greedy", random_state=1).fit(X, Y)
    assert np.array_equal(fast.predict(X), slow.predict(X))
    np.testing.assert_allclose(fast.training_cost_curve_, slow.training_cost_curve_, atol=1e-12)
    np.testing.assert_allclose(fast.alphas_, slow.alphas_)
    W = np.random.default_rng(1).random(Y.shape)          # example-dependent weighted Hamming (N, K) costs
    a = PRAkEL(k=3, random_state=1).fit(X, Y, costs=W).predict(X)
    b = PRAkEL(k=3, random_state=1).fit(X, Y, costs=lambda idx, P: (W[idx] * (P != Y[idx])).sum(1)).predict(X)
    assert np.array_equal(a, b)


# ---- one-sided regression ---------------------------------------------------------------------------
def test_one_sided_shared_solver_matches_sklearn_and_breaks_decomposition(toy):
    X, Y = toy
    os_ = lambda **kw: PRAkEL(loss="hamming", k=3, base_estimator=CostRegressionClassifier(Ridge(alpha=1.0), one_sided=True),
                              random_state=0, **kw)
    a = os_().fit(X, Y).predict(X); b = os_(shared_solver=False).fit(X, Y).predict(X)
    assert (a == b).mean() > 0.999
    # with least squares GW keeps α = 1 under Hamming loss (sub-classifiers always agree); one-sided regression does not
    assert (PRAkEL(loss="hamming", k=3, weighting="greedy", random_state=0).fit(X, Y).alphas_ == 1).all()
    assert (os_(weighting="greedy").fit(X, Y).alphas_ != 1).any()


# ---- the mechanism, measured inside fit ------------------------------------------------------------
from sklearn.base import BaseEstimator
from sklearn.tree import DecisionTreeRegressor
from mlxplain.prakel import FaithfulMLkNN, labelset_patterns


class _Recorder(BaseEstimator):
    "Ridge cost regression that keeps a copy of every cost matrix PRAkEL hands it (in `_Recorder.log`)."
    log = []

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, C):
        _Recorder.log.append(np.array(C))
        self.model_ = CostRegressionClassifier(Ridge(alpha=self.alpha)).fit(X, C)
        return self

    def predict(self, X):
        return self.model_.predict(X)


@pytest.mark.parametrize("name", ["hamming", "ranking"])
def test_theorem3_with_a_shift_sensitive_learner(toy, name):
    "Theorem 3 with a multi-output tree, which an unshifted per-instance constant does change."
    X, Y = toy
    base = CostRegressionClassifier(DecisionTreeRegressor(max_depth=4, random_state=0))
    # not vacuous: a per-instance constant added to every class cost changes the tree's predictions
    C = np.random.default_rng(0).random((len(X), 8))
    shifted = C + 3 * np.random.default_rng(1).random((len(X), 1))
    assert not np.array_equal(base.fit(X, C).predict(X), base.fit(X, shifted).predict(X))
    a = PRAkEL(loss=name, k=3, reference="true", base_estimator=base, random_state=7).fit(X, Y).predict(X)
    b = PRAkEL(loss=name, k=3, reference="predicted", base_estimator=base, random_state=7).fit(X, Y).predict(X)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("name", ["f1", "hamming", "composite"])
def test_subproblem_costs_are_the_shifted_transformed_costs(toy, name):
    "Each sub-problem's costs: transform_costs against H_{m-1}, row minimum 0; E_m is the cost of the chosen class."
    X, Y = toy
    _Recorder.log = []
    m = PRAkEL(loss=name, k=3, base_estimator=_Recorder(), shared_solver=False, random_state=3).fit(X, Y)
    f = resolve_loss(name)
    cost = lambda idx, P: f(Y[idx], P)
    refs = [Y] + list(m.staged_predict(X))[:-1]          # the truth first, then the vote so far
    idx = np.arange(len(Y))
    assert len(_Recorder.log) == len(m.estimators_)
    for C, S, ref, est, E in zip(_Recorder.log, m.labelsets_, refs, m.estimators_, m.subproblem_costs_):
        np.testing.assert_array_equal(C.min(1), 0)
        T = transform_costs(cost, idx, ref, S, fast=False)   # the generic path, one cost call per candidate row
        np.testing.assert_allclose(C, T, atol=1e-12)
        assert np.isclose(E, T[idx, est.predict(X)].mean(), atol=1e-12)
    # the shift matters here: against the vote, some instance's cheapest pattern costs more than 0 unshifted
    raw = [transform_costs(cost, idx, r, S, shift=False).min(1).max() for r, S in zip(refs[1:], m.labelsets_[1:])]
    assert max(raw) > 0


@pytest.mark.parametrize("seed", range(3))
def test_greedy_weighting_inside_fit(toy, seed):
    "GW's α_m never gives a higher training F1 cost than α_m = 1, the curve records it, and some α_m ≠ 1."
    X, Y = toy
    f = resolve_loss("f1")
    m = PRAkEL(loss="f1", k=3, weighting="greedy", random_state=seed).fit(X, Y)
    B = labelset_patterns(3)
    F = np.zeros(Y.shape)
    for i, (est, S, a) in enumerate(zip(m.estimators_, m.labelsets_, m.alphas_)):
        h = 2 * B[est.predict(X)].astype(float) - 1
        Fa, F1 = F.copy(), F.copy()
        Fa[:, S] += a * h
        F1[:, S] += h
        cost_a, cost_1 = f(Y, (Fa > 0).astype(np.int8)).mean(), f(Y, (F1 > 0).astype(np.int8)).mean()
        assert cost_a <= cost_1 + 1e-12, (i, cost_a, cost_1)
        assert np.isclose(m.training_cost_curve_[i], cost_a, atol=1e-12)
        F = Fa
    assert (m.alphas_ != 1).any()


# ---- clear errors ----------------------------------------------------------------------------------
_INF = np.ones((300, 6))
_INF[3, 2] = np.inf


@pytest.mark.parametrize("kw, fit_kw, msg", [
    ({}, dict(costs=_INF), "finite"),
    ({}, dict(costs=lambda idx, P: np.full(len(P), np.inf)), "finite"),
    ({}, dict(costs=lambda idx, P: np.zeros((1, len(P)))), "one cost per row"),
    (dict(loss=lambda Y, P: (Y != P).mean(1)[None]), {}, "one cost per row"),
    (dict(loss=lambda Y, P: (Y != P).mean(1)[:, None]), {}, "one cost per row"),
    (dict(weighting="simple", sw_grid=0), {}, "sw_grid=0"),
    (dict(weighting="simple", sw_grid=2.5), {}, "integer P >= 1"),
])
def test_bad_costs_and_grid(toy, kw, fit_kw, msg):
    X, Y = toy
    with pytest.raises(ValueError) as e:
        PRAkEL(**kw).fit(X, Y, **fit_kw)
    assert msg in str(e.value)


# ---- ML-kNN as published ---------------------------------------------------------------------------
def _mlknn_by_hand(X, Y, Xq, k, s=1.0):
    "Zhang & Zhou's ML-kNN written out with loops over points, labels and neighbours."
    N, K = Y.shape
    def nearest(x, exclude):
        d = [(float(((x - X[j]) ** 2).sum()), j) for j in range(N) if j != exclude]
        return [j for _, j in sorted(d)[:k]]
    train_nb = [nearest(X[i], i) for i in range(N)]
    out = np.zeros((len(Xq), K), dtype=np.int8)
    for t, x in enumerate(Xq):
        nb = nearest(x, None)
        for l in range(K):
            have = sum(Y[i, l] for i in range(N))
            p1 = (s + have) / (2 * s + N)
            c1, c0 = [0] * (k + 1), [0] * (k + 1)
            for i in range(N):
                j = sum(Y[q, l] for q in train_nb[i])
                if Y[i, l]:
                    c1[j] += 1
                else:
                    c0[j] += 1
            j = sum(Y[q, l] for q in nb)
            a = p1 * (s + c1[j]) / (s * (k + 1) + sum(c1))
            b = (1 - p1) * (s + c0[j]) / (s * (k + 1) + sum(c0))
            out[t, l] = a >= b
    return out


def test_faithful_mlknn_matches_hand_computation():
    r = np.random.default_rng(3)
    X, Q = r.normal(size=(60, 3)), r.normal(size=(15, 3))
    Y = (X[:, :2] + 0.7 * r.normal(size=(60, 2)) > 0).astype(np.int8)
    for k, s in ((4, 1.0), (7, 0.5)):
        assert np.array_equal(FaithfulMLkNN(k=k, s=s).fit(X, Y).predict(Q), _mlknn_by_hand(X, Y, Q, k, s))


def test_faithful_mlknn_counts_match_skmultilearn_without_self(toy):
    "scikit-multilearn-ng's counts equal ours once it drops the first neighbour; its default counts the point itself."
    from skmultilearn.adapt import MLkNN as Sk
    import scipy.sparse as sp
    X, Y = toy
    ours = FaithfulMLkNN(k=10).fit(X, Y)
    drop1 = Sk(k=10, ignore_first_neighbours=1).fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    np.testing.assert_allclose(ours.likelihood1_, drop1._cond_prob_true.toarray(), atol=1e-12)
    np.testing.assert_allclose(ours.likelihood0_, drop1._cond_prob_false.toarray(), atol=1e-12)
    default = Sk(k=10).fit(sp.csr_matrix(X), sp.csr_matrix(Y))
    assert not np.allclose(ours.likelihood1_, default._cond_prob_true.toarray())


def _duplicated_rows(seed, n_distinct=40, group_sizes=(2, 3, 6), d=3, K=3):
    "Distinct random rows, some repeated as exact duplicates that carry *different* label vectors (as in text data)."
    r = np.random.default_rng(seed)
    base = r.normal(size=(n_distinct, d))
    X = np.vstack([base] + [np.repeat(base[[g]], size - 1, axis=0) for g, size in enumerate(group_sizes)])
    Y = (r.random((len(X), K)) < 0.5).astype(np.int8)
    return X, Y


def test_faithful_mlknn_leaves_out_the_point_itself_among_duplicates():
    "Each training point's neighbours are k nearest *other* points, whatever order the tied duplicates come in."
    from mlxplain.prakel import _loo_neighbours
    from sklearn.neighbors import NearestNeighbors
    X, Y = _duplicated_rows(0)
    for k in (1, 2, 4):     # 4 < the group of 6 copies: some copies are not even listed among their own k + 1 hits
        nb = _loo_neighbours(NearestNeighbors(n_neighbors=k).fit(X), X, k)
        assert nb.shape == (len(X), k)
        D = ((X[:, None] - X[None]) ** 2).sum(-1)
        for i in range(len(X)):
            assert i not in nb[i] and len(set(nb[i])) == k
            kth = np.sort(np.delete(D[i], i))[k - 1]                # the k-th smallest distance to another point
            assert D[i, nb[i]].max() == pytest.approx(kth, abs=1e-12)


def test_faithful_mlknn_counts_on_duplicated_rows_match_hand_counts():
    """Likelihood counts by hand (neighbours: the k nearest j != i) on rows with duplicates of different labels.
    Each duplicated row sits far from the rest, in a group of k + 1 copies, so its k nearest others are exactly the
    other copies, and the reference has no ties at the k-th neighbour whichever copy sklearn lists first."""
    k, s = 3, 1.0
    r = np.random.default_rng(1)
    far = 100 + 10 * np.arange(4)[:, None] * np.ones(3)                       # 4 far-apart places
    X = np.vstack([r.normal(size=(40, 3))] + [np.repeat(p[None], k + 1, axis=0) for p in far])
    Y = (r.random((len(X), 3)) < 0.5).astype(np.int8)
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    N, K = Y.shape
    c1, c0 = np.zeros((K, k + 1)), np.zeros((K, k + 1))
    for i in range(N):
        d = np.delete(D[i], i); j = np.delete(np.arange(N), i)
        order = np.argsort(d, kind="stable")
        assert d[order[k]] > d[order[k - 1]] + 1e-9       # no tie at the k-th neighbour: the reference is unambiguous
        for l in range(K):
            (c1 if Y[i, l] else c0)[l, Y[j[order[:k]], l].sum()] += 1
    m = FaithfulMLkNN(k=k, s=s).fit(X, Y)
    np.testing.assert_allclose(m.likelihood1_, (s + c1) / (s * (k + 1) + c1.sum(1, keepdims=True)), atol=1e-12)
    np.testing.assert_allclose(m.likelihood0_, (s + c0) / (s * (k + 1) + c0.sum(1, keepdims=True)), atol=1e-12)


# ---- the solver path keeps its predictions ---------------------------------------------------------
def _digest(arrays):
    import hashlib
    h = hashlib.sha256()
    for a in arrays: h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def test_predictions_fixed_on_a_fixed_seed(toy):
    "45 PRAkEL variants, RAkEL and one-sided PRAkEL on the toy set: predictions and α's as the reference run gave."
    X, Y = toy
    base = CostRegressionClassifier(Ridge(alpha=10.0))
    P, A = [], []
    for loss in sorted(("f1", "hamming", "ranking", "subset", "composite")):
        for w in sorted(("uniform", "greedy", "simple")):
            for ref in sorted(("predicted", "true", "oos")):
                m = PRAkEL(loss=loss, k=3, weighting=w, reference=ref, base_estimator=base, random_state=0).fit(X, Y)
                P.append(m.predict(X).astype(np.int8))
                A.append(np.round(m.alphas_, 9))
    assert _digest(P) == "1aa6a37657ef8e76"
    assert _digest(A) == "a6581f528c801df5"
    r = RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(X, Y).predict(X)
    o = PRAkEL(loss="f1", k=3, base_estimator=CostRegressionClassifier(Ridge(alpha=10.0), one_sided=True),
               random_state=0).fit(X, Y).predict(X)
    assert _digest([r.astype(np.int8)]) == "8a1ad8e987f3a84e"
    assert _digest([o.astype(np.int8)]) == "93f99a90a9d487f7"


# ---- score: what the model is trained for ---------------------------------------------------------------
@pytest.mark.parametrize("loss", ["f1", "hamming", "ranking", "subset", "composite", "callable"])
def test_prakel_score_is_the_negated_trained_loss(toy, loss):
    "PRAkEL.score is −(mean trained loss), not subset accuracy (issue 42), sample weights included."
    X, Y = toy
    tr, te = slice(0, 200), slice(200, None)
    f = (lambda Yt, P: (np.asarray(Yt) != P).sum(1) ** 2 / 4.0) if loss == "callable" else resolve_loss(loss)
    m = PRAkEL(loss=f if loss == "callable" else loss, k=3, random_state=0).fit(X[tr], Y[tr])
    P = m.predict(X[te])
    assert m.score(X[te], Y[te]) == pytest.approx(-f(Y[te], P).mean(), abs=1e-12)
    w = np.random.default_rng(0).random(len(P))
    assert m.score(X[te], Y[te], sample_weight=w) == pytest.approx(-np.average(f(Y[te], P), weights=w), abs=1e-12)
    if loss != "subset":   # a different number from subset accuracy, so the mixin's score cannot pass
        assert m.score(X[te], Y[te]) != pytest.approx((P == Y[te]).all(1).mean(), abs=1e-9)


def test_grid_search_without_scoring_tunes_the_trained_loss(toy):
    "GridSearchCV's default scorer is PRAkEL.score: its fold scores are −(Hamming loss) of the fold's predictions."
    from sklearn.model_selection import GridSearchCV, KFold
    X, Y = toy
    cv = KFold(3)
    gs = GridSearchCV(PRAkEL(loss="hamming", random_state=0), {"k": [2, 4]}, cv=cv).fit(X, Y)
    for i, k in enumerate(gs.cv_results_["param_k"]):
        want = [-LOSSES["hamming"](Y[te], PRAkEL(loss="hamming", k=k, random_state=0).fit(X[tr], Y[tr]).predict(X[te]))
                for tr, te in cv.split(X)]
        assert gs.cv_results_["mean_test_score"][i] == pytest.approx(np.mean(want), abs=1e-12)


def test_csrakel_and_epcc_score_their_losses(toy):
    X, Y = toy
    w = np.arange(1, 7, dtype=float)
    c = CSRAkEL(k=3, weights=w, random_state=0).fit(X, Y)
    assert c.score(X, Y) == pytest.approx(-LOSSES["hamming"](Y, c.predict(X), weights=w), abs=1e-12)
    assert CSRAkEL(k=3, random_state=0).fit(X, Y).score(X, Y) == pytest.approx(
        -LOSSES["hamming"](Y, CSRAkEL(k=3, random_state=0).fit(X, Y).predict(X)), abs=1e-12)
    for loss in ("hamming", "f1"):
        e = EPCC(loss=loss, n_chains=2, n_samples=30, random_state=0).fit(X, Y)
        assert e.score(X, Y) == pytest.approx(-LOSSES[loss](Y, e.predict(X)), abs=1e-12)
    r = RAkEL(k=3, random_state=0).fit(X, Y)   # RAkEL is PRAkEL_t under subset loss: subset accuracy
    assert r.score(X, Y) == pytest.approx((r.predict(X) == Y).all(1).mean(), abs=1e-12)


# ---- progress of long fits ----------------------------------------------------------------------------
@pytest.mark.parametrize("make, unit, n", [(lambda v: PRAkEL(k=3, n_iterations=7, verbose=v, random_state=0), "labelset", 7),
                                           (lambda v: PRAkEL(k=3, n_iterations=7, reference="true", verbose=v,
                                                             random_state=0), "labelset", 7),
                                           (lambda v: RAkEL(k=3, n_iterations=5, verbose=v, random_state=0), "labelset", 5),
                                           (lambda v: CSRAkEL(k=3, n_iterations=5, verbose=v, random_state=0), "labelset", 5)])
def test_verbose_shows_the_labelsets_and_default_is_silent(toy, capsys, make, unit, n):
    X, Y = toy
    quiet = make(0).fit(X, Y)
    assert capsys.readouterr().err == ""
    loud = make(1).fit(X, Y)
    err = capsys.readouterr().err
    assert type(loud).__name__ in err and f"{n}/{n}" in err and unit in err
    np.testing.assert_array_equal(loud.predict(X), quiet.predict(X))
    for bad, exc in ((-1, ValueError), (0.5, TypeError), ("1", TypeError)):
        with pytest.raises(exc, match="verbose="): make(bad).fit(X, Y)
