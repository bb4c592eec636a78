"""Cross-checks of mlxplain.metrics against scikit-learn, napkinxc and brute-force definitions.

Random inputs come from hypothesis and include all-zero rows, all-one rows and tied scores; each
input is also tried as a scipy CSR matrix. Where our convention differs from the reference library
the test checks the documented relation instead of equality.
"""
import re
from functools import partial

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.metrics as skm
import napkinxc.metrics as nxm
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra.numpy import arrays

from mlxplain import metrics as M

EPS = 1e-12
# hypothesis's default of 100 examples per property: the cross-checks call scikit-learn several times per example
# (the F1 family 8 times, 6 ms each): with 150 this file took 37 s instead of 27 s
SETTINGS = dict(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- strategies
@st.composite
def binary_matrix(draw, n=None, c=None, min_c=1):
    n = draw(st.integers(1, 12)) if n is None else n
    c = draw(st.integers(min_c, 8)) if c is None else c
    Y = draw(arrays(np.int8, (n, c), elements=st.integers(0, 1)))
    # force the edge cases to appear often: an all-zero and an all-one row
    if n > 1 and draw(st.booleans()): Y[draw(st.integers(0, n - 1))] = 0
    if n > 1 and draw(st.booleans()): Y[draw(st.integers(0, n - 1))] = 1
    return Y


@st.composite
def problem(draw, min_c=1, scores="ties"):
    "(Y, P, S): truth, binary prediction, scores with many ties (small integers) or continuous."
    Y = draw(binary_matrix(min_c=min_c))
    n, c = Y.shape
    P = draw(binary_matrix(n=n, c=c))
    if scores == "ties":
        S = draw(arrays(np.float64, (n, c), elements=st.integers(-2, 2).map(float)))
    else:  # distinct scores per row (no ties), so every library ranks identically
        S = np.argsort(draw(st.permutations(list(range(n * c))))).reshape(n, c).astype(float) / (n * c)
    return Y, P, S


def maybe_sparse(draw_bool, *As):
    return tuple(sp.csr_matrix(A) if draw_bool else A for A in As)


# ---------------------------------------------------------------- brute-force references (one instance at a time)
def rl_brute(y, s, ties=0.5):
    rel, irr = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    if len(rel) == 0 or len(irr) == 0: return 0.0
    tot = sum((s[k] < s[l]) + ties * (s[k] == s[l]) for k in rel for l in irr)
    return tot / (len(rel) * len(irr))


def one_error_brute(y, s):
    if y.sum() == 0: return 0.0
    top = np.flatnonzero(s == s.max())
    return 1.0 - y[top].mean()


def coverage_brute(y, s):
    if y.sum() == 0: return 0.0
    return max((s >= s[k]).sum() for k in np.flatnonzero(y)) - 1.0


def ap_brute(y, s):
    rel = np.flatnonzero(y)
    if len(rel) == 0: return 1.0
    return np.mean([((s >= s[k]) & (y == 1)).sum() / (s >= s[k]).sum() for k in rel])


def topk_brute(s, k):  # best first, ties by smaller index
    return sorted(range(len(s)), key=lambda l: (-s[l], l))[:k]


# ---------------------------------------------------------------- example-based losses
@settings(**SETTINGS)
@given(problem(min_c=2), st.booleans())
def test_hamming_subset_vs_sklearn(prob, sparse):
    Y, P, _ = prob
    Ys, Ps = maybe_sparse(sparse, Y, P)
    assert abs(M.hamming_loss(Ys, Ps) - skm.hamming_loss(Y, P)) < EPS
    assert abs(M.subset_zero_one_loss(Ys, Ps) - (1 - skm.accuracy_score(Y, P))) < EPS
    v = M.hamming_loss(Ys, Ps, average=False)
    assert v.shape == (Y.shape[0],) and abs(v.mean() - M.hamming_loss(Ys, Ps)) < EPS
    # uniform weights give Hamming back; unnormalised weights scale it
    C = Y.shape[1]
    assert abs(M.hamming_loss(Ys, Ps, weights=np.full(C, 3.0)) - skm.hamming_loss(Y, P)) < EPS
    assert abs(M.hamming_loss(Ys, Ps, weights=np.ones(C), normalize=False) - C * skm.hamming_loss(Y, P)) < 1e-10


@settings(**SETTINGS)
@given(problem(), st.booleans(), st.data())
def test_weighted_hamming_definition(prob, sparse, data):
    Y, P, _ = prob
    n, C = Y.shape
    w = np.array(data.draw(st.lists(st.floats(0, 5), min_size=C, max_size=C)))
    if w.sum() == 0: w[0] = 1.0
    Ys, Ps = maybe_sparse(sparse, Y, P)
    ref = ((Y != P) * (w / w.sum())).sum(1)
    np.testing.assert_allclose(M.hamming_loss(Ys, Ps, weights=w, average=False), ref, atol=EPS)
    W = np.tile(w, (n, 1))
    np.testing.assert_allclose(M.hamming_loss(Ys, Ps, weights=W, average=False), ref, atol=EPS)


@settings(**SETTINGS)
@given(problem(), st.booleans())
def test_prakel_lemma1_ranking_is_weighted_hamming(prob, sparse):
    "PRAkEL Lemma 1: for binary predictions L_r(y, .) = L_{H,w}(y, .) with w[k] = #{l: y_l != y_k} / (2 p q)."
    Y, P, _ = prob
    C = Y.shape[1]
    p = Y.sum(1, keepdims=True).astype(float)
    W = np.where(Y == 1, C - p, p) / 2
    W = np.divide(W, p * (C - p), out=np.zeros_like(W), where=p * (C - p) > 0)
    Ys, Ps = maybe_sparse(sparse, Y, P)
    np.testing.assert_allclose(M.ranking_loss(Ys, Ps, average=False),
                               M.hamming_loss(Ys, Ps, weights=W, normalize=False, average=False), atol=EPS)
    ref = [rl_brute(y, s) for y, s in zip(Y, P.astype(float))]
    np.testing.assert_allclose(M.ranking_loss(Ys, Ps, average=False), ref, atol=EPS)


@settings(**SETTINGS)
@given(problem(min_c=2), st.booleans())
def test_f1_family_vs_sklearn(prob, sparse):
    Y, P, _ = prob
    Ys, Ps = maybe_sparse(sparse, Y, P)
    for z in (0, 1):
        assert abs(M.example_f1(Ys, Ps, zero_division=z) - skm.f1_score(Y, P, average="samples", zero_division=z)) < EPS
        assert abs(M.micro_f1(Ys, Ps, zero_division=z) - skm.f1_score(Y, P, average="micro", zero_division=z)) < EPS
        assert abs(M.macro_f1(Ys, Ps, zero_division=z) - skm.f1_score(Y, P, average="macro", zero_division=z)) < EPS
        np.testing.assert_allclose(M.macro_f1(Ys, Ps, average=False, zero_division=z),
                                   skm.f1_score(Y, P, average=None, zero_division=z), atol=EPS)
    # the PRAkEL F1 loss is 1 - F1 with F1(empty, empty) = 1
    both_empty = (Y.sum(1) == 0) & (P.sum(1) == 0)
    ref = 1 - skm.f1_score(Y, P, average="samples", zero_division=0)
    assert abs(M.f1_loss(Ys, Ps) - (ref - both_empty.mean())) < EPS
    assert abs(M.f1_loss(Ys, Ps) + M.example_f1(Ys, Ps) - 1) < EPS


@settings(**SETTINGS)
@given(problem(), st.booleans())
def test_composite(prob, sparse):
    Y, P, _ = prob
    Ys, Ps = maybe_sparse(sparse, Y, P)
    assert abs(M.composite_loss(Ys, Ps) - (0.8 * M.hamming_loss(Y, P) + 0.2 * M.f1_loss(Y, P))) < EPS


@settings(**SETTINGS)
@given(binary_matrix(n=1), st.sampled_from(sorted(M.LOSSES)), st.booleans())
def test_losses_broadcast_one_truth_against_all_candidates(y, name, sparse):
    C = y.shape[1]
    cands = ((np.arange(2 ** C)[:, None] >> np.arange(C)[::-1]) & 1).astype(np.int8)
    loss = M.LOSSES[name]
    ys, cs = maybe_sparse(sparse, y, cands)
    v = loss(ys, cs, average=False)
    assert v.shape == (2 ** C,)
    np.testing.assert_allclose(v, loss(np.tile(y, (2 ** C, 1)), cands, average=False), atol=EPS)
    np.testing.assert_allclose(v, loss(cs, ys, average=False) if name in ("hamming", "subset", "f1", "weighted_hamming")
                               else v, atol=EPS)  # the symmetric losses
    assert v[int("".join(map(str, y[0])), 2)] == pytest.approx(0.0, abs=1e-12)  # the truth itself costs nothing
    assert (v >= 0).all() and (v <= 1 + EPS).all()


def test_losses_broadcast_1d_truth():
    y = np.array([1, 0, 1, 1, 0])
    cands = np.eye(5, dtype=int)
    np.testing.assert_allclose(M.LOSSES["f1"](y, cands, average=False), M.LOSSES["f1"](y[None, :], cands, average=False))


# ---------------------------------------------------------------- ranking measures
@settings(**SETTINGS)
@given(problem(min_c=2), st.booleans(), st.booleans())
def test_ranking_measures_vs_sklearn_and_brute(prob, sparse, ties):
    Y, _, S = prob
    if not ties: S = S + np.random.default_rng(0).random(S.shape) * 1e-3  # break ties
    Ys, Ss = maybe_sparse(sparse, Y, S)
    # ranking loss: sklearn counts ties as whole errors
    assert abs(M.ranking_loss(Ys, Ss, ties=1) - skm.label_ranking_loss(Y, S)) < EPS
    for t in (0.0, 0.5, 1.0):
        np.testing.assert_allclose(M.ranking_loss(Ys, Ss, ties=t, average=False),
                                   [rl_brute(y, s, t) for y, s in zip(Y, S)], atol=EPS)
    np.testing.assert_allclose(M.ranking_loss(Ys, Ss), (M.ranking_loss(Y, S, ties=0) + M.ranking_loss(Y, S, ties=1)) / 2, atol=EPS)
    # average precision = sklearn's LRAP (empty rows: 1 in both)
    assert abs(M.average_precision(Ys, Ss) - skm.label_ranking_average_precision_score(Y, S)) < EPS
    np.testing.assert_allclose(M.average_precision(Ys, Ss, average=False), [ap_brute(y, s) for y, s in zip(Y, S)], atol=EPS)
    # coverage = sklearn's coverage_error - 1 on rows with a relevant label, 0 on empty rows (sklearn: 0 too)
    cov = M.coverage(Ys, Ss, average=False)
    sk_rows = np.array([skm.coverage_error(y[None], s[None]) for y, s in zip(Y, S)])
    np.testing.assert_allclose(cov, np.maximum(sk_rows - 1, 0), atol=EPS)
    np.testing.assert_allclose(cov, [coverage_brute(y, s) for y, s in zip(Y, S)], atol=EPS)
    nonempty = Y.sum(1) > 0
    if nonempty.any():
        assert abs(M.coverage(Y[nonempty], S[nonempty]) + 1 - skm.coverage_error(Y[nonempty], S[nonempty])) < EPS
    assert abs(M.coverage(Ys, Ss, normalize=True) - cov.mean() / Y.shape[1]) < EPS
    # one-error: expected value over ties at the top
    np.testing.assert_allclose(M.one_error(Ys, Ss, average=False), [one_error_brute(y, s) for y, s in zip(Y, S)], atol=EPS)


@settings(**SETTINGS)
@given(problem(), st.sampled_from(["ranking_loss", "one_error", "coverage", "average_precision"]))
def test_ranking_measures_mean_and_blocks(prob, name):
    Y, _, S = prob
    f = getattr(M, name)
    v = f(Y, S, average=False)
    assert v.shape == (Y.shape[0],) and abs(v.mean() - f(Y, S)) < EPS
    old = M._BLOCK
    try:  # tiny blocks: the row-block loop must not change anything
        M._BLOCK = 3
        np.testing.assert_allclose(f(sp.csr_matrix(Y), S, average=False), v, atol=EPS)
    finally:
        M._BLOCK = old


def test_ranking_loss_broadcast_real_scores():
    rng = np.random.default_rng(1)
    y = (rng.random(6) < 0.5).astype(int); y[0], y[1] = 1, 0
    S = rng.random((20, 6))
    np.testing.assert_allclose(M.ranking_loss(y[None], S, average=False), M.ranking_loss(np.tile(y, (20, 1)), S, average=False))


def test_ranking_on_sparse_scores_uses_implicit_zeros():
    Y = np.array([[1, 0, 0, 1], [0, 1, 0, 0]])
    S = np.array([[0.5, 0, 0.2, 0], [0, 0, 0.7, 0]])
    for f in (M.ranking_loss, M.one_error, M.coverage, M.average_precision):
        np.testing.assert_allclose(f(Y, sp.csr_matrix(S), average=False), f(Y, S, average=False))


# ---------------------------------------------------------------- @k measures
def _lists(R):
    return [[int(l) for l in r if l >= 0] for r in R]


@settings(**SETTINGS)
@given(problem(min_c=1), st.booleans(), st.data())
def test_at_k_vs_napkinxc_with_our_ranking(prob, sparse, data):
    Y, _, S = prob
    C = Y.shape[1]
    k = data.draw(st.integers(1, C))
    R = M.top_k(S, k)
    assert [list(r) for r in R] == [topk_brute(s, k) for s in S]  # ties: smaller label first
    Ys = sp.csr_matrix(Y) if sparse else Y
    L = _lists(R)
    assert abs(M.precision_at_k(Ys, S, k) - nxm.precision_at_k(Y, L, k)[-1]) < EPS
    assert abs(M.ndcg_at_k(Ys, S, k) - nxm.ndcg_at_k(Y, L, k)[-1]) < EPS
    # every cut-off 1..k matches napkinxc's vector
    np.testing.assert_allclose([M.precision_at_k(Ys, R, j, ranked=True) for j in range(1, k + 1)],
                               nxm.precision_at_k(Y, L, k), atol=EPS)
    np.testing.assert_allclose([M.ndcg_at_k(Ys, R, j, ranked=True) for j in range(1, k + 1)],
                               nxm.ndcg_at_k(Y, L, k), atol=EPS)
    for method in ("jain", "log"):
        q = M.inverse_propensity(Y, method)
        ref = nxm.psdcg_at_k(Y, L, q, k)[-1]
        assert abs(M.psdcg_at_k(Ys, S, k, q) - (ref if np.isfinite(ref) else 0.0)) < EPS  # napkinxc: 0/0 -> NaN
        # napkinxc's un-normalised PSDCG@k divides by k
        assert abs(M.psdcg_at_k(Ys, S, k, q, normalize=False) / k - nxm.psdcg_at_k(Y, L, q, k, normalize=False)[-1]) < EPS
        ref = nxm.psprecision_at_k(Y, L, q, k)[-1]
        assert abs(M.psprecision_at_k(Ys, S, k, q) - (ref if np.isfinite(ref) else 0.0)) < EPS
        assert abs(M.psprecision_at_k(Ys, S, k, q, normalize=False) - nxm.psprecision_at_k(Y, L, q, k, normalize=False)[-1]) < EPS
        v = M.psdcg_at_k(Ys, S, k, q, average=False)
        assert abs(v.mean() - M.psdcg_at_k(Ys, S, k, q)) < EPS
    # list input (napkinxc predict / predict_proba output) and ranked arrays give the same
    assert abs(M.precision_at_k(Ys, L, k) - M.precision_at_k(Ys, S, k)) < EPS
    assert abs(M.ndcg_at_k(Ys, [[(l, 1.0) for l in r] for r in L], k) - M.ndcg_at_k(Ys, S, k)) < EPS


@settings(**SETTINGS)
@given(problem(min_c=1, scores="distinct"), st.data())
def test_at_k_vs_napkinxc_on_raw_scores(prob, data):
    "Without ties napkinxc ranks score matrices itself, dense or sparse (stored entries are the candidates)."
    Y, _, S = prob
    k = data.draw(st.integers(1, Y.shape[1]))
    assert abs(M.precision_at_k(Y, S, k) - nxm.precision_at_k(Y, S, k)[-1]) < EPS
    assert abs(M.ndcg_at_k(Y, S, k) - nxm.ndcg_at_k(Y, S, k)[-1]) < EPS
    # a sparse score matrix: keep a random subset of entries as candidates
    keep = data.draw(arrays(np.bool_, S.shape))
    Ssp = sp.csr_matrix(np.where(keep, S + 1.0, 0.0))
    assert abs(M.precision_at_k(sp.csr_matrix(Y), Ssp, k) - nxm.precision_at_k(sp.csr_matrix(Y), Ssp, k)[-1]) < EPS
    assert abs(M.ndcg_at_k(sp.csr_matrix(Y), Ssp, k) - nxm.ndcg_at_k(sp.csr_matrix(Y), Ssp, k)[-1]) < EPS
    q = M.inverse_propensity(Y, "jain")
    ref = nxm.psdcg_at_k(Y, Ssp, q, k)[-1]
    assert abs(M.psdcg_at_k(Y, Ssp, k, q) - (ref if np.isfinite(ref) else 0.0)) < EPS


def test_top_k_sparse_pads_and_orders():
    S = sp.csr_matrix(np.array([[0, 0.2, 0, 0.9], [0, 0, 0, 0], [0.5, 0.5, 0.5, 0]]))
    np.testing.assert_array_equal(M.top_k(S, 3), [[3, 1, -1], [-1, -1, -1], [0, 1, 2]])
    Y = np.array([[0, 1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0]])
    np.testing.assert_allclose(M.precision_at_k(Y, S, 3, average=False), [2 / 3, 0, 1 / 3])


def test_at_k_integer_and_bool_scores():
    Y = np.array([[0, 1, 1], [1, 0, 0]])
    for S in (Y.astype(bool), Y.astype(np.uint8), Y.astype(np.int8)):
        np.testing.assert_allclose(M.precision_at_k(Y, S, 2, average=False), [1.0, 0.5])
        np.testing.assert_allclose(M.ndcg_at_k(Y, S, 1, average=False), [1.0, 1.0])


def test_inverse_propensity():
    rng = np.random.default_rng(0)
    Y = (rng.random((50, 7)) < 0.3).astype(int); Y[:, 3] = 0
    np.testing.assert_allclose(M.inverse_propensity(Y, "jain"), nxm.Jain_et_al_inverse_propensity(Y), atol=EPS)
    np.testing.assert_allclose(M.inverse_propensity(sp.csr_matrix(Y), "jain", A=0.6, B=2.6),
                               nxm.Jain_et_al_inverse_propensity(Y, A=0.6, B=2.6), atol=EPS)
    q = M.inverse_propensity(Y, "log")
    n = Y.sum(0)
    np.testing.assert_allclose(q[n > 0], 1 / np.log(1 + n[n > 0]), atol=EPS)
    assert q[3] == 1 / np.log(2)  # an unseen label counts as seen once


# ---------------------------------------------------------------- MCC
@settings(**SETTINGS)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(arrays(np.int8, n, elements=st.integers(0, 1)),
                                                      arrays(np.int8, n, elements=st.integers(0, 1)))))
