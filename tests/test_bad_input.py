"""Bad input across the public estimators and the foundation's functions.

Two parts:
- the cases of issue 26, one test each (the issue's setup: 60 rows of 6 standard-normal features, labels
  `X[:, :3] > 0.2`);
- a generated suite (hypothesis where it helps): shapes, dtypes, non-finite values, containers, parameter types and
  ranges, and mismatched widths at predict, over every public estimator. Each case either works (an output of the
  right shape) or raises ValueError / TypeError / NotFittedError whose message names the argument. napkinXC and
  OR-Tools run in a subprocess with a timeout, so a crash or a hang is a failed test.
"""
import copy, json, os, pickle, re, subprocess, sys, warnings
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score

from mlxplain.learners import BinaryRelevance, LabelSpecificBR
from mlxplain.prakel import PRAkEL, RAkEL, CSRAkEL, EPCC, MLkNN, FaithfulMLkNN, weighted_hamming
from mlxplain.fals import FALS, LIFT, RFSelector, LassoSelector
from mlxplain.data import make_label_specific

X = np.random.default_rng(0).standard_normal((60, 6))
Y = (X[:, :3] > 0.2).astype(int)
ROOT = Path(__file__).parents[1]


def run_isolated(code, timeout=120):
    "Run `code` in a fresh interpreter (this checkout first on the path); its stdout, or a failed test on a crash."
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    assert p.returncode == 0, f"crashed (exit {p.returncode}): {p.stderr[-2000:]}"
    return p.stdout


# --- EPCC ------------------------------------------------------------------------------------------------------

def test_epcc_checks_the_feature_count_at_predict():
    m = EPCC(random_state=0).fit(X, Y)
    for f in (m.predict, m.sample, m.predict_marginals):
        with pytest.raises(ValueError, match="X has 5 features, but EPCC is expecting 6 features as input"): f(X[:, :5])


@pytest.mark.parametrize("params, err, msg", [
    (dict(n_chains=0), ValueError, r"n_chains=0: n_chains must be an integer in \[1"),
    (dict(n_chains=2.5), TypeError, "n_chains=2.5"), (dict(n_chains=None), TypeError, "n_chains=None"),
    (dict(n_samples=0), ValueError, "n_samples=0"), (dict(n_samples=-3), ValueError, "n_samples=-3"),
    (dict(n_samples=1.5), TypeError, "n_samples=1.5"), (dict(n_candidates=0), ValueError, "n_candidates=0")])
def test_epcc_validates_its_parameters(params, err, msg):
    with pytest.raises(err, match=msg): EPCC(**params).fit(X, Y)


def test_epcc_sample_validates_n_samples():
    m = EPCC(random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="n_samples=0"): m.sample(X, n_samples=0)


@pytest.mark.parametrize("loss", ["hamming", "f1", "subset"])
def test_epcc_row_prediction_does_not_depend_on_the_batch(loss):
    m = EPCC(random_state=0, loss=loss).fit(X, Y)
    Xb = np.random.default_rng(1).standard_normal((200, 6))
    P = m.predict(Xb)
    alone = np.vstack([m.predict(Xb[i:i + 1]) for i in range(len(Xb))])
    np.testing.assert_array_equal(alone, P)
    np.testing.assert_array_equal(m.predict(Xb[::-1]), P[::-1])                # the order of the batch neither
    np.testing.assert_array_equal(m.predict(sp.csr_matrix(Xb)), P)             # nor its container
    np.testing.assert_array_equal(EPCC(random_state=0, loss=loss).fit(X, Y).predict(Xb), P)   # same seed, same output


def test_epcc_samples_still_follow_the_chain():
    "The per-row streams are uniform: the first label of a one-chain model has its link's probability."
    m = EPCC(n_chains=1, n_samples=4000, random_state=0).fit(X, Y)
    cc = m.chains_[0]
    first = cc.order_[0]
    p = cc.estimators_[0].predict_proba(X[:30])[:, 1]
    assert np.abs(m.predict_marginals(X[:30])[:, first] - p).max() < 0.05


# --- ExtendedPLT -----------------------------------------------------------------------------------------------

_PLT = """
import numpy as np, scipy.sparse as sp, pickle, copy, joblib, io, json, warnings
from sklearn.model_selection import cross_val_score, GridSearchCV
from mlxplain.extended_plt import ExtendedPLT
X = np.random.default_rng(0).standard_normal((60, 6)); Y = (X[:, :3] > 0.2).astype(int)
"""


def test_extended_plt_predict_is_an_indicator_matrix_scorers_accept():
    out = run_isolated(_PLT + """
m = ExtendedPLT(seed=0).fit(X, Y)
P = m.predict(X, top_k=2)
ranked = m.predict_ranked(X, top_k=2)
ok_rank = all(sorted(r) == sorted(np.flatnonzero(p).tolist()) for r, p in zip(ranked, P))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    cv = cross_val_score(ExtendedPLT(seed=0), X, Y, cv=3, scoring="f1_samples")
    gs = GridSearchCV(ExtendedPLT(seed=0), {"liblinear_c": [1.0, 10.0]}, cv=3, scoring="f1_samples").fit(X, Y)
print(json.dumps(dict(type=type(P).__name__, dtype=str(P.dtype), shape=P.shape, rowsums=sorted(set(P.sum(1).tolist())),
                      ok_rank=ok_rank, cv=cv.tolist(), gs=gs.cv_results_["mean_test_score"].tolist(),
                      csr=type(m.predict(X, as_csr=True)).__name__, score=m.score(X, Y))))
""")
    r = json.loads(out.splitlines()[-1])
    assert r["type"] == "ndarray" and r["dtype"] == "int8" and r["shape"] == [60, 3] and r["rowsums"] == [2]
    assert r["ok_rank"] and r["csr"] == "csr_matrix"
    assert all(0 < v <= 1 for v in r["cv"] + r["gs"]), r          # no NaN scores any more
    assert 0 < r["score"] <= 1


