"""ExtendedPLT's API (issue 42): threads sharing models, `predict`'s decision rule, `predict_proba` as an N×C matrix,
numpy hyper-parameters, feature names at prediction, `score`, progress output, and bad arguments to every public
function of mlxplain.extended_plt (a clear error naming the argument, or a documented result)."""
import subprocess
import sys
import warnings
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from mlxplain import extended_plt as E
from mlxplain.data import make_label_specific
from mlxplain.extended_plt import ExtendedPLT
from mlxplain.metrics import hamming_loss, precision_at_k


@pytest.fixture(scope="module")
def data():
    ds, _ = make_label_specific(n_samples=500, n_features=30, n_labels=6, n_relevant=3, sparse=True, random_state=0)
    X, Y = sp.csr_matrix(ds.X, dtype=np.float32), sp.csr_matrix(ds.Y)
    return X[:350], Y[:350], X[350:], Y[350:]


@pytest.fixture(scope="module")
def model(data):
    Xtr, Ytr, _, _ = data
    return ExtendedPLT(seed=0).fit(Xtr, Ytr)


# --- threads: napkinXC 0.7.2 corrupts its state (and std::cout) under concurrent calls; a subprocess runs them -----
_THREADS = """
import threading
from mlxplain.data import make_label_specific
from mlxplain.extended_plt import ExtendedPLT
ds, _ = make_label_specific(n_samples=600, n_features=40, n_labels=8, sparse=True, random_state=0)
X = ds.X[400:]
models = [ExtendedPLT(seed=s).fit(ds.X[:400], ds.Y[:400]) for s in (0, 1)]
calls = [("ranked", 1), ("ranked", 5), ("proba", None), ("predict", None)]
def run(m, kind, k):
    if kind == "ranked": return m.predict_ranked(X, k, return_proba=True)
    return (m.predict_proba(X) if kind == "proba" else m.predict(X)).tolist()
ref = {(i, c): run(m, *c) for i, m in enumerate(models) for c in calls}   # one call at a time
ok, errors = [], []
def worker(j):
    try:
        for rep in range(3):
            for i, m in enumerate(models):
                c = calls[(j + rep + i) % len(calls)]
                ok.append(run(m, *c) == ref[(i, c)])
    except Exception as e: errors.append(repr(e))
threads = [threading.Thread(target=worker, args=(j,)) for j in range(6)]
for t in threads: t.start()
for t in threads: t.join()
print("ROWS", sum(ok), len(ok), errors, flush=True)
"""


def test_threads_sharing_models_get_correct_rows_and_exit_cleanly():
    "Six threads predict on two fitted models at once: every row equals the one-thread result, and the process exits 0."
    p = subprocess.run([sys.executable, "-c", _THREADS], capture_output=True, text=True, timeout=600)
    line = next((l for l in p.stdout.splitlines() if l.startswith("ROWS")), p.stdout[-500:] + p.stderr[-1500:])
    assert line == "ROWS 36 36 []", line
    assert p.returncode == 0, f"exit status {p.returncode} (-11/139: a segfault at exit): {p.stderr[-1500:]}"


# --- predict: a decision rule for multi-label data ------------------------------------------------------------------
def test_predict_marks_the_labels_with_probability_at_least_half(model, data):
    "predict used to mark the top 5 of 6 labels of every row (Hamming loss > 0.5); now the labels with P >= 0.5."
    _, _, Xte, Yte = data
    P, S = model.predict(Xte), model.predict_proba(Xte)
    assert isinstance(P, np.ndarray) and P.dtype == np.int8 and P.shape == (150, 6)
    np.testing.assert_array_equal(P, (S >= np.float32(0.5)).astype(np.int8))
    assert len(set(P.sum(1).tolist())) > 1                   # each row gets the labels its probabilities support
    hl, hl_top5 = hamming_loss(Yte, P), hamming_loss(Yte, model.predict(Xte, top_k=5))
    assert hl < hl_top5 / 2 and hl < Yte.mean(), (hl, hl_top5)   # and beats predicting no label at all


