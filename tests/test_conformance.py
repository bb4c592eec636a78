"""scikit-learn conformance: `check_estimator` over every public estimator configuration.

scikit-learn's generic checks speak single-output estimation: they fit on a 1-D `y` of class labels. The estimators
here are multi-label: they take an (N, C) 0/1 label matrix. `OneLabel` is the adapter between the two:

- a 1-D `y` becomes **one 0/1 label column**, `y == the largest class` (two classes: exactly the binary problem;
  a classifier refuses three or more classes, a selector selects the features of the largest class against the rest);
  a 2-D `y` (the checks' multi-label and multi-output cases) reaches the estimator untouched;
- predictions of that one column go back to class labels (1 → the largest class, 0 → the smallest), probabilities
  to scikit-learn's (N, 2) layout, a decision function to its first column;
- everything else (`transform`, `get_support`, feature names, the tags) is the wrapped estimator's own; the tags
  say `multi_class=False`, so the checks do not expect a 3-class problem to be learned through one label column.

`ZeroOneCosts` does the same for the cost-sensitive `CostRegressionClassifier` (fit(X, C) with C the cost of each
class): C[i, c] = [y_i != class c]. Selectors that take a 1-D y themselves (AlternativeFeatureSelector) need none.

`_estimators()` lists every public estimator configuration (small, fast settings): covering a new estimator is one
line there, and `test_every_public_estimator_is_covered` fails until it is added. `EXPECTED_FAILURES` lists, per
configuration, the checks expected to fail, each with its reason; a check listed there that passes fails the test
too (no stale entry). Estimators around native code (napkinXC) run their checks in a subprocess, so a crash is a
failed test, not a dead test run. The checks of the constructor and of get/set_params also run on each wrapped
estimator itself, so that an adapter cannot hide them.
"""
import copy, json, os, subprocess, sys, warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.metrics import accuracy_score
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, column_or_1d


def _has(method):
    "available_if: the wrapped estimator has `method`."
    return lambda self: hasattr(self.estimator, method)


def _dense(A):
    return A.toarray() if sp.issparse(A) else np.asarray(A)


class OneLabel(BaseEstimator):
    "Adapter: a 1-D class-label `y` as one 0/1 label column for a multi-label estimator (see the module's docstring)."
    def __init__(self, estimator):
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = copy.deepcopy(get_tags(self.estimator))
        if tags.classifier_tags is not None: tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y=None):
        Y = y
        if y is not None and not sp.issparse(y) and np.asarray(y).ndim == 1:
            y = np.asarray(y)
            kind = type_of_target(y, input_name="y") if y.size else "binary"   # no rows: the estimator's error
            if kind not in ("binary", "multiclass"):   # e.g. continuous, or y with NaN/inf
                raise ValueError(f"Unknown label type: {kind}: the adapter maps class labels to one 0/1 column")
            self.classes_ = np.unique(y)
            if len(self.classes_) > 2 and is_classifier(self.estimator):   # the tags say multi_class=False
                raise ValueError("Only binary classification is supported: the adapter gives the multi-label "
                                 f"estimator one 0/1 label column, y has {len(self.classes_)} classes")
            Y = (y == self.classes_[-1]).astype(np.int8).reshape(-1, 1) if y.size else y.reshape(0, 1)
        else:
            self.classes_ = np.array([0, 1])   # a 2-D y: every column is a 0/1 label
        self.one_label_ = Y is not y
        self.estimator_ = clone(self.estimator).fit(X, Y)
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, attr): setattr(self, attr, getattr(self.estimator_, attr))
        return self

    def _one(self):
        check_is_fitted(self)
        return self.one_label_

    @available_if(_has("predict"))
    def predict(self, X):
        one = self._one()
        P = _dense(self.estimator_.predict(X))
        if not one: return P
        return np.where(P.reshape(len(P), -1)[:, 0] > 0, self.classes_[-1], self.classes_[0])

    @available_if(_has("predict_proba"))
    def predict_proba(self, X):
        one = self._one()
        P = _dense(self.estimator_.predict_proba(X))
        if not one: return P
        p = P.reshape(len(P), -1)[:, 0]
        return np.column_stack([1 - p, p])

    @available_if(_has("decision_function"))
    def decision_function(self, X):
        one = self._one()
        F = _dense(self.estimator_.decision_function(X))
        return F.reshape(len(F), -1)[:, 0] if one else F

    @available_if(_has("score"))
    def score(self, X, y, sample_weight=None):
        if self._one(): return accuracy_score(y, self.predict(X), sample_weight=sample_weight)
        return self.estimator_.score(X, y, sample_weight=sample_weight)

    @available_if(_has("transform"))
    def transform(self, X):
        check_is_fitted(self)
        return self.estimator_.transform(X)

    @available_if(_has("transform"))
    def fit_transform(self, X, y=None): return self.fit(X, y).transform(X)

    @available_if(_has("get_support"))
    def get_support(self, indices=False):
        check_is_fitted(self)
        return self.estimator_.get_support(indices=indices)

    @available_if(_has("get_feature_names_out"))
    def get_feature_names_out(self, input_features=None):
        check_is_fitted(self)
        return self.estimator_.get_feature_names_out(input_features)