def test_extended_plt_large_label_sets_predict_sparse():
    out = run_isolated(_PLT + """
from mlxplain.extended_plt import DENSE_MAX_LABELS
L = DENSE_MAX_LABELS + 1
Yb = sp.random(60, L, density=0.01, format="csr", random_state=0); Yb.data[:] = 1
Yb = sp.csr_matrix(Yb + sp.csr_matrix((np.ones(60), (np.arange(60), np.arange(60) % L)), shape=(60, L)))
Yb.data[:] = 1
P = ExtendedPLT(seed=0).fit(X, Yb).predict(X, top_k=3)
print(type(P).__name__, P.shape[1], P.sum())
""", timeout=300)
    kind, L, total = out.split()[-3:]
    assert kind == "csr_matrix" and int(total) == 180


@pytest.mark.parametrize("ensemble", [1, 2, 3])
def test_extended_plt_round_trips_for_every_ensemble_size(ensemble):
    out = run_isolated(_PLT + f"""
m = ExtendedPLT(seed=0, ensemble={ensemble}).fit(X, Y)
ref = m.predict_proba(X, 3)
buf = io.BytesIO(); joblib.dump(m, buf); buf.seek(0)
copies = [pickle.loads(pickle.dumps(m)), copy.deepcopy(m), joblib.load(buf)]
print(all(np.array_equal(c.predict_proba(X, 3), ref) and (c.predict(X) == m.predict(X)).all() for c in copies),
      all(c.model_dir_ != m.model_dir_ for c in copies))
""")
    assert out.split()[-2:] == ["True", "True"]


def test_extended_plt_unfitted_raises_not_fitted_error():
    out = run_isolated(_PLT + """
from sklearn.exceptions import NotFittedError
res = []
for f in ("predict", "predict_ranked", "predict_proba", "score"):
    try:
        getattr(ExtendedPLT(), f)(*((X, Y) if f == "score" else (X,)))
        res.append("no error")
    except NotFittedError as e: res.append("NotFittedError" if "not fitted" in str(e) else str(e))
print(json.dumps(res))
""")
    assert json.loads(out.splitlines()[-1]) == ["NotFittedError"] * 4


def test_extended_plt_tags_say_sparse():
    from sklearn.utils import get_tags
    from mlxplain.extended_plt import ExtendedPLT
    t = get_tags(ExtendedPLT())
    assert t.input_tags.sparse and t.target_tags.required and t.classifier_tags.multi_label


# --- BinaryRelevance and LabelSpecificBR -----------------------------------------------------------------------

_BR = [BinaryRelevance, LabelSpecificBR]


@pytest.mark.parametrize("cls", _BR)
def test_br_validates_X_at_predict_as_at_fit(cls):
    m = cls().fit(X, Y)
    Xn = X.copy(); Xn[3, 2] = np.nan
    cases = {"NaN": (Xn, ValueError, "X contains NaN"), "inf": (np.where(X > 2, np.inf, X), ValueError, "X contains NaN or infinite"),
             "object text": (np.array([["a"] * 6]), ValueError, "X has dtype"),
             "empty": (X[:0], ValueError, "X has 0 samples"), "1-D": (X[0], ValueError, "X must be 2-D"),
             "3-D": (X[None], ValueError, "X must be 2-D"), "narrow": (X[:, :5], ValueError, f"X has 5 features, but {cls.__name__} is expecting 6 features"),
             "None": (None, ValueError, "X is None"), "ragged": ([[1.0] * 6, [1.0]], ValueError, "X is ragged")}
    for what, (A, err, msg) in cases.items():
        with pytest.raises(err, match=msg): m.predict(A)
        with pytest.raises(err, match=msg): m.predict_proba(A)


@pytest.mark.parametrize("cls", _BR)
def test_br_accepts_the_usual_containers(cls):
    ref = cls().fit(X, Y).predict_proba(X)
    df = pd.DataFrame(X, index=np.arange(100, 160), columns=[f"f{i}" for i in range(6)])
    np.testing.assert_array_equal(cls().fit(df, pd.DataFrame(Y)).predict_proba(df), ref)
    np.testing.assert_array_equal(cls().fit(X.tolist(), Y.tolist()).predict_proba(X.tolist()), ref)
    np.testing.assert_array_equal(cls().fit(X.astype(object), Y).predict_proba(X.astype(object)), ref)
    np.testing.assert_array_equal(cls().fit(sp.csr_matrix(X), sp.csr_matrix(Y)).predict_proba(sp.csr_matrix(X)), ref)


@pytest.mark.parametrize("cls", _BR)
@pytest.mark.parametrize("Ybad, msg", [
    (None, "Y is None"), (Y.astype(str), "Y has dtype"), ([[0], [1, 2], [0]] + [[1]] * 57, "list of label lists"),
    (Y * 2, "binary"), (Y[:10], "X has 60 rows but Y has 10"), (np.zeros((60, 0)), "Y has 0 label columns; at least 1 required")])
def test_br_validates_Y_at_fit(cls, Ybad, msg):
    with pytest.raises(ValueError, match=msg): cls().fit(X, Ybad)


