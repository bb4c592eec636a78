"""Tests of mlxplain.extended_plt: adversarial set, evaluation vs the foundation metrics,
explanations (valid features, occlusion = brute force, and = an independent product of node
probabilities on a hand-built tree), bad input, determinism, pickling, the paper's tables against
the paper's text, and napkinXC's own contract on its yeast split (a staged or downloaded data set)."""
import gc
import os
import pickle
import re
import tempfile
from pathlib import Path
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from hypothesis import given, settings, strategies as st

from mlxplain.data import make_label_specific
from mlxplain.metrics import precision_at_k, ndcg_at_k, psdcg_at_k, inverse_propensity
from mlxplain.extended_plt import (ExtendedPLT, add_noise, make_adversarial_set, adversarial_evaluation,
                                   summarize_evaluation, explain, attribution, deletion_curve, faithfulness,
                                   worst_case_perturbation, attack_evaluation)


@pytest.fixture(scope="module")
def data():
    ds, _ = make_label_specific(n_samples=500, n_features=30, n_labels=6, n_relevant=3, sparse=True, random_state=0)
    X, Y = sp.csr_matrix(ds.X, dtype=np.float32), sp.csr_matrix(ds.Y)
    return X[:350], Y[:350], X[350:], Y[350:]


@pytest.fixture(scope="module")
def model(data):
    Xtr, Ytr, _, _ = data
    return ExtendedPLT(seed=0).fit(Xtr, Ytr)


# --- adversarial training set ------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 40), ratio=st.floats(0.05, 3.0), noise=st.sampled_from(["dense", "support"]), seed=st.integers(0, 99))
def test_adversarial_set_size_and_labels(n, ratio, noise, seed):
    rng = np.random.default_rng(seed)
    X = sp.random(n, 7, density=0.4, format="csr", random_state=seed, dtype=np.float32)
    Yd = (rng.random((n, 4)) < 0.5).astype(np.int8); Yd[0, 0] = 1; Y = sp.csr_matrix(Yd)
    m = int(round(n * ratio))
    if m < 1:
        with pytest.raises(ValueError, match="m=0"): make_adversarial_set(X, Y, 0.05, ratio, noise, seed)
        return
    Xa, Ya, idx = make_adversarial_set(X, Y, 0.05, ratio, noise, seed)
    assert Xa.shape == (n + m, 7) and Ya.shape == (n + m, 4) and len(idx) == m
    np.testing.assert_array_equal(Ya[n:].toarray(), Y.toarray()[idx])        # labels copied exactly
    np.testing.assert_array_equal(Ya[:n].toarray(), Y.toarray())
    np.testing.assert_array_equal(Xa[:n].toarray(), X.toarray())             # clean part untouched
    if m <= n: assert len(np.unique(idx)) == m                               # without replacement
    if noise == "support": np.testing.assert_array_equal(Xa[n:].indices, X[idx].indices)


def test_fit_adversarial_records_rows(data):
    Xtr, Ytr, _, _ = data
    m = ExtendedPLT(seed=0).fit_adversarial(Xtr, Ytr, sigma=0.05, augment_ratio=0.5, noise="support", random_state=1)
    assert m.adversarial_ and m.n_train_ == 350 + 175 and len(m.adv_indices_) == 175


def test_noise_kinds():
    X = sp.csr_matrix(np.array([[0, 1.0, 0], [2.0, 0, 0]], np.float32))
    assert add_noise(X, 0.1, "dense", 0).nnz == 6
    assert add_noise(X, 0.1, "support", 0).nnz == 2
    assert (add_noise(X, 0, "dense", 0) != X).nnz == 0


# --- evaluation = foundation metrics on the same predictions --------------------------------
def test_evaluation_equals_foundation_metrics(model, data):
    _, Ytr, Xte, Yte = data
    res = adversarial_evaluation(model, Xte, Yte, noise_levels=(0, 0.05), k_values=(1, 3, 5), noise="support",
                                 random_state=7, chunk_size=40)
    rng = np.random.default_rng(np.random.SeedSequence(7).spawn(1)[0])
    Xn = sp.vstack([add_noise(Xte[s:s + 40], 0.05, "support", rng) for s in range(0, Xte.shape[0], 40)], format="csr")
    S = model.predict_proba(Xn, 5, as_csr=True)
    q = inverse_propensity(Ytr, method="log")
    got = res[res.sigma == 0.05].set_index(["k", "metric"])["value"]
    for k in (1, 3, 5):
        assert got[(k, "P@k")] == pytest.approx(precision_at_k(Yte, S, k), abs=1e-12)
        assert got[(k, "nDCG@k")] == pytest.approx(ndcg_at_k(Yte, S, k), abs=1e-12)
        assert got[(k, "PSDCG@k")] == pytest.approx(psdcg_at_k(Yte, S, k, q), abs=1e-12)
    # napkinXC-style label lists give the same P@k through the foundation
    assert got[(1, "P@k")] == pytest.approx(precision_at_k(Yte, model.predict_ranked(Xn, 1), 1), abs=1e-12)