def test_decision_cardinality_integer_and_threshold(data):
    Xtr, Ytr, Xte, _ = data
    c = int(np.floor(Ytr.sum() / Ytr.shape[0] + 0.5))
    card = ExtendedPLT(seed=0, decision="cardinality").fit(Xtr, Ytr)
    assert card.label_cardinality_ == pytest.approx(Ytr.sum() / Ytr.shape[0])
    P = card.predict(Xte)
    assert (P.sum(1) == c).all()
    assert [sorted(r) for r in card.predict_ranked(Xte, c)] == [np.flatnonzero(p).tolist() for p in P]
    assert (ExtendedPLT(seed=0, decision=np.int64(2)).fit(Xtr, Ytr).predict(Xte).sum(1) == 2).all()
    low = ExtendedPLT(seed=0, threshold=0.2).fit(Xtr, Ytr)
    np.testing.assert_array_equal(low.predict(Xte), (low.predict_proba(Xte) >= np.float32(0.2)).astype(np.int8))
    assert (low.predict(Xte, top_k=1).sum(1) == 1).all()     # top_k asks for the top k instead of the rule


@pytest.mark.parametrize("params,err,msg", [
    ({"decision": "top5"}, ValueError, "decision='top5': decision must be one of 'threshold', 'cardinality'"),
    ({"decision": 0}, ValueError, r"decision=0: decision must be an integer in \[1, inf\)"),
    ({"decision": 7}, ValueError, r"decision=7: decision must be an integer in \[1, 6\]"),
    ({"decision": 2.5}, TypeError, "decision=2.5: decision must be 'threshold', 'cardinality' or an integer"),
    ({"decision": None}, TypeError, "decision=None"), ({"decision": True}, TypeError, "decision=True"),
    ({"threshold": 0}, ValueError, r"threshold=0: threshold must be a finite number in \(0, 1\]"),
    ({"threshold": 1.5}, ValueError, "threshold=1.5"), ({"threshold": float("nan")}, ValueError, "threshold=nan"),
    ({"threshold": "0.5"}, TypeError, "threshold='0.5'")])
def test_bad_decision_rule_names_the_parameter(data, params, err, msg):
    Xtr, Ytr, _, _ = data
    with pytest.raises(err, match=msg): ExtendedPLT(**params).fit(Xtr, Ytr)


# --- predict_proba: an N×C matrix; the ranked pairs under predict_ranked ---------------------------------------------
def test_predict_proba_is_an_n_by_L_matrix_of_napkinxc_probabilities(model, data):
    _, _, Xte, _ = data
    S = model.predict_proba(Xte)
    assert isinstance(S, np.ndarray) and S.shape == (150, 6) and S.dtype == np.float32
    assert ((S > 0) & (S <= 1)).all()                        # every label's probability
    for i, r in enumerate(model.predict_ranked(Xte, 6, return_proba=True)):
        np.testing.assert_array_equal(S[i, [l for l, _ in r]], np.float32([p for _, p in r]))
    S2 = model.predict_proba(Xte, 2, as_csr=True)
    assert sp.issparse(S2) and (S2.getnnz(1) == 2).all()
    np.testing.assert_array_equal(S2.toarray(), model.predict_proba(Xte, 2))   # the same entries, as an array
    pairs = model.predict_ranked(Xte[:3], 2, return_proba=True)
    assert model.predict_ranked(Xte[:3], 2) == [[l for l, _ in r] for r in pairs]


def test_many_labels_give_csr_with_the_top_five(monkeypatch, data):
    "Beyond DENSE_MAX_LABELS labels predict_proba keeps each row's top 5 as CSR, and predict returns CSR."
    Xtr, Ytr, Xte, _ = data
    monkeypatch.setattr(E, "DENSE_MAX_LABELS", 4)            # 6 labels count as many here
    m = ExtendedPLT(seed=0).fit(Xtr, Ytr)
    S = m.predict_proba(Xte)
    assert sp.issparse(S) and (S.getnnz(1) == 5).all()
    P = m.predict(Xte)
    assert sp.issparse(P) and P.dtype == np.int8
    assert isinstance(m.predict(Xte, as_csr=False), np.ndarray)


