"Binary relevance: cross-checked against scikit-learn's MultiOutputClassifier, estimator conventions, bad input."
import numpy as np
import scipy.sparse as sp
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.multioutput import MultiOutputClassifier
from sklearn.tree import DecisionTreeClassifier
from mlxplain.learners import BinaryRelevance, LabelSpecificBR

def data(seed, n=120, d=8, c=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    Y = (X[:, :c] + 0.5 * rng.normal(size=(n, c)) > 0).astype(np.int8)
    return X, Y

@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_equals_multioutput_classifier(seed):
    X, Y = data(seed)
    ours = BinaryRelevance(LogisticRegression()).fit(X, Y).predict_proba(X)
    ref = MultiOutputClassifier(LogisticRegression()).fit(X, Y).predict_proba(X)
    np.testing.assert_allclose(ours, np.column_stack([p[:, 1] for p in ref]), atol=1e-12)

def test_sparse_equals_dense_and_parallel_equals_serial():
    X, Y = data(0)
    a = BinaryRelevance(DecisionTreeClassifier(random_state=0)).fit(X, Y).predict_proba(X)
    b = BinaryRelevance(DecisionTreeClassifier(random_state=0), n_jobs=2).fit(sp.csr_matrix(X), sp.csr_matrix(Y)).predict_proba(sp.csr_matrix(X))
    np.testing.assert_array_equal(a, b)

def test_get_params_and_clone():
    m = LabelSpecificBR(LogisticRegression(C=2.0), feature_sets=[[0], [1]], n_jobs=1)
    p = m.get_params()
    assert p["feature_sets"] == [[0], [1]] and p["estimator__C"] == pytest.approx(2.0, abs=1e-12)
    c = clone(m)
    assert c.get_params()["estimator__C"] == pytest.approx(2.0, abs=1e-12) and not hasattr(c, "estimators_")

def test_label_specific_uses_only_its_features():
    X, Y = data(1, c=2)
    m = LabelSpecificBR(LogisticRegression(), feature_sets=[[0], [1, 2]]).fit(X, Y)
    assert m.estimators_[0].coef_.shape == (1, 1) and m.estimators_[1].coef_.shape == (1, 2)
    X2 = X.copy(); X2[:, 3:] = 0  # features no label uses do not matter
    np.testing.assert_allclose(m.predict_proba(X), m.predict_proba(X2))

@pytest.mark.parametrize("bad, msg", [
    (lambda X, Y: (X[:-1], Y), "rows"),
    (lambda X, Y: (np.where(X > 2, np.nan, X), Y), "NaN"),
    (lambda X, Y: (X, Y * 2), "binary"),
    (lambda X, Y: (X[:, 0], Y), "2-D"),
])
def test_bad_input(bad, msg):
    X, Y = data(2)
    with pytest.raises(ValueError, match=msg): BinaryRelevance().fit(*bad(X, Y))

def test_predict_before_fit():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError): BinaryRelevance().predict_proba(np.zeros((2, 3)))

class _Spy:
    "A per-label selector that records the rows it is fitted on (column 0 of X is the row number) and keeps k features."
    seen = []
    def __init__(self, k=1): self.k = k
    def get_params(self, deep=True): return {"k": self.k}
    def set_params(self, **p):
        self.k = p.get("k", self.k)
        return self
    def fit(self, X, Y):
        _Spy.seen.append(sorted(np.asarray(X)[:, 0].astype(int).tolist()))
        self.selected_ = [np.arange(1, 1 + self.k)] * np.asarray(Y).shape[1]
        return self

def test_selector_is_refitted_on_training_folds_only():
    from sklearn.model_selection import GridSearchCV, KFold
    X, Y = data(3, n=90)
    Xid = np.column_stack([np.arange(90), X])
    _Spy.seen = []
    search = GridSearchCV(LabelSpecificBR(LogisticRegression(), selector=_Spy()), {"selector__k": [1, 2, 4]}, cv=KFold(3))
    search.fit(Xid, Y)
    folds = [sorted(tr.tolist()) for tr, _ in KFold(3).split(Xid)]
    assert sorted(_Spy.seen) == sorted(folds * 3 + [list(range(90))])     # 3 values x 3 folds, then the refit
    best = search.best_estimator_
    assert best.selector_ is not best.selector and len(best.feature_sets_[0]) == search.best_params_["selector__k"]

def test_selector_and_feature_sets_exclude_each_other():
    X, Y = data(4)
    with pytest.raises(ValueError, match="not both"):
        LabelSpecificBR(feature_sets=[[0]] * 4, selector=_Spy()).fit(X, Y)
    m = LabelSpecificBR(LogisticRegression(), selector=_Spy(k=2)).fit(X, Y)
    assert [f.tolist() for f in m.feature_sets_] == [[1, 2]] * 4
    m.set_params(selector=None, feature_sets=[[0]] * 4).fit(X, Y)
    assert not hasattr(m, "selector_") and m.estimators_[0].coef_.shape == (1, 1)