class ZeroOneCosts(ClassifierMixin, BaseEstimator):
    """Adapter: a cost-sensitive classifier `fit(X, C)` (C: the (N, n_classes) cost of each class for each row) as a
    classifier of class labels y: C[i, c] = [y_i != class c], the 0/1 costs under which cost-sensitive classification
    is ordinary classification; its predicted class index goes back to the class label."""
    def __init__(self, estimator):
        self.estimator = estimator

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y=None):
        if y is None: raise ValueError("the adapter requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        kind = type_of_target(y, input_name="y") if y.size else "binary"
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"Unknown label type: {kind}: the adapter maps class labels to 0/1 costs")
        self.classes_ = np.unique(y)
        C = (y[:, None] != self.classes_[None]).astype(float)
        self.estimator_ = clone(self.estimator).fit(X, C)
        self.n_features_in_ = self.estimator_.n_features_in_
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[self.estimator_.predict(X)]


def _estimators():
    "name -> a factory of the configuration (imports here: collecting the tests stays cheap)."
    from sklearn.linear_model import LogisticRegression
    from mlxplain.learners import BinaryRelevance, LabelSpecificBR
    from mlxplain.fals import FALS, RFSelector, LassoSelector, LIFT
    from mlxplain.extended_plt import ExtendedPLT
    from mlxplain.prakel import PRAkEL, RAkEL, CSRAkEL, EPCC, MLkNN, FaithfulMLkNN, CostRegressionClassifier
    from mlxplain.alternatives import AlternativeFeatureSelector
    return {
        "BinaryRelevance": lambda: OneLabel(BinaryRelevance()),
        "BinaryRelevance(LogisticRegression)": lambda: OneLabel(BinaryRelevance(LogisticRegression())),
        "LabelSpecificBR(selector)": lambda: OneLabel(LabelSpecificBR(selector=LassoSelector(k=1))),
        "FALS": lambda: OneLabel(FALS(k=1, epochs=2, random_state=0)),
        "FALS(falsb)": lambda: OneLabel(FALS(k=1, epochs=2, variant="falsb", random_state=0)),
        "FALS(ig)": lambda: OneLabel(FALS(k=1, epochs=2, attribution="ig", ig_steps=4, random_state=0)),
        "RFSelector": lambda: OneLabel(RFSelector(k=1, n_estimators=5)),
        "LassoSelector": lambda: OneLabel(LassoSelector(k=1)),
        "LIFT": lambda: OneLabel(LIFT()),
        "ExtendedPLT": lambda: OneLabel(ExtendedPLT(seed=0)),
        "ExtendedPLT(adversarial)": lambda: OneLabel(ExtendedPLT(seed=0, adversarial=True, random_state=0)),
        "PRAkEL": lambda: OneLabel(PRAkEL(k=1, n_iterations=2, random_state=0)),
        "RAkEL": lambda: OneLabel(RAkEL(k=1, random_state=0)),
        "CSRAkEL": lambda: OneLabel(CSRAkEL(k=1, random_state=0)),
        "EPCC": lambda: OneLabel(EPCC(n_chains=2, n_samples=20, random_state=0)),
        "MLkNN": lambda: OneLabel(MLkNN(k=3)),
        "FaithfulMLkNN": lambda: OneLabel(FaithfulMLkNN(k=3)),
        "CostRegressionClassifier": lambda: ZeroOneCosts(CostRegressionClassifier()),
        "CostRegressionClassifier(one_sided)": lambda: ZeroOneCosts(CostRegressionClassifier(one_sided=True, max_iter=3)),
        "AlternativeFeatureSelector": lambda: AlternativeFeatureSelector(k=1, n_alternatives=1, random_state=0),
    }