# --- numpy hyper-parameters reach napkinXC as Python numbers ---------------------------------------------------------
NUMPY_PARAMS = [
    ("arity", np.int64(3), {}), ("max_leaves", np.int32(50), {}), ("kmeans_eps", np.float32(1e-3), {}),
    ("kmeans_balanced", np.bool_(True), {}), ("hash", np.int64(64), {}), ("features_threshold", np.float32(0.0), {}),
    ("bias", np.float32(1.0), {}), ("weights_threshold", np.float32(0.1), {}), ("liblinear_c", np.float32(5.0), {}),
    ("liblinear_eps", np.float32(0.1), {}), ("liblinear_max_iter", np.int64(50), {}),
    ("eta", np.float32(0.5), {"optimizer": "sgd"}), ("epochs", np.int64(2), {"optimizer": "sgd"}),
    ("adagrad_eps", np.float32(0.01), {"optimizer": "adagrad"}), ("beam_search_width", np.int64(5), {"tree_search_type": "beam"}),
    ("ensemble", np.int64(2), {}), ("seed", np.int64(3), {}), ("threads", np.int64(1), {}), ("verbose", np.int64(0), {}),
    ("tree_type", np.str_("balancedRandom"), {}), ("sigma", np.float32(0.05), {"adversarial": True, "random_state": 0}),
    ("augment_ratio", np.int64(1), {"adversarial": True, "random_state": 0}),
    ("random_state", np.int64(0), {"adversarial": True}), ("decision", np.int64(2), {}), ("threshold", np.float32(0.4), {})]


@pytest.mark.parametrize("name,value,extra", NUMPY_PARAMS, ids=[f"{n}={type(v).__name__}" for n, v, _ in NUMPY_PARAMS])
def test_numpy_hyper_parameters_train_as_python_ones(data, name, value, extra):
    Xtr, Ytr, Xte, _ = data
    params = {"seed": 0, **extra}
    a = ExtendedPLT(**{**params, name: value}).fit(Xtr, Ytr)
    b = ExtendedPLT(**{**params, name: value.item()}).fit(Xtr, Ytr)
    np.testing.assert_array_equal(a.predict_proba(Xte), b.predict_proba(Xte))
    np.testing.assert_array_equal(a.predict(Xte), b.predict(Xte))


# --- feature names: recorded in fit, checked at every prediction -----------------------------------------------------
def test_feature_names_are_checked_at_every_prediction(data):
    Xtr, Ytr, Xte, Yte = data
    cols = [f"w{j}" for j in range(30)]
    m = ExtendedPLT(seed=0).fit(pd.DataFrame(Xtr.toarray(), columns=cols), Ytr)
    assert list(m.feature_names_in_) == cols
    good, bad = pd.DataFrame(Xte.toarray(), columns=cols), pd.DataFrame(Xte.toarray(), columns=cols[::-1])
    calls = {"predict": lambda X: m.predict(X), "predict_proba": lambda X: m.predict_proba(X),
             "predict_ranked": lambda X: m.predict_ranked(X), "label_proba": lambda X: m.label_proba(X, 0),
             "score": lambda X: m.score(X, Yte), "explain": lambda X: m.explain(X.iloc[:1], method="occlusion"),
             "attribution": lambda X: E.attribution(m, X.iloc[:1]), "deletion_curve": lambda X: E.deletion_curve(m, X.iloc[:1], [], 0),
             "worst_case_perturbation": lambda X: E.worst_case_perturbation(m, X.iloc[:1], 0.1, n_steps=1),
             "adversarial_evaluation": lambda X: E.adversarial_evaluation(m, X, Yte, 0, 1),
             "faithfulness": lambda X: E.faithfulness(m, X, 2, random_state=0),
             "attack_evaluation": lambda X: E.attack_evaluation(m, X, Yte, n_instances=2, n_steps=1, k_values=1)}
    for name, f in calls.items():
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*feature names.*")   # the right names: no warning inside either
            f(good)
        with pytest.raises(ValueError, match="feature names"): f(bad)
    with pytest.warns(UserWarning, match="does not have valid feature names"): m.predict(Xte)
    m.fit(Xtr, Ytr)
    assert not hasattr(m, "feature_names_in_")               # a refit on an array forgets the names