def test_mcc_vs_sklearn(yy):
    y, yhat = yy
    assert abs(M.mcc(y, yhat) - skm.matthews_corrcoef(y, yhat)) < EPS
    assert abs(M.mcc(y.astype(bool), yhat[:, None]) - skm.matthews_corrcoef(y, yhat)) < EPS


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("f", [M.hamming_loss, M.subset_zero_one_loss, M.example_f1, M.f1_loss,
                               M.micro_f1, M.macro_f1, M.composite_loss])
def test_binary_measures_reject_bad_input(f):
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(2, 4\)"): f(Y, np.ones((2, 4)))
    with pytest.raises(ValueError, match="binary"): f(Y, Y * 0.5)
    with pytest.raises(ValueError, match="binary"): f(Y * 2, Y)
    with pytest.raises(ValueError, match="binary"): f(sp.csr_matrix(Y * 3), Y)


@pytest.mark.parametrize("f", [M.ranking_loss, M.one_error, M.coverage, M.average_precision,
                               partial(M.precision_at_k, k=2), partial(M.ndcg_at_k, k=2),
                               partial(M.psdcg_at_k, k=2, inv_ps=np.ones(3))])
def test_score_measures_reject_bad_input(f):
    Y = np.array([[1, 0, 1], [0, 1, 0]])
    S = np.array([[0.1, 0.5, 0.3], [0.2, np.nan, 0.0]])
    with pytest.raises(ValueError, match="NaN"): f(Y, S)
    with pytest.raises(ValueError, match="NaN"): f(Y, sp.csr_matrix(S))
    with pytest.raises(ValueError, match="shape"): f(Y, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="binary"): f(Y - 1, np.zeros((2, 3)))