def test_evaluation_repeats_and_ci(model, data):
    _, _, Xte, Yte = data
    res = adversarial_evaluation(model, Xte, Yte, (0, 0.1), (1,), n_repeats=3, random_state=0)
    assert set(res.repeat) == {0, 1, 2} and len(res) == 2 * 3 * 3
    s = summarize_evaluation(res)
    raw = res.query("sigma == 0.1 and metric == 'P@k'").value.values
    lo, hi = stats.t.interval(0.95, len(raw) - 1, loc=raw.mean(), scale=stats.sem(raw))   # scipy, on the raw rows
    got = s.query("sigma == 0.1 and metric == 'P@k'")
    assert got["mean"].item() == pytest.approx(raw.mean()) and got["n"].item() == 3
    assert (got.ci_low.item(), got.ci_high.item()) == pytest.approx((lo, hi), abs=1e-12)
    assert s.query("sigma == 0")["std"].fillna(0).max() == 0                          # clean data: no spread
    again = adversarial_evaluation(model, Xte, Yte, (0, 0.1), (1,), n_repeats=3, random_state=0)
    np.testing.assert_array_equal(res.value.values, again.value.values)      # seeded noise


# --- explanations ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["magnitude", "occlusion"])
def test_explain_returns_nonzero_features(model, data, method):
    _, _, Xte, _ = data
    for i in range(5):
        x = Xte[[i]]
        e = explain(model, x, k=4, method=method)
        assert len(e) == min(4, x.nnz)
        assert all(0 <= f < 30 and f in set(x.indices) for f, _ in e)


@pytest.mark.parametrize("method", ["magnitude", "occlusion"])
def test_explain_ranks_the_largest_scores_first(model, data, method):
    "explain's k pairs are the k largest scores, best first (ties by feature index), against scores computed by hand."
    _, _, Xte, _ = data
    k, spread = 3, 0.0
    for i in range(10):
        x = Xte[[i]]
        dense = x.toarray()[0]
        feats = np.flatnonzero(dense)
        if len(feats) <= k: continue
        label = int(model.predict_ranked(x, 1)[0][0])
        if method == "magnitude": score = np.abs(dense[feats]).astype(float)
        else:   # the occlusion drop, one napkinXC call per zeroed feature
            base = model.label_proba(x, label)[0]
            score = np.array([base - model.label_proba(sp.csr_matrix(np.where(np.arange(len(dense)) == j, 0, dense)[None]),
                                                       label)[0] for j in feats])
        best = sorted(zip(feats.tolist(), score.tolist()), key=lambda t: (-t[1], t[0]))[:k]
        got = explain(model, x, k=k, label=label, method=method)
        assert [v for _, v in got] == pytest.approx([dense[f] if method == "magnitude" else s for f, s in best], abs=1e-6)
        if method == "magnitude": assert [f for f, _ in got] == [f for f, _ in best]
        spread = max(spread, score.max() - score.min())
    assert spread > 1e-3        # scores that differ, so a reversed or unsorted ranking cannot pass


def test_occlusion_matches_brute_force_on_hand_built_tree():
    tree = [(-1, 0, -1), (0, 1, -1), (0, 2, 2), (1, 3, 0), (1, 4, 1)]   # root → {node 1 → labels 0, 1; label 2}
    ds, _ = make_label_specific(n_samples=150, n_features=5, n_labels=3, n_relevant=2, sparse=True, random_state=3)
    m = ExtendedPLT(tree_structure=tree, seed=0).fit(ds.X, ds.Y)
    X = sp.csr_matrix(ds.X, dtype=np.float32)
    x = X[[int(np.argmax(np.diff(X.indptr)))]]
    for label in range(3):
        feats, occ, _ = attribution(m, x, label=label, method="occlusion")
        base = m.label_proba(x, label)[0]
        for j, a in zip(feats, occ):
            xj = x.toarray(); xj[0, j] = 0
            assert a == pytest.approx(base - m.label_proba(sp.csr_matrix(xj), label)[0], abs=1e-7)


def test_occlusion_equals_product_of_node_probabilities():
    """Independent of label_proba: on the hand-built tree root -> {node 1 -> labels 0, 1; label 2}, force
    the node training problems (label 0 always on, so root, node 1 and leaf 0 see only positives, and the
    leaves of labels 1, 2 are trained on all rows against their label). Then
    P(0)=c^3, P(1)=c^2 eta_1, P(2)=c eta_2, where c and eta_l are napkinXC BR's one-vs-all probabilities
    (a different model class) with the same LIBLINEAR settings; a tight tolerance makes both solvers agree."""
    from napkinxc.models import BR
    tree = [(-1, 0, -1), (0, 1, -1), (0, 2, 2), (1, 3, 0), (1, 4, 1)]
    rng = np.random.default_rng(0)
    X = sp.csr_matrix((rng.random((200, 6)) * (rng.random((200, 6)) < 0.6)).astype(np.float32))
    Y = np.zeros((200, 3), np.int8); Y[:, 0] = 1
    Y[:, 1] = X[:, 0].toarray().ravel() + 0.3 * rng.standard_normal(200) > 0.3
    Y[:, 2] = X[:, 2].toarray().ravel() > X[:, 4].toarray().ravel()
    tight = dict(liblinear_eps=1e-6, liblinear_max_iter=10_000, weights_threshold=0.0)
    m = ExtendedPLT(tree_structure=tree, seed=0, **tight).fit(X, Y)
    with tempfile.TemporaryDirectory() as d:
        br = BR(d, seed=0, threads=1, **tight)
        br.fit(X, sp.csr_matrix(Y).astype(np.float32))
        def by_hand(Z):
            eta = np.array([[dict(r)[l] for l in range(3)] for r in br.predict_proba(Z, top_k=3)])
            c = eta[:, 0]
            return np.stack([c ** 3, c ** 2 * eta[:, 1], c * eta[:, 2]], axis=1)
        np.testing.assert_allclose(np.stack([m.label_proba(X, l) for l in range(3)], 1), by_hand(X), atol=1e-5)
        for i in np.argsort(-np.diff(X.indptr))[:3]:          # the three rows with most nonzeros
            x = X[[i]]
            rows = [x] + [sp.csr_matrix(np.where(np.arange(6) == j, 0, x.toarray())) for j in x.indices]
            H = by_hand(sp.vstack(rows, format="csr"))
            for label in range(3):
                feats, occ, _ = attribution(m, x, label=label, method="occlusion")
                np.testing.assert_array_equal(feats, x.indices)
                np.testing.assert_allclose(occ, H[0, label] - H[1:, label], atol=1e-5)
        assert max(np.abs(attribution(m, X[[i]], label=1)[1]).max() for i in range(20)) > 1e-2   # not a vacuous check