# --- score: precision at k of the ranking, and says so ---------------------------------------------------------------
def test_score_is_precision_at_k_of_the_ranking(model, data):
    _, _, Xte, Yte = data
    doc = ExtendedPLT.score.__doc__
    assert "Precision at k" in doc and "predict_ranked" in doc and "not a score of `predict`" in doc
    S5 = model.predict_proba(Xte, 5, as_csr=True)
    assert model.score(Xte, Yte) == pytest.approx(precision_at_k(Yte, S5, 5))
    w = np.arange(150) % 3
    assert model.score(Xte, Yte, sample_weight=w) == pytest.approx(np.average(precision_at_k(Yte, S5, 5, average=False), weights=w))
    for bad, msg in ((np.ones(3), r"sample_weight has shape \(3,\)"), (-np.ones(150), ">= 0"),
                     (np.full(150, np.nan), ">= 0"), (np.zeros(150), "not all 0")):
        with pytest.raises(ValueError, match=msg): model.score(Xte, Yte, sample_weight=bad)
    with pytest.raises(ValueError, match="Y has 5 labels; the model has 6"): model.score(Xte, Yte[:, :5])


# --- progress: off by default, on with verbose -----------------------------------------------------------------------
def test_long_runs_show_progress_only_when_asked(model, data, capfd):
    Xtr, Ytr, Xte, Yte = data
    args = dict(train_seeds=(0, 1), noise_levels=0, k_values=1, n_repeats=1)
    E.seed_evaluation(ExtendedPLT(), Xtr, Ytr, Xte, Yte, **args)
    E.adversarial_evaluation(model, Xte, Yte, (0, 0.1), 1)
    ExtendedPLT(seed=0, adversarial=True, random_state=0).fit(Xtr, Ytr)
    assert capfd.readouterr() == ("", "")
    E.seed_evaluation(ExtendedPLT(), Xtr, Ytr, Xte, Yte, verbose=1, **args)
    assert "training seeds" in capfd.readouterr().err
    E.adversarial_evaluation(model, Xte, Yte, (0, 0.1), 1, verbose=1)
    assert "adversarial evaluation" in capfd.readouterr().err
    E.attack_evaluation(model, Xte, Yte, n_instances=3, n_steps=1, k_values=1, verbose=True)
    assert "worst-case attack" in capfd.readouterr().err
    E.faithfulness(model, Xte, 2, verbose=1)
    assert "faithfulness" in capfd.readouterr().err
    loud = ExtendedPLT(seed=0, adversarial=True, random_state=0, verbose=1).fit(Xtr, Ytr)
    assert "noisy copies" in capfd.readouterr().out
    model.predict(Xte)                                       # napkinXC's log level is per process: not this model's
    assert capfd.readouterr() == ("", "")
    loud.predict(Xte)
    assert "Starting prediction" in "".join(capfd.readouterr())   # napkinXC's own progress, for the verbose model