NATIVE = {"ExtendedPLT", "ExtendedPLT(adversarial)"}   # their checks run in a subprocess

# The reasons, one per kind of expected failure.
_INT8 = ("predict returns int8 0/1 indicators whatever Y's dtype (the package's documented output type: one byte per "
         "cell for large label sets); the check wants the dtype of the y it was given (int64)")
_TREE_ZERO = ("the decision trees' leaves give probabilities of exactly 0 and 1; the check wants every probability "
              "strictly inside (0, 1) (the same estimator with LogisticRegression passes)")
_TIE = ("predict thresholds the score at >= 0.5 (documented); the check rounds the probabilities, and numpy rounds "
        "a tree leaf's 0.5 down to 0")
_SELECTOR_PROBA = ("a FALS selector has no classifier tags but has predict_proba (its network's own probabilities): "
                   "the sparse check reads classifier_tags.multi_class of any estimator with predict_proba and fails on "
                   "None; sparse input itself works (tests/test_fals.py::test_dense_and_csr_agree)")
_LIFT_F32 = "LIFT computes its distance features in float32, FALS's working precision, whatever the input's float type"
_PLT_LIST_X = ("ExtendedPLT refuses a Python list X with a TypeError that points to CSR (documented: napkinXC wants a "
               "CSR matrix, and lists are this chapter's format for Y)")
_PLT_LABEL_LISTS = ("a list-of-lists Y is read as label-id lists (ExtendedPLT's documented format for extreme "
                    "classification), so a list of 0/1 rows means other labels than the same array")
_PLT = {"check_classifiers_multilabel_output_format_predict": _INT8, "check_classifiers_train": _PLT_LIST_X,
        "check_classifiers_multilabel_representation_invariance": _PLT_LABEL_LISTS}

EXPECTED_FAILURES = {   # name -> {check: reason}; a configuration missing here passes every check
    "BinaryRelevance": {"check_classifiers_multilabel_output_format_predict": _INT8,
                        "check_classifiers_multilabel_output_format_predict_proba": _TREE_ZERO},
    "BinaryRelevance(LogisticRegression)": {"check_classifiers_multilabel_output_format_predict": _INT8},
    "LabelSpecificBR(selector)": {"check_classifiers_multilabel_output_format_predict": _INT8,
                                  "check_classifiers_multilabel_output_format_predict_proba": _TREE_ZERO,
                                  "check_classifier_multioutput": _TIE},
    "FALS": {"check_estimator_sparse_array": _SELECTOR_PROBA, "check_estimator_sparse_matrix": _SELECTOR_PROBA},
    "FALS(falsb)": {"check_estimator_sparse_array": _SELECTOR_PROBA, "check_estimator_sparse_matrix": _SELECTOR_PROBA},
    "FALS(ig)": {"check_estimator_sparse_array": _SELECTOR_PROBA, "check_estimator_sparse_matrix": _SELECTOR_PROBA},
    "LIFT": {"check_classifiers_multilabel_output_format_predict": _INT8,
             "check_classifiers_multilabel_output_format_predict_proba": _TREE_ZERO,
             "check_transformer_preserve_dtypes": _LIFT_F32},
    "ExtendedPLT": _PLT,
    "ExtendedPLT(adversarial)": _PLT,
    **{name: {"check_classifiers_multilabel_output_format_predict": _INT8}
       for name in ("PRAkEL", "RAkEL", "CSRAkEL", "EPCC", "MLkNN", "FaithfulMLkNN")},
}