def test_deletion_curve_and_faithfulness(model, data):
    _, _, Xte, _ = data
    x = Xte[[0]]
    feats, s, lab = attribution(model, x, method="occlusion")
    c = deletion_curve(model, x, feats[np.argsort(-s)], lab)
    assert len(c) == x.nnz + 1 and c[0] == pytest.approx(model.label_proba(x, lab)[0])
    # the curve's points are the probabilities of x with the first i ranked features zeroed, one by one
    order = feats[np.argsort(-s)]
    for i in (1, len(order)):
        z = x.toarray(); z[0, order[:i]] = 0
        assert c[i] == pytest.approx(model.label_proba(sp.csr_matrix(z), lab)[0], abs=1e-7)
    fa = faithfulness(model, Xte, n_instances=10, random_state=0)
    assert set(fa.method) == {"magnitude", "occlusion", "random"} and len(fa) == 30
    r = fa[fa.method == "occlusion"].iloc[0]                 # the stored AUC is the trapezoid area of that curve
    xr = Xte[[int(r.instance)]]; f_, s_, _ = attribution(model, xr, int(r.label))
    cr = deletion_curve(model, xr, f_[np.lexsort((f_, -s_))], int(r.label))
    assert r.auc == pytest.approx(np.trapezoid(cr, np.linspace(0, 1, len(cr))))
    assert r.p_clean == pytest.approx(cr[0])
    # on this generator problem (each label depends on 3 features) occlusion beats a random ranking
    mean = fa.groupby("method").auc.mean()
    assert mean["occlusion"] < mean["random"]


def test_worst_case_budget(model, data):
    _, _, Xte, Yte = data
    x = Xte[[1]]
    z, pb, pa = worst_case_perturbation(model, x, 0.3)
    assert np.linalg.norm((z - x).toarray()) == pytest.approx(0.3, rel=1e-3) and pa <= pb + 1e-6
    # started from a Gaussian draw, the attack spends exactly its norm and never ends above its probability
    lab = model.predict_ranked(x, 1)[0][0]
    for seed in range(5):
        e = np.random.default_rng(seed).standard_normal(x.nnz) * 0.1
        zg = x.copy(); zg.data = zg.data + e.astype(np.float32)
        z, _, pa = worst_case_perturbation(model, x, float(np.linalg.norm(e)), label=lab, start=e)
        assert np.linalg.norm((z - x).toarray()) == pytest.approx(np.linalg.norm(e), rel=1e-4)
        assert pa <= model.label_proba(zg, lab)[0] + 1e-6
    for noise in ("support", "dense"):
        att = attack_evaluation(model, Xte, Yte, sigma=0.1, noise=noise, n_instances=30, random_state=0)
        a = att.set_index(["perturbation", "k"])
        assert a.loc[("gaussian", 1), "mean_l2"] == pytest.approx(a.loc[("worst_case", 1), "mean_l2"], rel=1e-4)
        assert a.loc[("clean", 1), "mean_l2"] == 0


# --- bad input ------------------------------------------------------------------------------
def test_bad_input(model, data):
    Xtr, Ytr, Xte, Yte = data
    with pytest.raises(ValueError, match="sigma=-0.1"): ExtendedPLT().fit_adversarial(Xtr, Ytr, sigma=-0.1)
    with pytest.raises(ValueError, match="noise_levels=-1"): adversarial_evaluation(model, Xte, Yte, noise_levels=(0.1, -1))
    with pytest.raises(ValueError, match=r"top_k=7: top_k must be an integer in \[1, 6\]"): model.predict(Xte, top_k=7)
    with pytest.raises(ValueError, match=r"k_values=10: k_values must be an integer in \[1, 6\]"):
        adversarial_evaluation(model, Xte, Yte, k_values=(10,))
    with pytest.raises(ValueError, match="0 samples"): model.predict(Xte[:0])
    with pytest.raises(ValueError, match="no positive labels"): ExtendedPLT().fit(Xtr, sp.csr_matrix(Ytr.shape))
    with pytest.raises(TypeError, match="CSR"): model.predict(Xte.toarray().tolist())
    with pytest.raises(ValueError, match="ExtendedPLT is expecting 30 features"): model.predict(Xte[:, :10])
    with pytest.raises(ValueError, match="norm=False"): ExtendedPLT(norm=False).fit(Xtr, Ytr)
    with pytest.raises(ValueError, match="not fitted"): ExtendedPLT().predict_proba(Xte)
    with pytest.raises(ValueError, match="noise"): add_noise(Xte, 0.1, noise="uniform")
    # documented conversions: dense arrays, CSC/COO become CSR; empty feature rows are predicted from the bias alone
    np.testing.assert_array_equal(np.array(model.predict(Xte[:3].toarray(), 2)), np.array(model.predict(Xte[:3].tocsc(), 2)))
    assert explain(model, sp.csr_matrix((1, 30), dtype=np.float32)) == []