# --- bad arguments to every public function: a clear error naming the argument ---------------------------------------
def _cases():
    "(id, call(m, Xtr, Ytr, Xte, Yte), exception, message): each bad argument of each public function."
    ev = pd.DataFrame({"sigma": [0.0, 0.1], "k": 1, "metric": "P@k", "repeat": 0, "value": [0.5, 0.4],
                       "predict_time": 0.0})
    x0 = lambda X: X[[0]]
    f0 = lambda X: int(X[[0]].indices[0])
    return [
        ("add_noise-sigma-None", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, None), TypeError, "sigma=None: sigma must be a finite number"),
        ("add_noise-sigma-NaN", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, np.nan), ValueError, "sigma=nan"),
        ("add_noise-sigma-negative", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, -0.5), ValueError, r"sigma=-0.5: sigma must be a finite number in \[0, inf\)"),
        ("add_noise-noise", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, 0.1, "gauss"), ValueError, "noise='gauss': noise must be one of"),
        ("add_noise-random_state-negative", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, 0.1, random_state=-1), ValueError, "random_state=-1"),
        ("add_noise-random_state-str", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, 0.1, random_state="a"), TypeError, "random_state='a'"),
        ("add_noise-X-None", lambda m, Xtr, Ytr, X, Y: E.add_noise(None, 0.1), ValueError, "X is None"),
        ("add_noise-block_rows", lambda m, Xtr, Ytr, X, Y: E.add_noise(X, 0.1, block_rows=0), ValueError, "block_rows=0"),
        ("make_adversarial_set-augment_ratio-NaN", lambda m, Xtr, Ytr, X, Y: E.make_adversarial_set(Xtr, Ytr, augment_ratio=np.nan), ValueError, "augment_ratio=nan"),
        ("make_adversarial_set-augment_ratio-str", lambda m, Xtr, Ytr, X, Y: E.make_adversarial_set(Xtr, Ytr, augment_ratio="1"), TypeError, "augment_ratio='1'"),
        ("make_adversarial_set-noise", lambda m, Xtr, Ytr, X, Y: E.make_adversarial_set(Xtr, Ytr, noise="x"), ValueError, "noise='x'"),
        ("make_adversarial_set-Y-rows", lambda m, Xtr, Ytr, X, Y: E.make_adversarial_set(Xtr, Ytr[:10]), ValueError, "same instances"),
        ("adversarial_evaluation-model-None", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(None, X, Y), TypeError, "model is a NoneType"),
        ("adversarial_evaluation-model-unfitted", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(ExtendedPLT(), X, Y), NotFittedError, "not fitted"),
        ("adversarial_evaluation-k-0", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, k_values=0), ValueError, r"k_values=0: k_values must be an integer in \[1, 6\]"),
        ("adversarial_evaluation-k-float", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, k_values=(1, 2.5)), TypeError, "k_values=2.5"),
        ("adversarial_evaluation-k-empty", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, k_values=()), ValueError, "k_values is empty"),
        ("adversarial_evaluation-noise_levels-NaN", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, noise_levels=(0, np.nan)), ValueError, "noise_levels=nan"),
        ("adversarial_evaluation-noise_levels-None", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, noise_levels=None), TypeError, "noise_levels=None"),
        ("adversarial_evaluation-n_repeats-0", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, n_repeats=0), ValueError, "n_repeats=0"),
        ("adversarial_evaluation-chunk_size-None", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, chunk_size=None), TypeError, "chunk_size=None"),
        ("adversarial_evaluation-per_k-1", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, per_k=1), TypeError, "per_k=1"),
        ("adversarial_evaluation-random_state-Generator", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, random_state=np.random.default_rng(0)), TypeError, "random_state=Generator"),
        ("adversarial_evaluation-inv_ps-NaN", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, inv_ps=np.full(6, np.nan)), ValueError, "inv_ps has NaN"),
        ("adversarial_evaluation-inv_ps-short", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, inv_ps=np.ones(3)), ValueError, "inv_ps has 3 entries"),
        ("adversarial_evaluation-inv_ps-name", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, inv_ps="ips"), ValueError, "inv_ps='ips'"),
        ("adversarial_evaluation-Y-width", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y[:, :4]), ValueError, "Y has 4 labels"),
        ("adversarial_evaluation-X-width", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X[:, :10], Y), ValueError, "X has 10 features"),
        ("adversarial_evaluation-verbose", lambda m, Xtr, Ytr, X, Y: E.adversarial_evaluation(m, X, Y, verbose=-1), ValueError, "verbose=-1"),
        ("relative_degradation-no-clean-rows", lambda m, Xtr, Ytr, X, Y: E.relative_degradation(ev[ev.sigma > 0]), ValueError, "no clean rows"),
        ("relative_degradation-not-a-frame", lambda m, Xtr, Ytr, X, Y: E.relative_degradation([1, 2]), TypeError, "df is a list"),
        ("relative_degradation-value-column", lambda m, Xtr, Ytr, X, Y: E.relative_degradation(ev, value="mean"), ValueError, "no column 'mean'"),
        ("summarize_evaluation-confidence", lambda m, Xtr, Ytr, X, Y: E.summarize_evaluation(ev, confidence=1.0), ValueError, "confidence=1.0"),
        ("summarize_seeds-not-a-frame", lambda m, Xtr, Ytr, X, Y: E.summarize_seeds(None), TypeError, "df is a NoneType"),
        ("seed_evaluation-model", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation("plt", Xtr, Ytr, X, Y), TypeError, "model is a str"),
        ("seed_evaluation-train_seeds-float", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation(m, Xtr, Ytr, X, Y, train_seeds=(0, 1.5)), TypeError, "train_seeds=1.5"),
        ("seed_evaluation-train_seeds-negative", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation(m, Xtr, Ytr, X, Y, train_seeds=(-1,)), ValueError, "train_seeds=-1"),
        ("seed_evaluation-train_seeds-NaN", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation(m, Xtr, Ytr, X, Y, train_seeds=np.nan), TypeError, "train_seeds=nan"),
        ("seed_evaluation-k-before-fitting", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation(m, Xtr, Ytr, X, Y, k_values=7), ValueError, r"k_values=7: k_values must be an integer in \[1, 6\]"),
        ("seed_evaluation-noise_levels", lambda m, Xtr, Ytr, X, Y: E.seed_evaluation(m, Xtr, Ytr, X, Y, noise_levels=-1), ValueError, "noise_levels=-1"),
        ("attribution-label-float", lambda m, Xtr, Ytr, X, Y: E.attribution(m, x0(X), label=2.5), TypeError, "label=2.5"),
        ("attribution-label-range", lambda m, Xtr, Ytr, X, Y: E.attribution(m, x0(X), label=6), ValueError, r"label=6: label must be an integer in \[0, 5\]"),
        ("attribution-method", lambda m, Xtr, Ytr, X, Y: E.attribution(m, x0(X), method="shap"), ValueError, "method='shap'"),
        ("attribution-x-two-rows", lambda m, Xtr, Ytr, X, Y: E.attribution(m, X[:2]), ValueError, "one instance"),
        ("attribution-x-NaN", lambda m, Xtr, Ytr, X, Y: E.attribution(m, np.full(30, np.nan)), ValueError, "x contains NaN"),
        ("attribution-x-width", lambda m, Xtr, Ytr, X, Y: E.attribution(m, np.ones(5)), ValueError, "x has 5 features"),
        ("attribution-model-unfitted", lambda m, Xtr, Ytr, X, Y: E.attribution(ExtendedPLT(), x0(X)), NotFittedError, "not fitted"),
        ("explain-k-0", lambda m, Xtr, Ytr, X, Y: E.explain(m, x0(X), k=0), ValueError, r"k=0: k must be an integer in \[1, inf\)"),
        ("explain-k-None", lambda m, Xtr, Ytr, X, Y: E.explain(m, x0(X), k=None), TypeError, "k=None"),
        ("explain-as_frame", lambda m, Xtr, Ytr, X, Y: E.explain(m, x0(X), as_frame="yes"), TypeError, "as_frame='yes'"),
        ("explain-label_names", lambda m, Xtr, Ytr, X, Y: E.explain(m, x0(X), as_frame=True, label_names=["a"]), ValueError, "1 label names"),
        ("deletion_curve-label-None", lambda m, Xtr, Ytr, X, Y: E.deletion_curve(m, x0(X), [], None), TypeError, "label=None"),
        ("deletion_curve-ranking-floats", lambda m, Xtr, Ytr, X, Y: E.deletion_curve(m, x0(X), [0.5], 0), TypeError, "ranking holds float"),
        ("deletion_curve-ranking-repeats", lambda m, Xtr, Ytr, X, Y: E.deletion_curve(m, x0(X), [f0(X), f0(X)], 0), ValueError, "ranking repeats"),
        ("deletion_curve-ranking-2-D", lambda m, Xtr, Ytr, X, Y: E.deletion_curve(m, x0(X), [[f0(X)]], 0), ValueError, "ranking must be a 1-D"),
        ("deletion_curve-ranking-None", lambda m, Xtr, Ytr, X, Y: E.deletion_curve(m, x0(X), None, 0), ValueError, "ranking must be a 1-D"),
        ("deletion_auc-empty", lambda m, Xtr, Ytr, X, Y: E.deletion_auc([]), ValueError, r"curve has shape \(0,\)"),
        ("deletion_auc-NaN", lambda m, Xtr, Ytr, X, Y: E.deletion_auc([1, np.nan]), ValueError, "curve has 1 NaN or infinite"),
        ("deletion_auc-None", lambda m, Xtr, Ytr, X, Y: E.deletion_auc(None), ValueError, r"curve has shape \(\)"),
        ("deletion_auc-text", lambda m, Xtr, Ytr, X, Y: E.deletion_auc(["a"]), TypeError, "must be a 1-D array of numbers"),
        ("faithfulness-n_instances", lambda m, Xtr, Ytr, X, Y: E.faithfulness(m, X, n_instances=0), ValueError, "n_instances=0"),
        ("faithfulness-methods", lambda m, Xtr, Ytr, X, Y: E.faithfulness(m, X, methods=("magnitude", "lime")), ValueError, "methods='lime'"),
        ("faithfulness-methods-empty", lambda m, Xtr, Ytr, X, Y: E.faithfulness(m, X, methods=()), ValueError, "methods is empty"),
        ("worst_case_perturbation-budget-NaN", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), np.nan), ValueError, "budget=nan"),
        ("worst_case_perturbation-budget-None", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), None), TypeError, "budget=None"),
        ("worst_case_perturbation-n_steps", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), 0.1, n_steps=-1), ValueError, "n_steps=-1"),
        ("worst_case_perturbation-h", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), 0.1, h=0), ValueError, "h=0"),
        ("worst_case_perturbation-start-NaN", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), 0.1, start=np.full(x0(X).nnz, np.nan)), ValueError, "start contains NaN"),
        ("worst_case_perturbation-start-shape", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), 0.1, start=np.ones(x0(X).nnz + 1)), ValueError, "start has"),
        ("worst_case_perturbation-noise", lambda m, Xtr, Ytr, X, Y: E.worst_case_perturbation(m, x0(X), 0.1, noise="l2"), ValueError, "noise='l2'"),
        ("attack_evaluation-sigma-None", lambda m, Xtr, Ytr, X, Y: E.attack_evaluation(m, X, Y, sigma=None), TypeError, "sigma=None"),
        ("attack_evaluation-k_values-0", lambda m, Xtr, Ytr, X, Y: E.attack_evaluation(m, X, Y, k_values=(0,)), ValueError, "k_values=0"),
        ("attack_evaluation-n_instances-0", lambda m, Xtr, Ytr, X, Y: E.attack_evaluation(m, X, Y, n_instances=0), ValueError, "n_instances=0"),
        ("attack_evaluation-n_steps-float", lambda m, Xtr, Ytr, X, Y: E.attack_evaluation(m, X, Y, n_steps=2.0), TypeError, "n_steps=2.0"),
        ("attack_evaluation-Y-rows", lambda m, Xtr, Ytr, X, Y: E.attack_evaluation(m, X, Y[:5]), ValueError, "same instances"),
        ("predict-as_csr", lambda m, Xtr, Ytr, X, Y: m.predict(X, as_csr="yes"), ValueError, "as_csr='yes'"),
        ("predict_ranked-return_proba", lambda m, Xtr, Ytr, X, Y: m.predict_ranked(X, return_proba=1), TypeError, "return_proba=1"),
        ("predict_proba-top_k-str", lambda m, Xtr, Ytr, X, Y: m.predict_proba(X, top_k="3"), TypeError, "top_k='3'"),
        ("label_proba-label", lambda m, Xtr, Ytr, X, Y: m.label_proba(X, -1), ValueError, r"label=-1: label must be an integer in \[0, 5\]"),
        ("fit-tree_structure-tuple-of-ints", lambda m, Xtr, Ytr, X, Y: ExtendedPLT(tree_structure=(1, 2, 3)).fit(Xtr, Ytr), ValueError, "tree_structure="),
    ]