def run_checks(name):
    "check_estimator on configuration `name`: a list of (check, status, message) with the expected failures marked."
    est = _estimators()[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator_results(est, EXPECTED_FAILURES.get(name, {}))
    return [(r["check_name"], r["status"], str(r["exception"])[:300] if r["exception"] else "") for r in res]


def check_estimator_results(est, expected):
    from sklearn.utils.estimator_checks import check_estimator
    return check_estimator(est, expected_failed_checks=expected, on_fail=None, on_skip=None)


def _in_subprocess(name, timeout=600):
    "run_checks(name) in a fresh interpreter: a segfault or a hang fails this test only."
    code = (f"import sys, json; sys.path.insert(0, {str(Path(__file__).parent)!r}); import test_conformance as T; "
            f"print('RESULT' + json.dumps(T.run_checks({name!r})))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)
    assert p.returncode == 0, f"the checks of {name} crashed (exit {p.returncode}): {p.stderr[-2000:]}"
    line = next(l for l in p.stdout.splitlines() if l.startswith("RESULT"))
    return [tuple(r) for r in json.loads(line[len("RESULT"):])]


def _names():
    return list(_estimators())


@pytest.mark.parametrize("name", _names())
def test_check_estimator(name):
    "Every check passes, except the listed ones, which fail as expected (each with its reason)."
    res = _in_subprocess(name) if name in NATIVE else run_checks(name)
    failed = [(c, m) for c, s, m in res if s == "failed"]
    assert not failed, failed
    xfailed = {c for c, s, _ in res if s == "xfail"}
    assert xfailed == set(EXPECTED_FAILURES.get(name, {})), "stale or missing expected failures"
    assert sum(s == "passed" for _, s, _ in res) >= 25


# The adapters are what the generic checks see; the checks of the constructor and the parameters also run on the
# wrapped estimator itself, so that an adapter cannot hide a constructor that raises or sets attributes.
_API_CHECKS = ("check_parameters_default_constructible", "check_no_attributes_set_in_init",
               "check_get_params_invariance", "check_set_params", "check_do_not_raise_errors_in_init_or_set_params",
               "check_estimator_repr", "check_estimator_cloneable", "check_valid_tag_types")


@pytest.mark.parametrize("name", _names())
def test_constructor_and_parameter_checks_on_the_estimator_itself(name):
    from sklearn.utils import estimator_checks
    est = _estimators()[name]()
    inner = est.estimator if isinstance(est, (OneLabel, ZeroOneCosts)) else est
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for check in _API_CHECKS:
            getattr(estimator_checks, check)(type(inner).__name__, inner)


def test_every_public_estimator_is_covered():
    "Every estimator class a module exports (its __all__) has at least one configuration above."
    import importlib
    from sklearn.base import BaseEstimator as B
    covered = set()
    for est in (f() for f in _estimators().values()):
        covered.add(type(est.estimator if isinstance(est, (OneLabel, ZeroOneCosts)) else est).__name__)
    public = set()
    for mod in ("learners", "fals", "extended_plt", "prakel", "alternatives"):
        m = importlib.import_module(f"mlxplain.{mod}")
        public |= {n for n in m.__all__ if isinstance(getattr(m, n), type) and issubclass(getattr(m, n), B)}
    assert public - covered == set(), f"add a configuration for {sorted(public - covered)}"


# --- column names: a DataFrame's columns are checked at predict, never read by position ----------------------------
# Issue 42: ten estimators used a DataFrame's columns by position at predict, so reordered or renamed columns gave other
# predictions without a word. Each estimator now records `feature_names_in_` in fit and refuses, in every method that
# takes X, a frame whose columns are renamed or in another order, as scikit-learn's estimators do.

def _named_estimators():
    "name -> (a factory, the fit target from (X, Y)): every estimator of the learners, FALS, ExtendedPLT and PRAkEL chapters."
    from sklearn.linear_model import LogisticRegression
    from mlxplain.learners import BinaryRelevance, LabelSpecificBR
    from mlxplain.fals import FALS, RFSelector, LassoSelector, LIFT
    from mlxplain.prakel import PRAkEL, RAkEL, CSRAkEL, EPCC, MLkNN, FaithfulMLkNN, CostRegressionClassifier
    from mlxplain.extended_plt import ExtendedPLT
    costs = lambda X, Y: (np.arange(2)[None] != Y[:, :1]).astype(float)    # 0/1 costs of two classes
    return {
        "BinaryRelevance": (lambda: BinaryRelevance(LogisticRegression()), None),
        "LabelSpecificBR": (lambda: LabelSpecificBR(LogisticRegression(), feature_sets=[[0, 1], [2], [1, 3]]), None),
        "LabelSpecificBR(selector)": (lambda: LabelSpecificBR(LogisticRegression(), selector=LassoSelector(k=2)), None),
        "LIFT": (lambda: LIFT(random_state=0), None),
        "FALS": (lambda: FALS(k=2, epochs=2, random_state=0), None),
        "RFSelector": (lambda: RFSelector(k=2, n_estimators=5), None),
        "LassoSelector": (lambda: LassoSelector(k=2), None),
        "PRAkEL": (lambda: PRAkEL(k=2, n_iterations=3, random_state=0), None),
        "RAkEL": (lambda: RAkEL(k=2, random_state=0), None),
        "CSRAkEL": (lambda: CSRAkEL(k=2, random_state=0), None),
        "EPCC": (lambda: EPCC(n_chains=2, n_samples=20, random_state=0), None),
        "MLkNN": (lambda: MLkNN(k=3), None),
        "FaithfulMLkNN": (lambda: FaithfulMLkNN(k=3), None),
        "CostRegressionClassifier": (lambda: CostRegressionClassifier(), costs),
        "ExtendedPLT": (lambda: ExtendedPLT(seed=0), None),
    }


_METHODS = ("predict", "predict_proba", "decision_function", "transform", "predict_costs", "sample",
            "predict_marginals", "staged_predict", "score")


@pytest.mark.parametrize("name", list(_named_estimators()))
def test_reordered_or_renamed_columns_are_refused_at_predict(name):
    import pandas as pd
    make, target = _named_estimators()[name]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 4))
    Y = np.column_stack([X[:, 0] + X[:, 1] > 0, X[:, 2] > 0, X[:, 1] - X[:, 3] > 0]).astype(int)
    T = Y if target is None else target(X, Y)
    cols = ["a", "b", "c", "d"]
    df = pd.DataFrame(X, columns=cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = make().fit(df, T)
        ref = make().fit(X, T)
    assert list(m.feature_names_in_) == cols and not hasattr(ref, "feature_names_in_")
    methods = [f for f in _METHODS if hasattr(m, f) and not (f == "score" and target is not None)]
    assert methods
    for f in methods:
        call = lambda A: getattr(m, f)(*((A, Y) if f == "score" else (A,)))
        out = call(df)                                                     # the same columns: fine, as on arrays
        if f not in ("staged_predict", "sample", "score"):
            np.testing.assert_allclose(np.asarray(out, dtype=float), np.asarray(getattr(ref, f)(X), dtype=float))
        with pytest.raises(ValueError, match="same order"): call(df[cols[::-1]])
        with pytest.raises(ValueError, match="unseen at fit time"): call(df.rename(columns={"a": "z"}))
    with pytest.warns(UserWarning, match="does not have valid feature names"): getattr(m, methods[0])(X)   # an array


@pytest.mark.parametrize("name", list(_named_estimators()))
def test_repeated_column_names_are_refused_in_fit(name):
    "A fresh fuzz (tools/fuzz_bad_input.py): a frame with a repeated column name failed inside scikit-learn with narwhals'"
    " DuplicateError, which names no argument; it is now a ValueError naming X and the repeated name."
    import pandas as pd
    make, target = _named_estimators()[name]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 2] > 0, X[:, 1] > 0]).astype(int)
    T = Y if target is None else target(X, Y)
    with pytest.raises(ValueError, match=r"X has repeated column names \(b\)"):
        make().fit(pd.DataFrame(X, columns=["a", "b", "b", "c"]), T)