def test_unconvertible_input_raises_clear_errors(model, data):
    Xtr, Ytr, Xte, Yte = data
    A = Xte.toarray()
    bad = {"1-D": (A[0], ValueError, "2-D"), "3-D": (A[None], ValueError, "2-D"),
           "strings": (A.astype(str), TypeError, "real numbers"), "complex": (A.astype(complex), TypeError, "real numbers"),
           "NaN": (np.where(A == A.max(), np.nan, A), ValueError, "NaN"), "inf": (np.where(A == A.max(), np.inf, A), ValueError, "infinite"),
           "sparse NaN": (sp.csr_matrix(np.where(A == A.max(), np.nan, A)), ValueError, "NaN"),
           "zero rows": (A[:0], ValueError, "0 samples"), "zero rows CSR": (Xte[:0], ValueError, "0 samples"),
           "list of rows": (A.tolist(), TypeError, "CSR"), "object with text": (np.array([["a"] * 30], dtype=object), TypeError, "not numbers")}
    for what, (X, err, msg) in bad.items():
        with pytest.raises(err, match=msg): model.predict(X, 2)
        with pytest.raises(err, match=msg): model.predict_proba(X, 2)
    with pytest.raises(ValueError, match="0 samples"): ExtendedPLT().fit(Xtr[:0], Ytr[:0])
    with pytest.raises(ValueError, match="NaN"): ExtendedPLT().fit_adversarial(sp.csr_matrix(np.where(Xtr.toarray() == 0, np.nan, Xtr.toarray())), Ytr)
    with pytest.raises(ValueError, match="0 samples"): adversarial_evaluation(model, Xte[:0], Yte[:0])
    with pytest.raises(ValueError, match="2-D"): add_noise(A[0], 0.1)
    with pytest.raises(TypeError, match="indicator"): ExtendedPLT().fit(Xtr, np.array([["a"]] * 350))
    with pytest.raises(ValueError, match="same instances"): ExtendedPLT().fit(Xtr, Ytr[:10])
    with pytest.raises(ValueError, match="one instance"): explain(model, Xte[:2])
    with pytest.raises(ValueError, match="k=0: k must be an integer"): explain(model, Xte[[0]], k=0)


def test_sigma_and_k_errors(model, data):
    Xtr, Ytr, Xte, Yte = data
    for sigma in (-0.1, float("nan"), float("inf"), "0.1", None, True):   # out of range: ValueError; not a number: TypeError
        with pytest.raises((TypeError, ValueError), match=r"sigma=.*: sigma must be a finite number in \[0, inf\)"): add_noise(Xte, sigma)
        with pytest.raises((TypeError, ValueError), match="sigma="): make_adversarial_set(Xtr, Ytr, sigma=sigma)
    with pytest.raises(ValueError, match="budget=-1: budget must be"): worst_case_perturbation(model, Xte[[0]], budget=-1)
    with pytest.raises(ValueError, match="sigma=-0.1"): attack_evaluation(model, Xte, Yte, sigma=-0.1)
    for k in (0, 7, 2.5, True):
        with pytest.raises((TypeError, ValueError), match=r"top_k=.*: top_k must be an integer in \[1, 6\]"): model.predict(Xte, top_k=k)
    with pytest.raises(ValueError, match="top_k=7"): model.predict_proba(Xte, top_k=7)
    with pytest.raises(ValueError, match="k_values=7"): adversarial_evaluation(model, Xte, Yte, k_values=(1, 7))


def test_documented_conversions_and_empty_rows(model, data):
    "scikit-learn convention: dense arrays, object arrays of numbers, CSC/COO/LIL convert; all-zero rows are valid."
    _, _, Xte, _ = data
    ref = model.predict_ranked(Xte[:5], 3, return_proba=True)
    for X in (Xte[:5].toarray(), Xte[:5].toarray().astype(object), Xte[:5].tocsc(), Xte[:5].tocoo(), Xte[:5].tolil(),
              Xte[:5].astype(np.float64), pd.DataFrame(Xte[:5].toarray())):
        got = model.predict_ranked(X, 3, return_proba=True)
        assert [[l for l, _ in r] for r in got] == [[l for l, _ in r] for r in ref]
        np.testing.assert_allclose([[p for _, p in r] for r in got], [[p for _, p in r] for r in ref], rtol=1e-6)
        np.testing.assert_allclose(model.predict_proba(X), model.predict_proba(Xte[:5]), rtol=1e-6)
    # all-zero rows: the bias alone decides, so they all get the same ranking, equal to the bias-only prediction
    E = model.predict_ranked(sp.csr_matrix((3, 30), dtype=np.float32), 3, return_proba=True)
    assert E[0] == E[1] == E[2] and len(E[0]) == 3
    Xz = sp.vstack([Xte[:2], sp.csr_matrix((1, 30), dtype=np.float32)], format="csr")
    assert model.predict_ranked(Xz, 3, return_proba=True)[2] == E[0]