def test_br_empty_or_bad_X_at_fit():
    for A, msg in ((X[:0], "X has 0 samples"), (X[0], "X must be 2-D"), (None, "X is None")):
        with pytest.raises(ValueError, match=msg): BinaryRelevance().fit(A, Y[:len(A)] if A is not None and np.ndim(A) == 2 else Y)


def test_label_specific_br_refuses_float_feature_sets():
    with pytest.raises(TypeError, match=r"feature_sets\[0\] has dtype float64"):
        LabelSpecificBR(feature_sets=[[0.5, 1.0], [1], [2]]).fit(X, Y)
    with pytest.raises(TypeError, match=r"feature_sets\[1\]"):
        LabelSpecificBR(feature_sets=[[0], [[1]], [2]]).fit(X, Y)
    m = LabelSpecificBR(feature_sets=[np.array([0], np.int32), [1, 4], np.array([2], np.uint8)]).fit(X, Y)
    assert [f.tolist() for f in m.feature_sets_] == [[0], [1, 4], [2]]


# --- RAkEL, CSRAkEL, PRAkEL, MLkNN, FaithfulMLkNN -------------------------------------------------------------

_NARROW = [RAkEL(random_state=0), CSRAkEL(random_state=0), PRAkEL(random_state=0), MLkNN(k=3), FaithfulMLkNN(k=3),
           EPCC(random_state=0), BinaryRelevance(), LIFT()]


@pytest.mark.parametrize("est", _NARROW, ids=lambda e: type(e).__name__)
def test_feature_count_checked_at_predict_and_n_features_in(est):
    m = clone(est).fit(X, Y)
    assert m.n_features_in_ == 6
    with pytest.raises(ValueError, match="X has 5 features"): m.predict(X[:, :5])
    with pytest.raises(ValueError, match="X has 7 features"): m.predict(np.hstack([X, X[:, :1]]))


@pytest.mark.parametrize("params, err, msg", [(dict(s=-1), ValueError, "s=-1"), (dict(s=0), ValueError, "s=0"),
                                              (dict(s=float("nan")), ValueError, "s=nan"), (dict(s="1"), TypeError, "s='1'"),
                                              (dict(k=0), ValueError, "k=0"), (dict(k=60), ValueError, "k=60"),
                                              (dict(k=2.0), TypeError, "k=2.0")])
def test_mlknn_validates_k_and_s(params, err, msg):
    with pytest.raises(err, match=msg): MLkNN(**params).fit(X, Y)


@pytest.mark.parametrize("weights, msg", [
    ([1, 1], r"weights has shape \(2,\) but shape \(K,\)=\(3,\) is needed"), ([1, 1, np.inf], "weights has 1 NaN or infinite"),
    ([1, -1, 1], "weights has 1 negative"), (["a", "b", "c"], "weights must be an array of numbers")])
def test_csrakel_weights_errors_name_the_cause(weights, msg):
    with pytest.raises((ValueError, TypeError), match=msg): CSRAkEL(weights=weights).fit(X, Y)


def test_prakel_and_csrakel_cost_errors_name_the_cause():
    neg, inf = -np.ones((60, 3)), np.ones((60, 3))
    inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="costs has 180 negative entries"): PRAkEL().fit(X, Y, costs=neg)
    with pytest.raises(ValueError, match="costs has 1 NaN or infinite"): PRAkEL().fit(X, Y, costs=inf)
    with pytest.raises(ValueError, match=r"costs has shape \(3, 3\) but shape \(N, K\)=\(60, 3\)"): PRAkEL().fit(X, Y, costs=np.ones((3, 3)))
    with pytest.raises(ValueError, match="costs has 1 NaN or infinite"): CSRAkEL().fit(X, Y, costs=inf)
    with pytest.raises(ValueError, match="costs has 180 negative"): CSRAkEL().fit(X, Y, costs=neg)


@pytest.mark.parametrize("w, err, msg", [([1, np.inf, 1], ValueError, "w has 1 NaN or infinite"),
                                         ([1, -1, 1], ValueError, "w has negative"), ([], ValueError, "w has shape"),
                                         ([[1, 1]], ValueError, "w has shape"), (["x"], TypeError, "w=")])
def test_weighted_hamming_blames_the_weights(w, err, msg):
    with pytest.raises(err, match=msg): weighted_hamming(w)


def test_prakel_oos_needs_as_many_rows_as_folds():
    with pytest.raises(ValueError, match=r"cv=3: cv must be an integer in \[2, 2\]"):
        PRAkEL(reference="oos", cv=3).fit(X[:2], Y[:2])
    with pytest.raises(ValueError, match="cv=1"): PRAkEL(reference="oos", cv=1).fit(X, Y)


def test_faithful_mlknn_refuses_overflowing_distances():
    for est in (FaithfulMLkNN(k=3), MLkNN(k=3)):
        with pytest.raises(ValueError, match="squared distances between rows overflow"): est.fit(X * 1e300, Y)
        m = clone(est).fit(X, Y)
        with pytest.raises(ValueError, match="squared distances between rows overflow"): m.predict(X * 1e300)


# --- LIFT, FALS, data ------------------------------------------------------------------------------------------

def test_lift_is_a_transformer():
    m = LIFT(random_state=0).fit(X, Y)
    T = m.transform(X)
    parts = [m.transform(X, c) for c in range(3)]
    np.testing.assert_array_equal(T, np.hstack(parts))
    assert T.shape == (60, sum(len(c) for c in m.centers_))
    with pytest.raises(ValueError, match="X has 5 features"): m.transform(X[:, :5])
    with pytest.raises(ValueError, match=r"label=3: label must be an integer in \[0, 2\]"): m.transform(X, 3)
    with pytest.raises(NotFittedError): LIFT().transform(X)
    with pytest.raises(ValueError, match="ratio=0"): LIFT(ratio=0).fit(X, Y)
    with pytest.raises(TypeError, match="ratio='a'"): LIFT(ratio="a").fit(X, Y)