@pytest.mark.parametrize("k, err", [(0, ValueError), (4, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_k_out_of_range(k, err):
    "k is an integer in [1, C] (checks.check_int: a bool or a float is a TypeError, an integer out of range a ValueError)."
    Y, S = np.eye(3, dtype=int), np.eye(3)
    msg = re.escape(f"k={k!r}: k must be an integer in [1, 3]") + ".*C=3 labels"
    for f in (M.precision_at_k, M.ndcg_at_k):
        with pytest.raises(err, match=msg): f(Y, S, k)
    with pytest.raises(err, match=msg): M.psdcg_at_k(Y, S, k, np.ones(3))
    with pytest.raises(err, match=msg): M.top_k(S, k)


def test_other_bad_input():
    Y = np.eye(3, dtype=int)
    with pytest.raises(ValueError, match="inv_ps"): M.psdcg_at_k(Y, np.eye(3), 2, np.ones(2))
    with pytest.raises(ValueError, match="C=3"): M.precision_at_k(Y, [[0, 5], [1], [2]], 2)
    with pytest.raises(ValueError, match="rows"): M.precision_at_k(Y, [[0], [1]], 1)
    with pytest.raises(ValueError, match="weights"): M.hamming_loss(Y, Y, weights=[-1, 1, 1])
    with pytest.raises(ValueError, match="zero"): M.hamming_loss(Y, Y, weights=[0, 0, 0])
    with pytest.raises(ValueError, match="method"): M.inverse_propensity(Y, "pow")
    with pytest.raises(ValueError, match="shape"): M.mcc([0, 1, 1], [0, 1])
    with pytest.raises(ValueError, match="binary"): M.mcc([0, 1, 2], [0, 1, 1])
    with pytest.raises(TypeError, match="numeric"): M.ranking_loss(Y, np.array([["a"] * 3] * 3))


def test_accepts_sparse_arrays_and_int8():
    "scipy's csr_array and int8 CSR (the data layer's Y) work like dense input."
    rng = np.random.default_rng(3)
    Y = (rng.random((30, 6)) < 0.4).astype(np.int8)
    P = (rng.random((30, 6)) < 0.4).astype(np.int8)
    S = rng.random((30, 6))
    for conv in (sp.csr_array, sp.csr_matrix, lambda A: sp.csr_matrix(A).astype(np.int8)):
        Ys, Ps = conv(Y), conv(P)
        for f in (M.hamming_loss, M.subset_zero_one_loss, M.example_f1, M.f1_loss, M.micro_f1, M.macro_f1,
                  M.composite_loss, M.ranking_loss):
            assert abs(f(Ys, Ps) - f(Y, P)) < EPS, f
        for f in (M.ranking_loss, M.one_error, M.coverage, M.average_precision,
                  partial(M.precision_at_k, k=3), partial(M.ndcg_at_k, k=3),
                  partial(M.psdcg_at_k, k=3, inv_ps=M.inverse_propensity(Y))):
            assert abs(f(Ys, S) - f(Y, S)) < EPS, f
        np.testing.assert_allclose(M.inverse_propensity(Ys, "jain"), M.inverse_propensity(Y, "jain"))


def test_boolean_predictions():
    rng = np.random.default_rng(4)
    Y = sp.csr_matrix((rng.random((25, 5)) < 0.4).astype(np.int8))
    S = rng.random((25, 5))
    for f in (M.hamming_loss, M.f1_loss, M.macro_f1, M.micro_f1, M.ranking_loss, M.subset_zero_one_loss):
        assert abs(f(Y, S >= 0.5) - f(Y.toarray(), (S >= 0.5).astype(int))) < EPS