# --- estimator plumbing ----------------------------------------------------------------------
def test_determinism_pickle_cleanup(data):
    Xtr, Ytr, Xte, _ = data
    a = ExtendedPLT(seed=5).fit(Xtr, Ytr).predict_proba(Xte)
    b = ExtendedPLT(seed=5).fit(Xtr, Ytr).predict_proba(Xte)
    np.testing.assert_array_equal(a, b)
    m = ExtendedPLT(seed=5).fit(Xtr, Ytr)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict_proba(Xte), m.predict_proba(Xte))
    assert m2.model_dir_ != m.model_dir_
    d = m.model_dir_; assert os.path.isdir(d)
    del m; gc.collect()
    assert not os.path.exists(d)
    m3 = ExtendedPLT(seed=5).fit(Xtr, Ytr); d3 = m3.model_dir_
    m3.fit(Xtr, Ytr); assert not os.path.exists(d3) and os.path.isdir(m3.model_dir_)   # refit replaces the directory


# --- napkinXC's own contract on its yeast split (staged data) --------------------------------
def test_napkinxc_yeast_contract(need_data):
    need_data("yeast-xc")
    from mlxplain.data import load
    tr, te = load("yeast-xc", "train"), load("yeast-xc", "test")
    m = ExtendedPLT(seed=0).fit(tr.X, tr.Y)
    p1 = precision_at_k(te.Y, m.predict_proba(te.X, 1, as_csr=True), 1)
    assert 0.61 <= p1 <= 0.77, p1


def test_chunking_does_not_change_results_and_method_forms(model, data):
    _, _, Xte, Yte = data
    for noise in ("dense", "support"):
        a = adversarial_evaluation(model, Xte, Yte, (0.1,), (1, 3), noise=noise, random_state=3, chunk_size=17)
        b = adversarial_evaluation(model, Xte, Yte, (0.1,), (1, 3), noise=noise, random_state=3, chunk_size=10_000)
        np.testing.assert_array_equal(a.value.values, b.value.values)
    c = model.adversarial_evaluation(Xte, Yte, noise_levels=(0.1,), k_values=(1, 3), noise="dense", random_state=3)
    np.testing.assert_array_equal(c.value.values, adversarial_evaluation(model, Xte, Yte, (0.1,), (1, 3), random_state=3).value.values)
    assert model.explain(Xte[[0]], 2, method="occlusion") == explain(model, Xte[[0]], 2, method="occlusion")
    assert ExtendedPLT.fit_for_adversarial_examples is ExtendedPLT.fit_adversarial


# --- defaults on small label sets -------------------------------------------------------------
def test_default_top_k_works_with_fewer_than_five_labels():
    "top_k=None (the default) means min(5, n_labels): a 3-label model predicts its 3 labels, ranked."
    ds, _ = make_label_specific(n_samples=120, n_features=8, n_labels=3, sparse=True, random_state=0)
    m = ExtendedPLT(seed=0).fit(ds.X, ds.Y)
    P = m.predict_ranked(ds.X[:4])
    assert [sorted(r) for r in P] == [[0, 1, 2]] * 4
    pr = m.predict_ranked(ds.X[:4], return_proba=True)
    assert all(len(r) == 3 and [p for _, p in r] == sorted((p for _, p in r), reverse=True) for r in pr)
    assert (m.predict_proba(ds.X[:4], as_csr=True).getnnz(1) == 3).all()       # every label's probability
    assert m.predict(ds.X[:4], top_k=3, as_csr=True).sum() == 12
    assert len(m.predict_ranked(ds.X[:1], 2)[0]) == 2
    with pytest.raises(ValueError, match=r"top_k=5: top_k must be an integer in \[1, 3\]"): m.predict(ds.X[:4], top_k=5)


# --- every napkinXC parameter is checked before napkinXC sees it (subprocess: a crash fails one test) --
BAD_PLT_PARAMS = [
    ({"arity": 0}, "arity"), ({"arity": 1}, "arity"), ({"arity": 2.5}, "arity"), ({"hash": -5}, "hash"),
    ({"threads": -3}, "threads"), ({"liblinear_c": -1}, "liblinear_c"), ({"liblinear_c": 0.0}, "liblinear_c"),
    ({"beam_search_width": 0, "tree_search_type": "beam"}, "beam_search_width"), ({"max_leaves": 0}, "max_leaves"),
    ({"kmeans_eps": 0.0}, "kmeans_eps"), ({"kmeans_balanced": "yes"}, "kmeans_balanced"),
    ({"features_threshold": -1.0}, "features_threshold"), ({"bias": float("inf")}, "bias"),
    ({"weights_threshold": float("nan")}, "weights_threshold"), ({"liblinear_eps": -0.1}, "liblinear_eps"),
    ({"liblinear_max_iter": 0}, "liblinear_max_iter"), ({"eta": 0.0, "optimizer": "sgd"}, "eta"),
    ({"epochs": 0, "optimizer": "sgd"}, "epochs"), ({"adagrad_eps": -1.0, "optimizer": "adagrad"}, "adagrad_eps"),
    ({"ensemble": 0}, "ensemble"), ({"seed": -1}, "seed"), ({"verbose": -1}, "verbose"),
    ({"tree_type": "kmeans"}, "tree_type"), ({"optimizer": "adam"}, "optimizer"), ({"loss": "hinge"}, "loss"),
    ({"liblinear_solver": "L2R"}, "liblinear_solver"), ({"tree_search_type": "greedy"}, "tree_search_type"),
    ({"tree_structure": "/nonexistent/tree.txt"}, "tree_structure"), ({"norm": False}, "norm")]