CASES = _cases()


@pytest.mark.parametrize("call,err,msg", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_argument_gives_a_clear_error_naming_it(model, data, call, err, msg):
    with pytest.raises(err, match=msg): call(model, *data)


def test_numpy_numbers_and_documented_edge_results(model, data):
    "numpy integers and floats are valid arguments everywhere; edge inputs give the documented results."
    Xtr, Ytr, Xte, Yte = data
    i64 = np.int64
    a = E.adversarial_evaluation(model, Xte, Yte, np.float64(0.1), np.array([1, 3]), n_repeats=i64(2), random_state=i64(0),
                                 chunk_size=i64(50), per_k=np.bool_(False))
    b = E.adversarial_evaluation(model, Xte, Yte, 0.1, (1, 3), n_repeats=2, random_state=0, chunk_size=50)
    np.testing.assert_array_equal(a.value.values, b.value.values)
    x = Xte[[0]]
    assert E.explain(model, x, i64(2), label=i64(1), method="occlusion") == E.explain(model, x, 2, label=1, method="occlusion")
    assert E.attack_evaluation(model, Xte, Yte, n_instances=i64(3), n_steps=i64(1), k_values=np.array([1]), random_state=0).equals(
        E.attack_evaluation(model, Xte, Yte, n_instances=3, n_steps=1, k_values=[1], random_state=0))
    sev = E.seed_evaluation(ExtendedPLT(), Xtr, Ytr, Xte, Yte, train_seeds=np.arange(2), noise_levels=0, k_values=i64(1), n_repeats=i64(1))
    assert sorted(sev.train_seed.unique()) == [0, 1]
    # documented results
    lab = model.predict_ranked(x, 1)[0][0]
    np.testing.assert_allclose(E.deletion_curve(model, x, [], lab), model.label_proba(x, lab))   # nothing removed: P(l | x)
    assert E.deletion_auc([0.3]) == pytest.approx(0.3)
    one_nnz = sp.csr_matrix((np.ones(5, np.float32), np.arange(5), np.arange(6)), shape=(5, 30))
    fa = E.faithfulness(model, one_nnz, 3)                    # no row with 2 nonzeros: no rows, the usual columns
    assert fa.empty and list(fa.columns) == ["instance", "label", "method", "nnz", "p_clean", "auc"]
    zero = pd.DataFrame({"sigma": [0.0, 0.1], "value": [0.0, 0.0]})
    assert E.relative_degradation(zero)["degradation_pct"].isna().all()   # no relative drop from 0
    assert (E.add_noise(Xte, 0) != Xte).nnz == 0 and E.add_noise(Xte, 0) is not Xte


def test_beam_search_keeps_top_k_and_answers_threshold_queries(data):
    "napkinXC 0.7.2's beam search ignores top_k and fails on a threshold; ExtendedPLT keeps k and searches exactly."
    Xtr, Ytr, Xte, _ = data
    beam = ExtendedPLT(seed=0, tree_search_type="beam", beam_search_width=5).fit(Xtr, Ytr)
    exact = ExtendedPLT(seed=0).fit(Xtr, Ytr)                # the same weights: only the search differs
    assert all(len(r) == 3 for r in beam.predict_ranked(Xte, 3))
    np.testing.assert_array_equal(beam.predict(Xte), exact.predict(Xte))
    np.testing.assert_array_equal(beam.predict_proba(Xte), exact.predict_proba(Xte))
    np.testing.assert_array_equal(beam.label_proba(Xte, 2), exact.label_proba(Xte, 2))
    assert all(len(r) == 3 for r in beam.predict_ranked(Xte, 3))   # and the beam search is back afterwards


@pytest.mark.parametrize("adversarial", [False, True])
def test_random_state_alone_makes_a_fit_reproducible(adversarial):
    """scikit-learn's convention: `random_state` fixes every random choice. napkinXC's k-means tree and LIBLINEAR drew
    from their own unseeded generators when `seed` was None, so two fits with random_state=0 gave other probabilities
    (the index page's P@1 moved between 0.856 and 0.865). `seed=None` now takes napkinXC's seed from random_state."""
    ds, _ = make_label_specific(n_samples=600, n_features=30, n_labels=5, random_state=0)
    X, Y = ds.X[:400], ds.Y[:400]
    fits = [ExtendedPLT(adversarial=adversarial, random_state=0).fit(X, Y).predict_proba(ds.X[400:]) for _ in range(3)]
    for P in fits[1:]: np.testing.assert_array_equal(P, fits[0])
    if adversarial:   # another random_state: other noise, other probabilities
        other = ExtendedPLT(adversarial=True, random_state=1).fit(X, Y).predict_proba(ds.X[400:])
        assert not np.array_equal(other, fits[0])
    explicit = ExtendedPLT(adversarial=adversarial, random_state=0, seed=0).fit(X, Y).predict_proba(ds.X[400:])
    np.testing.assert_array_equal(explicit, fits[0])          # the seed it takes is random_state's integer