_WRAPPERS = {"BinaryRelevance": ("estimator", "mlxplain.learners"), "LabelSpecificBR": ("estimator", "mlxplain.learners"),
             "LIFT": ("estimator", "mlxplain.fals"), "RAkEL": ("base_estimator", "mlxplain.prakel"),
             "CSRAkEL": ("base_estimator", "mlxplain.prakel"), "EPCC": ("base_estimator", "mlxplain.prakel"),
             "PRAkEL": ("base_estimator", "mlxplain.prakel")}


@pytest.mark.parametrize("name", list(_WRAPPERS))
@pytest.mark.parametrize("value", [0.5, "tree", None])   # None: the class LogisticRegression, not an instance
def test_a_non_estimator_as_the_inner_estimator_is_an_error_naming_it(name, value):
    "A fresh fuzz: a number or a string as `estimator`/`base_estimator` failed in scikit-learn's clone (or later, as"
    " 'tuple has no attribute fit'), naming no parameter. A class instead of an instance is refused too."
    import importlib
    from sklearn.linear_model import LogisticRegression
    param, module = _WRAPPERS[name]
    value = LogisticRegression if value is None else value
    cls = getattr(importlib.import_module(module), name)
    extra = {"feature_sets": [[0, 1], [2], [1, 3]]} if name == "LabelSpecificBR" else {}
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 4))
    Y = np.column_stack([X[:, 0] > 0, X[:, 2] > 0, X[:, 1] > 0]).astype(int)
    with pytest.raises(ValueError, match=rf"{param}=.*must be a scikit-learn estimator"):
        cls(**{param: value}, **extra).fit(X, Y)