_WORKER = """
import sys
from math import inf, nan
import numpy as np, scipy.sparse as sp
from mlxplain.extended_plt import ExtendedPLT
X = sp.random(60, 6, density=0.5, format="csr", random_state=0, dtype=np.float32)
Y = sp.csr_matrix((np.arange(60)[:, None] % 4 == np.arange(4)).astype(np.int8))
print("READY", flush=True)
for line in sys.stdin:
    try:
        m = ExtendedPLT(**eval(line)).fit(X, Y)
        print("NO ERROR", m.predict(X[:2], 2), flush=True)
    except (TypeError, ValueError) as e:   # a checked parameter: the wrong type or out of range
        print(type(e).__name__, str(e).replace(chr(10), " "), flush=True)
"""


class _FitWorker:
    "A Python subprocess fitting ExtendedPLT(**params) per request line; a crash or hang fails that request only."
    def __init__(self): self.proc = None

    def fit(self, params, timeout=60, start_timeout=600):
        "The worker's answer to one fit; `timeout` counts from the request, after the worker's imports."
        import select, subprocess, sys
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True)
            ready, _, _ = select.select([self.proc.stdout], [], [], start_timeout)   # imports: slow on a busy machine
            if not ready or self.proc.stdout.readline().strip() != "READY":
                self.proc.kill(); self.proc.wait(); self.proc = None
                return "WORKER DID NOT START"
        self.proc.stdin.write(repr(params) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill(); self.proc.wait(); self.proc = None
            return f"HUNG (no answer in {timeout} s)"
        line = self.proc.stdout.readline().strip()
        if not line:
            rc = self.proc.wait(); self.proc = None
            return f"CRASHED (exit status {rc})"
        return line

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close(); self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def fit_worker():
    w = _FitWorker()
    yield w
    w.close()


@pytest.mark.parametrize("params,name", BAD_PLT_PARAMS, ids=[",".join(f"{k}={v!r}" for k, v in p.items()) for p, _ in BAD_PLT_PARAMS])
def test_bad_napkinxc_parameter_is_a_value_error_not_a_crash(fit_worker, params, name):
    out = fit_worker.fit(params)
    assert out.split()[0] in ("ValueError", "TypeError"), out
    assert f"{name}=" in out and re.search(r"must be|use one of|keep", out), out


def test_good_parameters_still_train_in_the_worker(fit_worker):
    "The worker itself works: napkinXC's documented edge values pass the checks and train."
    ok = {"arity": 3, "hash": 0, "threads": -1, "max_leaves": 1, "tree_search_type": "beam", "beam_search_width": 1,
          "liblinear_solver": "L2R_LR", "seed": 2**31 - 1, "verbose": False, "loss": "logistic"}
    out = fit_worker.fit(ok)
    assert out.startswith("NO ERROR"), out


@pytest.mark.parametrize("params,name", [({"sigma": -0.1}, "sigma"), ({"sigma": float("nan")}, "sigma"),
                                         ({"augment_ratio": 0}, "augment_ratio"), ({"noise": "uniform"}, "noise"),
                                         ({"random_state": -1}, "random_state"), ({"adversarial": "yes"}, "adversarial")])
def test_bad_adversarial_parameter(data, params, name):
    Xtr, Ytr, _, _ = data
    with pytest.raises(ValueError, match=f"{name}="): ExtendedPLT(**{"adversarial": True, **params}).fit(Xtr, Ytr)


# --- labels ---------------------------------------------------------------------------------
def test_label_ids_out_of_range_and_duplicates(model, data):
    _, Ytr, Xte, Yte = data
    lists = [list(np.flatnonzero(r)) for r in Yte.toarray()]
    bad = [r + [6] if i == 3 else r for i, r in enumerate(lists)]            # id 6 of a 6-label model
    with pytest.raises(ValueError, match="label id 6 is out of range"): adversarial_evaluation(model, Xte, bad, 0, 1)
    with pytest.raises(ValueError, match="label id -1"): ExtendedPLT().fit(Xte, [r + [-1] for r in lists])
    with pytest.raises(TypeError, match="integers"): ExtendedPLT().fit(Xte, [[1.5]] + lists[1:])
    # a label repeated in a row counts once: lists, and a CSR matrix storing an entry twice
    dup = [r + r[:1] for r in lists]
    a = adversarial_evaluation(model, Xte, dup, (0, 0.1), (1, 3), random_state=0)
    b = adversarial_evaluation(model, Xte, Yte, (0, 0.1), (1, 3), random_state=0)
    np.testing.assert_array_equal(a.value.values, b.value.values)
    twice = sp.csr_matrix((np.repeat(Ytr.data, 2), np.repeat(Ytr.indices, 2), 2 * Ytr.indptr), shape=Ytr.shape)
    from mlxplain.extended_plt import _check_Y
    assert (_check_Y(twice, Ytr.shape[0]) != Ytr).nnz == 0 and twice.nnz == 2 * Ytr.nnz     # the caller's matrix is kept


def test_scalar_noise_levels_and_k(model, data):
    _, _, Xte, Yte = data
    a = adversarial_evaluation(model, Xte, Yte, noise_levels=0.1, k_values=3, random_state=2)
    b = adversarial_evaluation(model, Xte, Yte, noise_levels=(0.1,), k_values=(3,), random_state=2)
    pd.testing.assert_frame_equal(a.drop(columns=["predict_time", "predict_cpu_time"]),
                                  b.drop(columns=["predict_time", "predict_cpu_time"]))


def test_support_noise_leaves_explicit_zeros_untouched():
    X = sp.csr_matrix((np.array([1.0, 0.0, 2.0], np.float32), np.array([0, 1, 3]), np.array([0, 2, 3])), shape=(2, 4))
    assert X.nnz == 3                                                        # entry (0, 1) is a stored zero
    Z = add_noise(X, 0.5, "support", 0)
    assert Z[0, 1] == 0 and Z[0, 0] != 1.0 and Z[1, 3] != 2.0
    np.testing.assert_array_equal(Z.toarray() != 0, X.toarray() != 0)


# --- adversarial training as constructor parameters -----------------------------------------
def test_adversarial_parameters_clone_and_fit_adversarial_agree(data):
    from sklearn.base import clone
    Xtr, Ytr, Xte, _ = data
    kw = dict(sigma=0.05, augment_ratio=0.5, noise="support", random_state=1)
    m = ExtendedPLT(seed=0, adversarial=True, **kw).fit(Xtr, Ytr)
    c = clone(m)
    assert c.get_params() == m.get_params() and not hasattr(c, "adversarial_")
    c.fit(Xtr, Ytr)
    assert c.adversarial_ and c.n_train_ == 350 + 175 and c.adv_params_["noise"] == "support"
    np.testing.assert_array_equal(c.adv_indices_, m.adv_indices_)
    np.testing.assert_array_equal(c.predict_proba(Xte), m.predict_proba(Xte))     # same seeds, same model
    f = ExtendedPLT(seed=0).fit_adversarial(Xtr, Ytr, **kw)                  # the convenience method: same model
    assert f.get_params() == m.get_params()
    np.testing.assert_array_equal(f.predict_proba(Xte), m.predict_proba(Xte))
    f.set_params(adversarial=False).fit(Xtr, Ytr)                            # back to normal training
    assert not f.adversarial_ and f.n_train_ == 350 and not hasattr(f, "adv_params_")


def test_grid_search_over_sigma(data):
    from sklearn.model_selection import GridSearchCV, KFold
    from mlxplain.metrics import precision_at_k
    Xtr, Ytr, _, _ = data
    p1 = lambda est, X, Y: precision_at_k(Y, est.predict_proba(X, 1, as_csr=True), 1)
    gs = GridSearchCV(ExtendedPLT(seed=0, adversarial=True, random_state=0), {"sigma": [0.0, 0.5]}, scoring=p1,
                      cv=KFold(2, shuffle=True, random_state=0)).fit(Xtr, Ytr)
    assert list(gs.cv_results_["param_sigma"]) == [0.0, 0.5]
    assert gs.best_estimator_.adversarial_ and gs.best_estimator_.adv_params_["sigma"] == gs.best_params_["sigma"]
    assert np.all(np.isfinite(gs.cv_results_["mean_test_score"]))


def _napkinxc_training_rows(monkeypatch, m, X, Y):
    "Fit `m` and return the feature matrix napkinXC was trained on."
    seen = {}
    orig = ExtendedPLT._fit_napkinxc
    def spy(self, Xa, Ya, *args):
        seen["X"] = Xa
        return orig(self, Xa, Ya, *args)
    monkeypatch.setattr(ExtendedPLT, "_fit_napkinxc", spy)
    m.fit(X, Y)
    return seen["X"]


@pytest.mark.parametrize("noise", ["dense", "support"])
@pytest.mark.parametrize("sigma", [0.05, 0.3])
def test_augmented_rows_carry_noise_of_variance_sigma_squared(monkeypatch, data, noise, sigma):
    """The noise napkinXC trains on: rows n.. minus their clean originals. Its mean square over the N noisy
    entries is sigma² within the chi²(N)/N interval (two-sided 1e-6), so no noise, or 10σ, fails."""
    Xtr, Ytr, _, _ = data
    m = ExtendedPLT(seed=0, adversarial=True, sigma=sigma, noise=noise, random_state=4)
    Xa = _napkinxc_training_rows(monkeypatch, m, Xtr, Ytr)
    n, idx = Xtr.shape[0], m.adv_indices_
    assert Xa.shape[0] == n + len(idx) and (Xa[:n] != Xtr).nnz == 0
    E = Xa[n:].toarray().astype(np.float64) - Xtr[idx].toarray()
    e = E.ravel() if noise == "dense" else E[Xtr[idx].toarray() != 0]    # support noise: on the nonzeros only
    if noise == "support": assert np.all(E[Xtr[idx].toarray() == 0] == 0)
    N = e.size
    lo, hi = stats.chi2.ppf([1e-6, 1 - 1e-6], N) / N
    assert N > 1000 and lo < np.mean(e ** 2) / sigma ** 2 < hi, (np.mean(e ** 2), sigma ** 2, lo, hi)
    assert abs(e.mean()) < 6 * sigma / np.sqrt(N)                           # centred


def test_adversarial_model_differs_from_normal_on_the_same_seed(data):
    Xtr, Ytr, Xte, _ = data
    normal = ExtendedPLT(seed=0).fit(Xtr, Ytr).predict_proba(Xte, 3, as_csr=True).toarray()
    for noise in ("dense", "support"):
        adv = ExtendedPLT(seed=0, adversarial=True, sigma=0.3, noise=noise, random_state=0).fit(Xtr, Ytr)
        assert np.abs(adv.predict_proba(Xte, 3, as_csr=True).toarray() - normal).max() > 1e-3, noise


# --- explanations with names -----------------------------------------------------------------
def test_explain_frame_with_feature_and_label_names(data):
    Xtr, Ytr, Xte, _ = data
    cols, labs = [f"f{j}" for j in range(30)], [f"tag{l}" for l in range(6)]
    m = ExtendedPLT(seed=0).fit(pd.DataFrame(Xtr.toarray(), columns=cols), pd.DataFrame(Ytr.toarray(), columns=labs))
    np.testing.assert_array_equal(m.feature_names_in_, cols)
    x = pd.DataFrame(Xte[[0]].toarray(), columns=cols)
    df = m.explain(x, 3, method="occlusion", as_frame=True)
    assert list(df.columns) == ["rank", "feature", "feature_name", "score", "label", "label_name", "method"]
    pairs = explain(m, x, 3, method="occlusion")
    assert list(zip(df.feature, df.score)) == pairs and list(df.feature_name) == [cols[f] for f, _ in pairs]
    assert set(df.label_name) == {labs[df.label.iloc[0]]} and list(df["rank"]) == [0, 1, 2]
    plain = ExtendedPLT(seed=0).fit(Xtr, Ytr)
    assert "feature_name" not in explain(plain, Xte[[0]], 3, as_frame=True).columns
    named = explain(plain, Xte[[0]], 3, as_frame=True, feature_names=cols)
    assert list(named.feature_name) == [cols[f] for f in named.feature]
    with pytest.raises(ValueError, match="2 feature names"): explain(plain, Xte[[0]], as_frame=True, feature_names=["a", "b"])


# --- dense noise in row blocks ------------------------------------------------------------
def _one_piece(X, sigma, ratio, seed):
    "The one-piece construction: X[idx] densified whole, noise added, converted to CSR, stacked."
    X = sp.csr_matrix(X, dtype=np.float32); rng = np.random.default_rng(seed)
    m = int(round(X.shape[0] * ratio))
    idx = np.sort(rng.choice(X.shape[0], size=m, replace=m > X.shape[0]))
    A = X[idx].toarray()
    A += sigma * rng.standard_normal(A.shape, dtype=np.float32)
    return sp.vstack([X, sp.csr_matrix(A)], format="csr"), idx


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 60), d=st.integers(1, 25), ratio=st.floats(0.1, 3.0), block=st.integers(1, 80),
       seed=st.integers(0, 99))