def test_fals_score_samples_renamed_with_a_warning():
    new = FALS(k=2, epochs=1, score_subsample=0.5, random_state=0).fit(X, Y)
    with pytest.warns(FutureWarning, match="score_samples is renamed score_subsample"):
        old = FALS(k=2, epochs=1, score_samples=0.5, random_state=0)
    assert old.score_subsample == pytest.approx(0.5, abs=1e-12) and "score_samples" not in old.get_params()
    np.testing.assert_array_equal(old.fit(X, Y).scores_, new.scores_)
    with pytest.warns(FutureWarning): f = FALS().set_params(score_samples=10)
    assert f.score_subsample == 10
    assert not hasattr(FALS(), "score_samples")      # scikit-learn's method name is free again
    with pytest.raises(TypeError, match="unexpected keyword argument 'epoch'"): FALS(epoch=3)
    with pytest.raises(ValueError, match="score_subsample=0"): FALS(score_subsample=0).fit(X, Y)


@pytest.mark.parametrize("kw, err, msg", [
    (dict(noise=float("nan")), ValueError, "noise=nan"), (dict(noise=-0.1), ValueError, "noise=-0.1"),
    (dict(noise=float("inf")), ValueError, "noise=inf"), (dict(noise="0.1"), TypeError, "noise='0.1'"),
    (dict(n_samples=10.5), TypeError, "n_samples=10.5"), (dict(n_labels="3"), TypeError, "n_labels='3'"),
    (dict(label_correlation=float("nan")), ValueError, "label_correlation=nan")])
def test_make_label_specific_validates(kw, err, msg):
    with pytest.raises(err, match=msg): make_label_specific(**{"n_samples": 50, "n_features": 10, **kw})


# --- tags and score ---------------------------------------------------------------------------------------------

_CLASSIFIERS = [BinaryRelevance(), LabelSpecificBR(), RAkEL(random_state=0), CSRAkEL(random_state=0),
                PRAkEL(random_state=0), EPCC(random_state=0), MLkNN(k=3), FaithfulMLkNN(k=3), LIFT()]


def _expected_score(m, P):
    "What `score` reports: the negated trained loss for the cost-sensitive models, else subset accuracy."
    from mlxplain.metrics import f1_loss, hamming_loss, subset_zero_one_loss
    negated = {"PRAkEL": f1_loss, "CSRAkEL": hamming_loss, "EPCC": hamming_loss}   # their default losses
    f = negated.get(type(m).__name__)
    return -f(Y, P) if f else 1 - subset_zero_one_loss(Y, P)