def test_dense_blocks_equal_one_piece(n, d, ratio, block, seed):
    X = sp.random(n, d, density=0.3, format="csr", dtype=np.float32, random_state=seed)
    Y = sp.csr_matrix(np.ones((n, 2), np.int8))
    if int(round(n * ratio)) < 1: return
    ref, idx_ref = _one_piece(X, 0.1, ratio, seed)
    Xa, _, idx = make_adversarial_set(X, Y, 0.1, ratio, "dense", random_state=seed, block_rows=block)
    np.testing.assert_array_equal(idx, idx_ref)
    for a in ("indptr", "indices", "data"): np.testing.assert_array_equal(getattr(Xa, a), getattr(ref, a))
    np.testing.assert_array_equal(add_noise(X, 0.3, "dense", seed, block_rows=block).toarray(),
                                  add_noise(X, 0.3, "dense", seed, block_rows=10**6).toarray())


def test_dense_blocks_bad_block_rows(data):
    Xtr, Ytr, _, _ = data
    for bad in (0, -1, 2.5, True):
        with pytest.raises((TypeError, ValueError), match="block_rows"): make_adversarial_set(Xtr, Ytr, block_rows=bad)


# --- intervals over training seeds ----------------------------------------------------------
def test_seed_evaluation_spreads_over_training_seeds(data):
    from mlxplain.extended_plt import seed_evaluation, summarize_seeds
    Xtr, Ytr, Xte, Yte = data
    sev = seed_evaluation(ExtendedPLT(adversarial=True, sigma=0.2), Xtr, Ytr, Xte, Yte, train_seeds=(0, 1, 2),
                          noise_levels=(0, 0.5), k_values=(1, 3), n_repeats=4)
    assert len(sev) == 3 * 4 * 2 * 2 * 3
    s = summarize_seeds(sev).set_index(["sigma", "k", "metric"]).loc[(0.5, 1, "P@k")]
    per = sev.query("sigma == 0.5 and k == 1 and metric == 'P@k'").groupby("train_seed").value.mean()
    assert s["mean"] == pytest.approx(per.mean()) and s["se"] == pytest.approx(stats.sem(per))
    assert (s["n_train"], s["n_noise"]) == (3, 4)
    # the fits differ (augmentation and napkinXC seeds), so the spread over training seeds is not zero
    assert sev.query("sigma == 0").groupby("train_seed").value.sum().nunique() > 1