@pytest.mark.parametrize("est", _CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_classifiers_sparse_tag_and_score(est):
    from sklearn.utils import get_tags
    t = get_tags(est)
    assert t.input_tags.sparse and t.target_tags.required and t.classifier_tags.multi_label
    m = clone(est).fit(sp.csr_matrix(X), Y)            # the tag is true: CSR works
    P = m.predict(sp.csr_matrix(X))
    assert m.score(X, Y) == pytest.approx(_expected_score(m, P), abs=1e-12)
    w = np.random.default_rng(0).random(len(X))
    assert m.score(X, Y, sample_weight=np.ones(len(X))) == pytest.approx(m.score(X, Y), abs=1e-12)
    m.score(X, Y, sample_weight=w)
    for bad, msg in ((w[:5], "sample_weight has shape"), (-w, "non-negative"), (["a"] * 60, "sample_weight must be")):
        with pytest.raises((ValueError, TypeError), match=msg): m.score(X, Y, sample_weight=bad)
    cv = cross_val_score(clone(est), X, Y, cv=3)        # no scoring= needed
    assert np.isfinite(cv).all()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Scoring failed")   # a failed scorer warns and gives NaN
        f1 = cross_val_score(clone(est), X, Y, cv=3, scoring="f1_samples")
    assert ((f1 > 0) & (f1 <= 1)).all()


def test_selectors_sparse_tag():
    from sklearn.utils import get_tags
    for est in (FALS(), RFSelector(), LassoSelector()):
        assert get_tags(est).input_tags.sparse


# --- FALS on every kind of input: it works (output of the right shape) or the error names the argument ------------
# Issue 42 found 13 kinds that gave obscure errors: predict_proba of a CSR-fitted FALS on ten kinds of dense X (a
# TypeError about NoneType), a label index out of range or not an integer (IndexError), and float16 Y (scipy's error).

def _check_Y_takes_float16():
    from mlxplain.checks import check_Y
    try: return check_Y(np.zeros((2, 1), np.float16)).shape == (2, 1)
    except ValueError: return False


_XF = np.random.default_rng(0).standard_normal((40, 5))
_YF = (_XF[:, :3] > 0).astype(int)
# name -> (X, works): what must work, and what must be refused with an error naming X
_FALS_X = {
    "float64": (_XF, True), "float32": (_XF.astype(np.float32), True), "float16": (_XF.astype(np.float16), True),
    "int": ((_XF * 3).astype(int), True), "bool": (_XF > 0, True), "object numbers": (_XF.astype(object), True),
    "list": (_XF.tolist(), True), "DataFrame": (pd.DataFrame(_XF, columns=list("abcde")), True),
    "nullable DataFrame": (pd.DataFrame(_XF, columns=list("abcde")).astype("Float64"), True),
    "CSR": (sp.csr_matrix(_XF), True), "CSC": (sp.csc_matrix(_XF), True), "COO": (sp.coo_matrix(_XF), True),
    "csr_array": (sp.csr_array(_XF), True), "int8 CSR": (sp.csr_matrix((_XF > 0).astype(np.int8)), True),
    "one row": (_XF[:1], True),
    "None": (None, False), "scalar": (3.0, False), "1-D": (_XF[:, 0], False), "3-D": (_XF[None], False),
    "str": (_XF.astype(str), False), "object str": (np.full((40, 5), "a", dtype=object), False),
    "dict cells": (np.full((40, 5), {}, dtype=object), False), "complex": (_XF + 1j, False),
    "datetime": (np.zeros((40, 5), "datetime64[s]"), False), "NaN": (np.where(_XF > 1.5, np.nan, _XF), False),
    "inf": (np.where(_XF > 1.5, np.inf, _XF), False), "NaN CSR": (sp.csr_matrix(np.where(_XF > 1.5, np.nan, _XF)), False),
    "float32 overflow": (_XF * 1e300, False), "empty": (_XF[:0], False), "no features": (_XF[:, :0], False),
    "ragged": ([[1.0] * 5, [1.0]] * 20, False),
    "DataFrame with text": (pd.DataFrame(_XF, columns=list("abcde")).assign(e="x"), False),
    "categorical DataFrame": (pd.DataFrame(_XF).assign(c=pd.Categorical(["u", "v"] * 20)), False),
}
_FALS_Y = {
    "int": (_YF, True), "float": (_YF.astype(float), True), "bool": (_YF.astype(bool), True), "list": (_YF.tolist(), True),
    "1-D": (_YF[:, 0], True), "all zero": (np.zeros_like(_YF), True), "DataFrame": (pd.DataFrame(_YF), True),
    "CSR": (sp.csr_matrix(_YF), True), "CSC": (sp.csc_matrix(_YF), True), "COO": (sp.coo_matrix(_YF), True),
    "LIL": (sp.lil_matrix(_YF), True), "DOK": (sp.dok_matrix(_YF), True), "csr_array": (sp.csr_array(_YF), True),
    "None": (None, False), "scalar": (1, False), "3-D": (_YF[None], False), "str": (_YF.astype(str), False),
    "object": (np.full((40, 3), "a", dtype=object), False), "NaN": (np.where(_YF == 1, np.nan, 0), False),
    "inf": (np.where(_YF == 1, np.inf, 0), False), "twos": (_YF * 2, False), "negative": (-_YF, False),
    "halves": (_YF * 0.5, False), "complex": (_YF + 0j, False), "sparse twos": (sp.csr_matrix(_YF * 2), False),
    "rows": (_YF[:10], False), "no rows": (_YF[:0], False), "no columns": (_YF[:, :0], False),
    "label lists": ([list(np.flatnonzero(r)) for r in _YF], False),
}
_F16 = pytest.mark.xfail(not _check_Y_takes_float16(), strict=True,
                         reason="mlxplain.checks.check_Y refuses float16 Y with scipy's error (fixed in 02a_checks)")


def _fals_outcome(call, names, works):
    "Run call(); it must work if `works`, else raise a ValueError/TypeError naming one of `names`."
    try:
        out = call()
    except (ValueError, TypeError) as e:
        assert not works, f"refused a valid input: {type(e).__name__}: {e}"
        assert any(re.search(rf"(?<![A-Za-z_]){n}(?![A-Za-z_])", str(e)) for n in names), f"names no argument: {e}"
        return None
    assert works, "accepted an invalid input silently"
    return out


@pytest.mark.parametrize("kind", list(_FALS_X))
def test_fals_bad_X_at_fit(kind):
    A, works = _FALS_X[kind]
    Yk = _YF[:np.shape(A)[0]] if hasattr(A, "shape") and np.ndim(A) == 2 else _YF
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _fals_outcome(lambda: FALS(k=1, epochs=1, random_state=0).fit(A, Yk), ["X"], works)


@pytest.mark.parametrize("kind", list(_FALS_Y) + [pytest.param("float16", marks=_F16)])
def test_fals_bad_Y_at_fit(kind):
    B, works = _FALS_Y[kind] if kind in _FALS_Y else (_YF.astype(np.float16), True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _fals_outcome(lambda: FALS(k=1, epochs=1, random_state=0).fit(_XF, B), ["X", "Y"], works)


@pytest.mark.parametrize("fitted_on", ["dense", "CSR"])
@pytest.mark.parametrize("method", ["predict_proba", "transform"])
@pytest.mark.parametrize("kind", list(_FALS_X))
def test_fals_bad_X_at_predict(kind, method, fitted_on):
    "A FALS fitted on dense or CSR X: every kind of X at predict_proba and transform (the width seen in fit: 5)."
    A, works = _FALS_X[kind]
    works |= kind == "float32 overflow" and method == "transform"   # transform only selects columns, in X's own dtype
    f = FALS(k=1, epochs=1, random_state=0).fit(_XF if fitted_on == "dense" else sp.csr_matrix(_XF), _YF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # an array after a DataFrame fit: scikit-learn's warning
        out = _fals_outcome(lambda: getattr(f, method)(A), ["X"], works)
    if out is not None:
        assert out.shape == ((len(_XF) if np.shape(A)[0] == 40 else 1), 3 if method == "predict_proba" else f.get_support().sum())


@pytest.mark.parametrize("label, err", [(3, ValueError), (-1, ValueError), (1.5, TypeError), ("a", TypeError),
                                        (True, TypeError), ([0], TypeError)])
def test_fals_label_index_is_validated(label, err):
    f = FALS(k=1, epochs=1, random_state=0).fit(_XF, _YF)
    for call in (lambda: f.get_support(label=label), lambda: f.transform(_XF, label=label),
                 lambda: f.get_feature_names_out(label=label)):
        with pytest.raises(err, match=r"label=.*: label must be an integer in \[0, 2\]"): call()
    assert f.get_support(label=np.int64(2)).sum() == 1


# --- generated bad input over every public estimator ------------------------------------------------------------
# Each estimator (a small, fast configuration) is fitted and used on generated X (and Y): any shape, dtype, container,
# NaN/inf/huge values. A call either works, with an output of the right shape, or raises ValueError / TypeError /
# NotFittedError whose message names the argument (X, Y) or one of the estimator's parameters; a non-finite X that is
# accepted (silent output), or any other exception (IndexError, AttributeError, ...), fails.
import re
from hypothesis.extra import numpy as hnp


def _fuzz_estimators():
    from sklearn.linear_model import LogisticRegression
    return {
        "BinaryRelevance": lambda: BinaryRelevance(LogisticRegression()),
        "LabelSpecificBR": lambda: LabelSpecificBR(feature_sets=[[0], [1, 2], [2]]),
        "RAkEL": lambda: RAkEL(k=2, random_state=0), "CSRAkEL": lambda: CSRAkEL(k=2, random_state=0),
        "PRAkEL": lambda: PRAkEL(k=2, n_iterations=3, random_state=0),
        "EPCC": lambda: EPCC(n_chains=2, n_samples=10, loss="f1", random_state=0),
        "MLkNN": lambda: MLkNN(k=2), "FaithfulMLkNN": lambda: FaithfulMLkNN(k=2),
        "LIFT": lambda: LIFT(), "FALS": lambda: FALS(k=1, epochs=1, random_state=0),
        "RFSelector": lambda: RFSelector(k=1, n_estimators=3), "LassoSelector": lambda: LassoSelector(k=1),
    }


KINDS = ["float64", "float32", "int64", "bool", "object", "complex", "str", "list", "DataFrame", "CSR", "COO",
         "1-D", "3-D", "None"]


@st.composite
def feature_matrices(draw, n=None, d=None):
    "(X, kind, finite, n): a generated feature matrix of some container and dtype, whether its values are finite, its rows."
    n = draw(st.integers(0, 6)) if n is None else n
    d = draw(st.integers(0, 5)) if d is None else d
    kind = draw(st.sampled_from(KINDS))
    values = st.floats(allow_nan=True, allow_infinity=True) | st.floats(-10, 10) | st.sampled_from([0.0, 1e300, -1e300])
    A = draw(hnp.arrays(np.float64, (n, d), elements=values))
    finite = bool(np.isfinite(A).all())
    conv = {"float64": lambda: A, "float32": lambda: A.astype(np.float32), "int64": lambda: np.nan_to_num(A).clip(-9, 9).astype(np.int64),
            "bool": lambda: A > 0, "object": lambda: A.astype(object), "complex": lambda: A + 1j, "str": lambda: A.astype(str),
            "list": lambda: A.tolist(), "DataFrame": lambda: pd.DataFrame(A), "CSR": lambda: sp.csr_matrix(A),
            "COO": lambda: sp.coo_matrix(A), "1-D": lambda: A.ravel(), "3-D": lambda: A[None], "None": lambda: None}
    X = conv[kind]()
    if kind in ("int64", "bool"): finite = True
    if kind == "float32": finite = bool(np.isfinite(X).all())
    return X, kind, finite, n


def _names(est):
    return ["X", "Y", "y"] + list(est.get_params())


def _outcome(call, est):
    "('ok', value) or ('error', exception) for a ValueError/TypeError naming an argument; anything else is raised."
    try:
        return "ok", call()
    except (ValueError, TypeError) as e:   # NotFittedError is a ValueError
        msg = str(e)
        assert any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", msg) for n in _names(est)), \
            f"{type(e).__name__} names no argument: {msg}"
        return "error", e


def _output_rows(out):
    return out.shape[0] if hasattr(out, "shape") else len(out)


_FIT_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@pytest.mark.parametrize("name", list(_fuzz_estimators()))
@_FIT_SETTINGS
@given(data=st.data())
def test_generated_X_at_fit(name, data):
    est = _fuzz_estimators()[name]()
    Xg, kind, finite, n = data.draw(feature_matrices(d=data.draw(st.integers(0, 5))))
    Yg = np.random.default_rng(n).integers(0, 2, size=(n if kind not in ("1-D", "3-D") else 6, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out = _outcome(lambda: est.fit(Xg, Yg), est)
    if status == "ok":
        assert out is est
        assert finite, f"fit accepted a non-finite X ({kind}) silently"
        assert kind not in ("complex", "str", "1-D", "3-D", "None"), f"fit accepted X of kind {kind}"


@pytest.mark.parametrize("name", list(_fuzz_estimators()))
@_FIT_SETTINGS
@given(data=st.data())
def test_generated_X_at_predict(name, data):
    "Fitted on 20 clean rows of 4 features; then any generated X (mismatched widths included) at predict/transform."
    est = _fuzz_estimators()[name]()
    rng = np.random.default_rng(0)
    Xf = rng.standard_normal((20, 4))
    Yf = np.column_stack([Xf[:, 0] > 0, Xf[:, 1] > 0, Xf[:, 2] + Xf[:, 3] > 0]).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(Xf, Yf)
    Xg, kind, finite, n = data.draw(feature_matrices(d=data.draw(st.sampled_from([0, 3, 4, 4, 4, 5]))))
    method = "predict" if hasattr(est, "predict") and not hasattr(est, "get_support") else "transform"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out = _outcome(lambda: getattr(est, method)(Xg), est)
    if status == "ok":
        assert finite, f"{method} accepted a non-finite X ({kind}) silently"
        assert kind not in ("complex", "str", "1-D", "3-D", "None"), f"{method} accepted X of kind {kind}"
        assert np.shape(out)[1:] == ((3,) if method == "predict" else np.shape(out)[1:]) and _output_rows(out) == n
        d = Xg.shape[1] if hasattr(Xg, "shape") else np.shape(Xg)[1]
        assert d == 4, f"{method} accepted {d} features (fitted on 4)"


@st.composite
def label_matrices(draw, n):
    "(Y, ok): a generated label matrix for n rows, and whether it is a valid 0/1 indicator of n rows."
    kind = draw(st.sampled_from(["int", "float", "bool", "twos", "nan", "str", "list", "label lists", "CSR", "1-D",
                                 "3-D", "None", "rows", "no columns", "DataFrame"]))
    c = draw(st.integers(1, 3))
    B = np.random.default_rng(c).integers(0, 2, size=(n, c))
    B[0] = 1; B[1] = 0        # both values in every column
    Y = {"int": lambda: B, "float": lambda: B.astype(float), "bool": lambda: B.astype(bool), "twos": lambda: B * 2,
         "nan": lambda: np.where(B == 1, np.nan, 0.0), "str": lambda: B.astype(str), "list": lambda: B.tolist(),
         "label lists": lambda: [list(np.flatnonzero(r)) for r in B], "CSR": lambda: sp.csr_matrix(B),
         "1-D": lambda: B[:, 0], "3-D": lambda: B[None], "None": lambda: None, "rows": lambda: B[:-1],
         "no columns": lambda: B[:, :0], "DataFrame": lambda: pd.DataFrame(B)}[kind]()
    return Y, kind


@pytest.mark.parametrize("name", list(_fuzz_estimators()))
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_generated_Y_at_fit(name, data):
    est = _fuzz_estimators()[name]()
    Xf = np.random.default_rng(1).standard_normal((12, 4))
    Yg, kind = data.draw(label_matrices(12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out = _outcome(lambda: est.fit(Xf, Yg), est)
    if status == "ok":
        assert kind not in ("twos", "nan", "str", "3-D", "None", "rows", "no columns"), f"fit accepted Y of kind {kind}"


# --- parameter types and ranges --------------------------------------------------------------------------------
_BAD_VALUES = [-1, 0, 0.5, 2.5, -0.5, float("nan"), float("inf"), "x", None, True, [1]]


@pytest.mark.parametrize("name", list(_fuzz_estimators()))
def test_bad_parameter_values(name):
    "Every parameter set to every kind of bad value: fit works or raises an error naming the parameter."
    est = _fuzz_estimators()[name]()
    Xf = np.random.default_rng(1).standard_normal((30, 4))
    Yf = (Xf[:, :3] > 0).astype(int)
    for p, default in est.get_params(deep=False).items():
        for v in _BAD_VALUES:
            e = clone(est).set_params(**{p: v})
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    e.fit(Xf, Yf)
            except (ValueError, TypeError) as err:
                assert p in str(err) or "estimator" in p or "selector" in p, f"{p}={v!r}: {type(err).__name__}: {err}"
            except Exception as err:   # noqa: BLE001 -- the point: nothing but ValueError/TypeError
                raise AssertionError(f"{name}({p}={v!r}) raised {type(err).__name__}: {err}") from err


# --- native code in a subprocess: napkinXC and OR-Tools ---------------------------------------------------------

def test_extended_plt_generated_bad_input_in_a_subprocess():
    "ExtendedPLT on bad X/Y at fit and predict: errors that name X/Y/top_k, never a crash (napkinXC is native)."
    out = run_isolated(_PLT + """
from sklearn.exceptions import NotFittedError
bad_X = {"nan": np.where(X > 1, np.nan, X), "inf": np.where(X > 1, np.inf, X), "huge": X * 1e300, "1-D": X[0],
         "3-D": X[None], "empty": X[:0], "no features": X[:, :0], "str": X.astype(str), "complex": X + 1j, "None": None}
res = {}
m = ExtendedPLT(seed=0).fit(X, Y)
for k, A in bad_X.items():
    for what, f in (("fit", lambda: ExtendedPLT(seed=0).fit(A, Y if A is None or np.ndim(A) != 2 else Y[:len(A)])),
                    ("predict", lambda: m.predict(A)), ("narrow", lambda: m.predict(X[:, :5]))):
        try: f(); res[k + "/" + what] = "ok"
        except (ValueError, TypeError) as e: res[k + "/" + what] = "named" if ("X" in str(e) or "Y" in str(e)) else str(e)
for k, Yb in {"twos": Y * 2, "nan": np.where(Y == 1, np.nan, 0), "none": None, "rows": Y[:5], "str": Y.astype(str)}.items():
    try: ExtendedPLT(seed=0).fit(X, Yb); res["Y " + k] = "ok"
    except (ValueError, TypeError) as e: res["Y " + k] = "named" if "Y" in str(e) else str(e)
for top_k in (0, -1, 4, 2.5, "3", None):
    try: m.predict(X, top_k=top_k); res[f"top_k={top_k!r}"] = "ok"
    except (ValueError, TypeError) as e: res[f"top_k={top_k!r}"] = "named" if "top_k" in str(e) else str(e)
print("RESULT" + json.dumps(res))
""", timeout=300)
    res = json.loads(out.split("RESULT")[-1])
    wrong = {k: v for k, v in res.items() if v != "named" and not (k.startswith("top_k=") and k in ("top_k=None",))}
    assert res["top_k=None"] == "ok"
    assert not wrong, wrong


def test_alternative_selector_bad_parameters_in_a_subprocess():
    "AlternativeFeatureSelector (OR-Tools CP-SAT) with bad parameters: errors naming them, never a crash."
    out = run_isolated("""
import json, numpy as np
from mlxplain.alternatives import AlternativeFeatureSelector
X = np.random.default_rng(0).standard_normal((40, 6)); y = (X[:, 0] > 0).astype(int)
bad = {"k": [0, -1, 7, 2.5, "2", None], "tau": [-0.1, 1.5, float("nan"), "x"], "n_alternatives": [-1, 1.5, None],
       "time_limit": [-1, 0, float("nan")], "precision": [-1, 50, 1.5], "n_jobs": [0, -5, 1.5], "solver": ["glpk", 1],
       "search": ["random"], "aggregation": ["max"], "method": ["exhaustive"], "use_alternative": [-1, 9, 0.5]}
res = {}
for p, vals in bad.items():
    for v in vals:
        try:
            s = AlternativeFeatureSelector(k=2, n_alternatives=1, random_state=0, **{p: v}).fit(X, y)
            if p == "use_alternative": s.transform(X)
            res[f"{p}={v!r}"] = "ok"
        except (ValueError, TypeError) as e:
            res[f"{p}={v!r}"] = "named" if p in str(e) else str(e)
print("RESULT" + json.dumps(res))
""", timeout=300)
    res = json.loads(out.split("RESULT")[-1])
    assert not {k: v for k, v in res.items() if v != "named"}, res


# --- the foundation's functions ----------------------------------------------------------------------------------
from mlxplain import metrics as M

_YM = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]])
_SCORES = np.linspace(0, 1, 18).reshape(6, 3)
_BINARY = ["hamming_loss", "subset_zero_one_loss", "example_f1", "f1_loss", "micro_f1", "macro_f1"]
_RANKING = ["ranking_loss", "one_error", "coverage", "average_precision"]
_AT_K = ["precision_at_k", "ndcg_at_k"]


def _second_arguments():
    "(label, value, ok for binary metrics, ok for scores): bad and good second arguments of a metric."
    nan = _SCORES.copy(); nan[0, 0] = np.nan
    return [("dense", _YM, True, True), ("CSR", sp.csr_matrix(_YM), True, True), ("list", _YM.tolist(), True, True),
            ("scores", _SCORES, False, True), ("NaN", nan, False, False), ("inf", np.where(_SCORES > 0.9, np.inf, _SCORES), False, True),
            ("narrow", _YM[:, :2], False, False), ("short", _YM[:4], False, False), ("1-D", _YM[:, 0], False, False),
            ("3-D", _YM[None], False, False), ("str", _YM.astype(str), False, False), ("None", None, False, False),
            ("twos", _YM * 2, False, True)]


@pytest.mark.parametrize("fname", _BINARY + _RANKING + _AT_K)
@pytest.mark.parametrize("case", _second_arguments(), ids=lambda c: c[0])
def test_metrics_on_bad_second_arguments(fname, case):
    "A metric of a good Y and a bad P/S: a finite value where the input makes sense, else an error naming it."
    label, A, ok_binary, ok_scores = case
    f = getattr(M, fname)
    args = (_YM, A) + ((2,) if fname in _AT_K else ())
    ok = ok_binary if fname in _BINARY else ok_scores
    try:
        v = f(*args)
    except (ValueError, TypeError) as e:
        assert re.search(r"(?<![A-Za-z_])(P|S|Y|k)(?![A-Za-z_])", str(e)), f"{fname}({label}): {e}"
        assert not ok, f"{fname} refused a valid {label} input: {e}"
        return
    assert ok, f"{fname} accepted {label} input silently: {v!r}"
    assert np.isfinite(v)


@pytest.mark.parametrize("fname", _AT_K)
@pytest.mark.parametrize("k", [0, -1, 4, 2.5, "2", None, True])
def test_metrics_at_k_refuse_bad_k(fname, k):
    with pytest.raises((ValueError, TypeError), match="k"): getattr(M, fname)(_YM, _SCORES, k)


@pytest.mark.parametrize("kw, msg", [
    (dict(n_samples=1), "n_samples"), (dict(n_groups=0), "n_groups"), (dict(group_size=0), "group_size"),
    (dict(noise=float("nan")), "noise"), (dict(n_noise=-1), "n_noise"), (dict(n_samples=2.5), "n_samples")])
def test_make_alternative_groups_validates(kw, msg):
    from mlxplain.data import make_alternative_groups
    with pytest.raises((ValueError, TypeError), match=msg): make_alternative_groups(**kw)


def test_fals_n_threads_beyond_a_c_int_is_an_error_naming_it():
    "A fresh fuzz (tools/fuzz_bad_input.py): n_threads=10**12 reached torch and failed with 'Overflow when unpacking long'."
    from mlxplain.fals import FALS
    X, Y = np.random.default_rng(0).random((20, 4)), np.eye(20, 3, dtype=int)
    with pytest.raises(ValueError, match=r"n_threads=1000000000000: .* an int in \[1, 4096\]"):
        FALS(n_threads=10**12, epochs=1).fit(X, Y)
