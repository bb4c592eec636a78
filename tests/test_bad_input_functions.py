"""Bad input across the public functions of `mlxplain.metrics` and `mlxplain.data` (issue 42).

`tests/test_bad_input.py` does this for the estimators; this file does it for the functions. Two parts:
- the cases of issue 42, one named test each (each failed before the fix);
- a generated suite (hypothesis): for every public function, one argument at a time is replaced by a generated value
  (wrong shapes, NaN/inf, empty, wrong dtypes and containers, out-of-range numbers, None, strings, bools, huge or
  negative integers; for the readers, damaged file contents). An oracle says whether the value is valid. A valid call
  must return a well-formed result (a finite number in the measure's range, an array of the right shape, a data set
  with rows); an invalid one must raise ValueError or TypeError whose message names the argument (for a file's
  contents: the file). Documented exceptions: a path that does not exist or is a directory gives Python's own
  FileNotFoundError / IsADirectoryError. Anything else (IndexError, NaN, a crash) fails, and so does a call slower than
  the per-example deadline (a hang).
"""
import gzip, math, numbers, re, tempfile, warnings
from datetime import timedelta
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from mlxplain import data as D
from mlxplain import metrics as M
from mlxplain.checks import check_Y
from mlxplain.data import MultiLabelDataset

import sklearn.datasets, iterstrat.ml_stratifiers   # noqa: F401 -- imported now, not inside a timed example

SETTINGS = dict(deadline=timedelta(milliseconds=1500), derandomize=True, suppress_health_check=list(HealthCheck))
TMP = Path(tempfile.mkdtemp(prefix="mlxplain-bad-input-"))


def _names(msg, names):
    "Whether the message names one of `names` as a word (`Y` but not the `Y` of `Ytr`)."
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_0-9])", msg) for n in names)


def _outcome(call, names):
    "('ok', value) or ('error', exception) for a ValueError/TypeError naming one of `names`; anything else is raised."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except (ValueError, TypeError) as e:
            assert _names(str(e), names), f"{type(e).__name__} names none of {names}: {e}"
            return "error", e


# ======================================================================================================================
# Part 1: the cases of issue 42
# ======================================================================================================================
YM = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]])
SM = np.array([[2, 0, 1], [1, 2, 0], [0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1]])   # scores; also a valid ranking
N, C = YM.shape

# every metric averaged over instances, with the second argument it takes and its required extra arguments
_AVERAGED = {"hamming_loss": (YM, {}), "subset_zero_one_loss": (YM, {}), "example_f1": (YM, {}), "f1_loss": (YM, {}),
             "composite_loss": (YM, {}), "ranking_loss": (SM, {}), "one_error": (SM, {}), "coverage": (SM, {}),
             "average_precision": (SM, {}), "precision_at_k": (SM, dict(k=2)), "ndcg_at_k": (SM, dict(k=2)),
             "psdcg_at_k": (SM, dict(k=2, inv_ps=np.ones(C))), "psprecision_at_k": (SM, dict(k=2, inv_ps=np.ones(C)))}
_POOLED = {"micro_f1": (YM, {}), "macro_f1": (YM, {})}
_AT_K = {"precision_at_k", "ndcg_at_k", "psdcg_at_k", "psprecision_at_k"}


@pytest.mark.parametrize("fname", list(_AVERAGED) + list(_POOLED))
def test_metrics_on_no_rows_are_an_error_not_nan(fname):
    "Issue 42: 0 rows gave NaN. The mean over no instances is a ValueError; average=False gives the empty vector."
    A, kw = {**_AVERAGED, **_POOLED}[fname]
    f = getattr(M, fname)
    with pytest.raises(ValueError, match="no instances"):
        f(YM[:0], A[:0], **kw)
    if fname in _POOLED:                                        # pooled over the instances: none is an error
        if fname == "macro_f1":
            with pytest.raises(ValueError, match="no instances"): f(YM[:0], A[:0], average=False)
        return
    v = f(YM[:0], A[:0], average=False, **kw)
    assert isinstance(v, np.ndarray) and v.shape == (0,)
    if fname not in _AT_K:                                      # one truth row against no candidates: none
        assert f(YM[:1], A[:0], average=False, **kw).shape == (0,)


@pytest.mark.parametrize("fname", list(_AVERAGED) + list(_POOLED) + ["top_k", "inverse_propensity"])
def test_metrics_on_no_labels_are_an_error_not_nan(fname):
    "Issue 42: 0 label columns gave NaN, 1.0 or numpy's reduction error. Now a ValueError naming Y (S for top_k)."
    f = getattr(M, fname)
    if fname == "top_k":
        with pytest.raises(ValueError, match="S has 0 label columns"): f(SM[:, :0], 1)
        return
    if fname == "inverse_propensity":
        with pytest.raises(ValueError, match="Y has 0 label columns"): f(YM[:, :0])
        return
    A, kw = {**_AVERAGED, **_POOLED}[fname]
    for average in (True, False):
        kw2 = {**kw, **({} if fname == "micro_f1" else dict(average=average))}
        with pytest.raises(ValueError, match="Y has 0 label columns"):
            f(YM[:, :0], A[:, :0], **kw2)


@pytest.mark.parametrize("fname", ["example_f1", "micro_f1", "macro_f1", "average_precision"])
@pytest.mark.parametrize("z", [2, -0.5, float("nan"), float("inf")])
def test_zero_division_out_of_range_is_refused(fname, z):
    "Issue 42: example_f1(zero_division=2) returned 2.0. zero_division is an F1 or precision value, in [0, 1]."
    with pytest.raises(ValueError, match=r"zero_division=.*: zero_division must be a finite number in \[0, 1\]"):
        getattr(M, fname)(YM, YM if fname != "average_precision" else SM, zero_division=z)


def test_example_f1_zero_division_in_range_is_used():
    Z = np.zeros((2, 3))
    assert M.example_f1(Z, Z, zero_division=0.25) == 0.25 and M.example_f1(Z, Z, zero_division=1) == 1.0


def test_negative_propensities_are_refused():
    "Issue 42: negative propensities were accepted. inv_ps must be positive; A and B of Jain et al. positive."
    for bad in (-np.ones(C), np.array([1.0, 0.0, 1.0]), np.array([1.0, np.nan, 1.0])):
        for f in (M.psdcg_at_k, M.psprecision_at_k):
            with pytest.raises(ValueError, match="inv_ps must be positive finite numbers"):
                f(YM, SM, 2, bad)
    for kw, name in ((dict(A=-0.55), "A"), (dict(B=-1.5), "B"), (dict(A=0), "A"), (dict(B=float("nan")), "B")):
        with pytest.raises(ValueError, match=rf"{name}=.*: {name} must be a finite number in \(0, inf\)"):
            M.inverse_propensity(YM, "jain", **kw)


def test_jain_propensities_are_never_below_one():
    "Issue 42: Jain et al.'s formula gave negative inverse propensities for N < e; now q = 1 there, q >= 1 always."
    import napkinxc.metrics as nxm
    for n in (1, 2):
        assert (nxm.Jain_et_al_inverse_propensity(YM[:n]) < 1).all()          # the formula as napkinxc keeps it
        np.testing.assert_array_equal(M.inverse_propensity(YM[:n], "jain"), np.ones(C))
    assert (M.inverse_propensity(YM, "jain") >= 1).all()
    np.testing.assert_allclose(M.inverse_propensity(YM, "jain"), nxm.Jain_et_al_inverse_propensity(YM))   # N >= 3: same


@pytest.mark.parametrize("alpha", [float("nan"), float("inf"), -0.1, 1.5, "0.8", None])
def test_composite_loss_alpha_out_of_range(alpha):
    "Issue 42: alpha=nan returned NaN. alpha is a weight in [0, 1]."
    with pytest.raises((ValueError, TypeError), match=r"alpha=.*: alpha must be a finite number in \[0, 1\]"):
        M.composite_loss(YM, YM, alpha=alpha)


@pytest.mark.parametrize("ties", [float("nan"), -1, 2])
def test_ranking_loss_ties_out_of_range(ties):
    with pytest.raises(ValueError, match=r"ties=.*: ties must be a finite number in \[0, 1\]"):
        M.ranking_loss(YM, SM, ties=ties)


FLOAT16_METRICS = ["hamming_loss", "subset_zero_one_loss", "example_f1", "f1_loss", "micro_f1", "macro_f1",
                   "composite_loss", "ranking_loss", "one_error", "coverage", "average_precision", "precision_at_k",
                   "ndcg_at_k", "psdcg_at_k", "psprecision_at_k"]


@pytest.mark.parametrize("fname", FLOAT16_METRICS)
def test_float16_labels_are_valid_input_of_every_metric(fname):
    "Issue 42: float16 Y is valid input (scipy's sparse matrices cannot hold it): the same value as int labels."
    A, kw = {**_AVERAGED, **_POOLED}[fname]
    f = getattr(M, fname)
    assert f(YM.astype(np.float16), A.astype(np.float16), **kw) == pytest.approx(f(YM, A, **kw), abs=1e-12)


def test_float16_labels_are_valid_for_check_Y_the_data_set_and_an_estimator():
    "Issue 42: float16 Y gave scipy's 'does not support dtype float16' in check_Y, hence in every estimator's fit."
    from mlxplain.learners import BinaryRelevance
    np.testing.assert_array_equal(check_Y(YM.astype(np.float16)).toarray(), YM)
    ds = MultiLabelDataset(np.arange(18.0).reshape(6, 3), YM.astype(np.float16))
    np.testing.assert_array_equal(ds.Y_dense, YM)
    X = np.random.default_rng(0).standard_normal((6, 3))
    np.testing.assert_array_equal(BinaryRelevance().fit(X, YM.astype(np.float16)).predict(X),
                                  BinaryRelevance().fit(X, YM).predict(X))


def test_read_libsvm_multilabel_empty_file_is_an_error_not_a_phantom_row(tmp_path):
    "Issue 42: an empty file gave a 1-row data set."
    for name, raw in (("e.svm", b""), ("e.svm.gz", gzip.compress(b""))):
        (tmp_path / name).write_bytes(raw)
        with pytest.raises(ValueError, match=re.escape(f"{tmp_path / name}: the file is empty")):
            D.read_libsvm_multilabel(tmp_path / name)


def test_readers_never_return_a_data_set_without_rows(tmp_path):
    "A file with a header and no instance is an error naming the file, for every reader."
    files = {"h.arff": ("@relation x\n@attribute a numeric\n@attribute l {0,1}\n@data\n", lambda p: D.read_arff(p, n_labels=1)),
             "h.xc": ("0 3 2\n", D.read_xc), "h.tsv": ("a\tb\ttarget\n", D.read_pmlb)}
    for name, (text, read) in files.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / name))):
            read(tmp_path / name)


def test_read_pmlb_row_missing_its_target_is_an_error_naming_file_and_line(tmp_path):
    "Issue 42: a row without its target was read as label 0."
    p = tmp_path / "p.tsv"
    p.write_text("a\tb\ttarget\n1\t2\t1\n3\t4\n5\t6\t0\n")           # line 3 lacks its target
    with pytest.raises(ValueError, match=re.escape(f"{p}, line 3: the row has no value for the target column 'target'")):
        D.read_pmlb(p)
    p.write_text("a\tb\ttarget\n1\t2\t1\n\n3\t4\t\n5\t6\t0\n")       # a blank line before: line 4
    with pytest.raises(ValueError, match=re.escape(f"{p}, line 4:")):
        D.read_pmlb(p)


@pytest.mark.parametrize("reader, text", [
    (lambda p: D.read_arff(p, n_labels=1), "@relation x\n@attribute a numeric\n@attribute l {0,1}\n@data\n1,0\n2,1\n" * 20),
    (D.read_xc, "2 2 2\n0 0:1\n1 1:2\n" * 30), (D.read_libsvm_multilabel, "0 1:1\n1 2:2\n" * 40),
    (D.read_pmlb, "a\ttarget\n" + "1\t0\n2\t1\n" * 40)], ids=["arff", "xc", "libsvm", "pmlb"])
@pytest.mark.parametrize("damage", ["truncated", "corrupt", "bad header"])
def test_damaged_gz_names_the_file(tmp_path, reader, text, damage):
    "Issue 42: a damaged .gz raised gzip's error (EOFError, zlib.error, BadGzipFile) naming no file."
    raw = gzip.compress(text.encode())
    raw = {"truncated": raw[:len(raw) // 2], "corrupt": raw[:12] + bytes(b ^ 0x55 for b in raw[12:-8]) + raw[-8:],
           "bad header": raw[:2] + b"\x07" + raw[3:]}[damage]
    p = tmp_path / "d.gz"
    p.write_bytes(raw)
    with pytest.raises(ValueError, match=re.escape(f"{p}: damaged gzip file")):
        reader(p)


def test_checksum_mismatch_is_refused_with_expected_actual_and_fix(tmp_path):
    "Issue 42: a registered file whose checksum does not match was loaded with a warning; now refused before reading."
    e = next(e for e in D._REGISTRY if e["name"] == "emotions" and e["split"] == "train")
    p = tmp_path / e["file"]
    p.parent.mkdir(parents=True)
    p.write_bytes(gzip.compress(b"@relation other\n"))
    got = D._sha256(p)
    with pytest.raises(ValueError) as err:
        D.load("emotions", "train", data_home=tmp_path)
    msg = str(err.value)
    assert str(p) in msg and e["sha256"] in msg and e["url_sha256"] in msg and got in msg, msg
    assert "Delete it and load again" in msg


def test_damaged_registered_gz_is_refused_by_its_checksum(tmp_path):
    "A truncated download of a registered file: the checksum error (with the fix), not gzip's."
    e = next(e for e in D._REGISTRY if e["name"] == "emotions" and e["split"] == "train")
    p = tmp_path / e["file"]
    p.parent.mkdir(parents=True)
    p.write_bytes(gzip.compress(b"@relation x\n" * 1000)[:50])
    with pytest.raises(ValueError, match="is not the registered file of emotions"):
        D.load("emotions", "train", data_home=tmp_path)


# ---------------------------------------------------------------- bugs the generated suite below found
def test_arff_attribute_without_a_type_names_file_and_line(tmp_path):
    "An '@attribute name' line with no type raised IndexError."
    p = tmp_path / "t.arff"
    p.write_text("@relation t\n@attribute a numeric\n@attribute  numeric\n@attribute l {0,1}\n@data\n1,2,1\n")
    with pytest.raises(ValueError, match=re.escape(f"{p}, line 3: the attribute declaration")):
        D.read_arff(p, n_labels=1)


def test_sparse_arff_index_out_of_range_is_reported_before_conversion(tmp_path):
    "A sparse row whose index is out of range and whose value is not a plain number raised IndexError."
    p = tmp_path / "t.arff"
    p.write_text("@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute l {0,1}\n@data\n{0 1.5,21}\n{1 2,2 1}\n")
    with pytest.raises(ValueError, match=re.escape(f"{p}, line 6: attribute index 21 is out of range 0..2")):
        D.read_arff(p, n_labels=1)


def test_subset_of_no_rows():
    "`ds.subset([])` raised IndexError: numpy reads [] as floats."
    ds = MultiLabelDataset(np.arange(18.0).reshape(6, 3), YM)
    assert ds.subset([]).shape == (0, 3, C) and ds.subset(np.array([], int)).shape == (0, 3, C)
    with pytest.raises(ValueError, match=re.escape("idx holds a row index outside [-N, N) = [-6, 6)")):
        ds.subset([6])


def test_long_double_labels_and_scores():
    "float128 input raised numpy's 'could not be cast' TypeError inside einsum."
    L = np.longdouble
    assert M.example_f1(YM.astype(L), YM.astype(L)) == pytest.approx(1.0, abs=1e-15)
    assert M.ranking_loss(YM.astype(L), SM.astype(L)) == pytest.approx(M.ranking_loss(YM, SM), abs=1e-15)


def test_hamming_normalize_is_checked_without_weights():
    with pytest.raises(TypeError, match="normalize=-1: normalize must be True or False"):
        M.hamming_loss(YM, YM, normalize=-1)


def test_inverse_propensity_overflow_is_an_error():
    "A huge A gave inf (or Python's OverflowError) instead of an error naming it."
    Y = np.c_[YM, np.zeros(N, int)]                                 # a label never seen: (B+1)/B > 1, to the power A
    with pytest.raises(ValueError, match=re.escape("A=1e+30, B=1.5: the inverse propensities overflow")):
        M.inverse_propensity(Y, "jain", A=1e30)


def test_xc_generator_with_an_unfillable_feature_skew_is_an_error():
    "A feature_skew so large that one word holds all the background asked numpy for hundreds of GiB."
    with pytest.raises(ValueError, match=re.escape("feature_skew=1000000000000.0: background words this skewed cannot fill")):
        D.make_xc_label_specific(n_samples=40, n_features=30, n_labels=5, nnz_per_row=5, labels_per_row=2, n_relevant=2,
                                 feature_skew=1e12)


def test_generator_sizes_beyond_memory_are_an_error_naming_them():
    "Huge sizes gave numpy's 'Maximum allowed dimension exceeded', MemoryError, or a loop over 10**30 labels."
    for f, kw in ((D.make_label_specific, dict(n_samples=10**30)), (D.make_xc_label_specific, dict(n_labels=10**30)),
                  (D.make_alternative_groups, dict(n_noise=2**62))):
        with pytest.raises(ValueError, match=f"{next(iter(kw))}={next(iter(kw.values()))}.*more than this machine's memory"):
            f(**kw)


def test_read_libsvm_huge_counts_are_refused(tmp_path):
    "n_features=2**62 made scikit-learn's reader allocate for minutes; label_base=10**30 raised OverflowError."
    p = tmp_path / "t.svm"
    p.write_text("0 1:1\n1 2:1\n")
    for kw in (dict(label_base=10**30), dict(n_labels=2**62), dict(n_features=2**62)):
        name = next(iter(kw))
        with pytest.raises(ValueError, match=rf"{name}=\d+: {name} must be an integer in \[\d, 2147483647\]"):
            D.read_libsvm_multilabel(p, **kw)


# ======================================================================================================================
# Part 2: generated bad input
# ======================================================================================================================
# ---------------------------------------------------------------- arrays: (label, build(base, i, j), ok for binary
# ---------------------------------------------------------------- labels, ok for scores, shape class)
def _with(base, i, j, v):
    A = base.astype(float)
    A[i, j] = v
    return A


KINDS = [
    ("int", lambda B, i, j: B, True, True, "same"),
    ("float16", lambda B, i, j: B.astype(np.float16), True, True, "same"),
    ("float32", lambda B, i, j: B.astype(np.float32), True, True, "same"),
    ("bool", lambda B, i, j: B.astype(bool), None, True, "same"),   # None: valid when B is binary
    ("uint8", lambda B, i, j: B.astype(np.uint8), True, True, "same"),
    ("longdouble", lambda B, i, j: B.astype(np.longdouble), True, True, "same"),
    ("CSR", lambda B, i, j: sp.csr_matrix(B), True, True, "same"),
    ("csr_array", lambda B, i, j: sp.csr_array(B), True, True, "same"),
    ("COO", lambda B, i, j: sp.coo_matrix(B), True, True, "same"),
    ("list", lambda B, i, j: B.tolist(), True, True, "same"),
    ("DataFrame", lambda B, i, j: pd.DataFrame(B), True, True, "same"),
    ("object", lambda B, i, j: B.astype(object), True, True, "same"),
    ("row", lambda B, i, j: B[i:i + 1], True, True, "row"),
    ("1-D", lambda B, i, j: B[i], True, True, "row"),
    ("twos", lambda B, i, j: B * 2, False, True, "same"),
    ("half", lambda B, i, j: B * 0.5 + 0.25, False, True, "same"),
    ("negative", lambda B, i, j: B - 1, False, True, "same"),
    ("NaN", lambda B, i, j: _with(B, i, j, np.nan), False, False, "same"),
    ("inf", lambda B, i, j: _with(B, i, j, np.inf), False, True, "same"),
    ("-inf", lambda B, i, j: _with(B, i, j, -np.inf), False, True, "same"),
    ("huge", lambda B, i, j: _with(B, i, j, 1e308), False, True, "same"),
    ("NaN CSR", lambda B, i, j: sp.csr_matrix(_with(B, i, j, np.nan)), False, False, "same"),
    ("no rows", lambda B, i, j: B[:0], True, True, "rows0"),
    ("no columns", lambda B, i, j: B[:, :0], True, True, "cols0"),
    ("narrow", lambda B, i, j: B[:, :2], True, True, "narrow"),
    ("short", lambda B, i, j: B[:4], True, True, "short"),
    ("3-D", lambda B, i, j: B[None], True, True, "bad"),
    ("0-D", lambda B, i, j: np.float64(1.0), True, True, "bad"),
    ("None", lambda B, i, j: None, False, False, "bad"),
    ("str", lambda B, i, j: B.astype(str), False, False, "same"),
    ("complex", lambda B, i, j: B + 1j, False, False, "same"),
    ("datetime", lambda B, i, j: B.astype("datetime64[s]"), False, False, "same"),
    ("objects", lambda B, i, j: np.full(B.shape, None, dtype=object), False, False, "same"),
    ("ragged", lambda B, i, j: [list(r) for r in B[:-1]] + [list(B[-1][:1])], False, False, "bad"),
    ("text", lambda B, i, j: "Y", False, False, "bad"),
    ("dict", lambda B, i, j: {}, False, False, "bad"),
]


@st.composite
def matrices(draw, base):
    "(value, kind row of KINDS) built from the valid (N, C) matrix `base`."
    kind = draw(st.sampled_from(KINDS))
    i, j = draw(st.integers(0, base.shape[0] - 1)), draw(st.integers(0, base.shape[1] - 1))
    return kind[1](base, i, j), kind


# the metrics of Y and a second argument: (second argument's name and role, baseline extra kwargs, parameters with
# their kind, whether a single row is broadcast, the range of the value)
METRICS = {
    "hamming_loss": ("P", {}, {"average": "flag", "normalize": "flag", "weights": "weights"}, True, (0, 1)),
    "subset_zero_one_loss": ("P", {}, {"average": "flag"}, True, (0, 1)),
    "example_f1": ("P", {}, {"average": "flag", "zero_division": "unit"}, True, (0, 1)),
    "f1_loss": ("P", {}, {"average": "flag"}, True, (0, 1)),
    "micro_f1": ("P", {}, {"zero_division": "unit"}, False, (0, 1)),
    "macro_f1": ("P", {}, {"average": "flag", "zero_division": "unit"}, False, (0, 1)),
    "composite_loss": ("P", {}, {"average": "flag", "alpha": "unit"}, True, (0, 1)),
    "ranking_loss": ("S", {}, {"average": "flag", "ties": "unit"}, True, (0, 1)),
    "one_error": ("S", {}, {"average": "flag"}, True, (0, 1)),
    "coverage": ("S", {}, {"average": "flag", "normalize": "flag"}, True, (0, C - 1)),
    "average_precision": ("S", {}, {"average": "flag", "zero_division": "unit"}, True, (0, 1)),
    "precision_at_k": ("S", dict(k=2), {"k": "k", "average": "flag", "ranked": "flag"}, False, (0, 1)),
    "ndcg_at_k": ("S", dict(k=2), {"k": "k", "average": "flag", "ranked": "flag"}, False, (0, 1)),
    "psdcg_at_k": ("S", dict(k=2, inv_ps=np.full(C, 1.5)),
                   {"k": "k", "inv_ps": "inv_ps", "normalize": "flag", "average": "flag", "ranked": "flag"}, False, (0, 1)),
    "psprecision_at_k": ("S", dict(k=2, inv_ps=np.full(C, 1.5)),
                         {"k": "k", "inv_ps": "inv_ps", "normalize": "flag", "average": "flag", "ranked": "flag"},
                         False, (0, 1)),
}


def _array_ok(kind, role, broadcast, binary_base=True):
    "Whether a generated array of `kind` is valid as an argument of `role` ('binary' or 'scores') against (N, C)."
    label, _, ok_bin, ok_sc, shape = kind
    ok = (binary_base if ok_bin is None else ok_bin) if role == "binary" else ok_sc
    return ok and (shape == "same" or (shape == "row" and broadcast))


def _check_value(v, rng_, average=True, n=N):
    "A valid call's result: a finite number in the measure's range, or a finite vector of n per-instance values."
    lo, hi = rng_
    if average:
        assert isinstance(v, float) and math.isfinite(v) and lo - 1e-12 <= v <= hi + 1e-12, v
    else:
        assert isinstance(v, np.ndarray) and v.shape == (n,) and np.isfinite(v).all(), v


@pytest.mark.parametrize("fname", list(METRICS))
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_generated_arrays_of_every_metric(fname, data):
    "Y or the second argument replaced by a generated array: a finite value in range, or an error naming it."
    second, kw, _, broadcast, rng_ = METRICS[fname]
    which = data.draw(st.sampled_from(["Y", second]))
    base = YM if which == "Y" or second == "P" else SM
    A, kind = data.draw(matrices(base))
    role = "binary" if which in ("Y", "P") else "scores"
    ok = _array_ok(kind, role, broadcast)
    if fname in _AT_K and which == "S" and kind[0] in ("list", "ragged"):
        ok = True                       # a list S is a ranking: lists of label indices, here valid ones
    args = (A, SM if second == "S" else YM) if which == "Y" else (YM, A)
    status, out = _outcome(lambda: getattr(M, fname)(*args, **kw), [which])
    assert (status == "ok") == ok, f"{fname}({which}={kind[0]}): {status} {out!r}"
    if ok:
        _check_value(out, rng_)


# ---------------------------------------------------------------- parameters
POOL = [-1, 0, 1, 2, 3, 4, 0.5, 1.5, -0.5, 0.0, 1.0, float("nan"), float("inf"), -float("inf"), "x", "1", None, True,
        False, np.True_, np.False_, [1], (0.5,), 10**30, -(10**30), np.float64(0.25), np.int64(2), np.float16(0.5),
        1 + 0j, {}, "log", "jain"]


def _real(v): return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


PARAM_OK = {
    "flag": lambda v: isinstance(v, (bool, np.bool_)),
    "unit": lambda v: _real(v) and math.isfinite(v) and 0 <= v <= 1,
    "pos": lambda v: _real(v) and math.isfinite(v) and v > 0,
    "k": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and 1 <= v <= C,
    "method": lambda v: isinstance(v, str) and v in ("log", "jain"),
}
# array parameters: (value, ok)
WEIGHTS = [(None, True), ([1, 2, 3], True), (np.ones(C), True), ([0, 0, 1], True), (np.ones((N, C)), True),
           (np.ones((1, C)), True), ([0, 0, 0], False), ([-1, 1, 1], False), ([np.nan, 1, 1], False),
           ([np.inf, 1, 1], False), ([1, 1], False), (np.ones((2, C)), False), (np.ones((N, C, 1)), False),
           ("abc", False), (["a", "b", "c"], False), ({}, False), ([1j, 1, 1], False), (5, False)]
INV_PS = [(np.ones(C), True), ([1, 2, 3], True), ([[1, 2, 3]], True), ([0.5, 0.1, 9.0], True), ([0, 1, 1], False),
          ([-1, 1, 1], False), ([np.nan, 1, 1], False), ([np.inf, 1, 1], False), ([1, 1], False), ("abc", False),
          (None, False), ({}, False), ([1j, 1, 1], False)]


@st.composite
def parameter_values(draw, kind):
    "(value, ok) for a parameter of `kind`."
    if kind == "weights": return draw(st.sampled_from(WEIGHTS))
    if kind == "inv_ps": return draw(st.sampled_from(INV_PS))
    v = draw(st.sampled_from(POOL))
    return v, PARAM_OK[kind](v)


@pytest.mark.parametrize("fname", list(METRICS))
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_generated_parameters_of_every_metric(fname, data):
    "One parameter set to a generated value: the valid ones give a well-formed result, the others an error naming it."
    second, kw, params, _, rng_ = METRICS[fname]
    p = data.draw(st.sampled_from(sorted(params)))
    v, ok = data.draw(parameter_values(params[p]))
    status, out = _outcome(lambda: getattr(M, fname)(YM, SM if second == "S" else YM, **{**kw, p: v}), [p])
    assert (status == "ok") == ok, f"{fname}({p}={v!r}): {status} {out!r}"
    if ok:
        average = v if p == "average" else True
        normalized = not (p == "normalize" and not v)
        _check_value(out, rng_ if normalized else (0, np.inf), average, n=C if fname == "macro_f1" else N)


@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_top_k(data):
    "top_k(S, k): any 2-D numeric NaN-free S with at least k columns gives an (n, k) index array; else an error."
    if data.draw(st.booleans()):
        S, kind = data.draw(matrices(SM))
        k, k_ok = 2, True
        shape_ok = kind[4] in ("same", "row", "rows0", "narrow", "short")
        ok = kind[3] and shape_ok
        n = {"row": 1, "rows0": 0, "short": 4}.get(kind[4], N)
        names = ["S"]
    else:
        S, kind, n, names = SM, None, N, ["k"]
        k = data.draw(st.sampled_from(POOL))
        ok = PARAM_OK["k"](k)
    status, out = _outcome(lambda: M.top_k(S, k), names + ["S"])
    assert (status == "ok") == ok, f"top_k({kind and kind[0]}, k={k!r}): {status} {out!r}"
    if ok:
        assert out.shape == (n, k) and out.dtype.kind == "i" and ((out >= 0) & (out < C)).all()


@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_inverse_propensity(data):
    "inverse_propensity(Y, method, A, B): finite values >= ... for valid input, else an error naming the argument."
    which = data.draw(st.sampled_from(["Y", "method", "A", "B"]))
    kw = dict(method="jain", A=0.55, B=1.5)
    if which == "Y":
        Y, kind = data.draw(matrices(YM))
        ok = kind[2] is not False and kind[4] in ("same", "row", "short", "narrow")   # any (n >= 1, C >= 1) shape
    else:
        Y = YM
        v = data.draw(st.sampled_from(POOL))
        kw[which] = v
        ok = PARAM_OK["method" if which == "method" else "pos"](v)
    status, out = _outcome(lambda: M.inverse_propensity(Y, **kw), [which])
    assert (status == "ok") == ok, f"inverse_propensity({which}): {status} {out!r}"
    if ok:
        assert np.isfinite(out).all() and (out > 0).all()
        if kw["method"] == "jain": assert (out >= 1).all()


VECTORS = [("1-D", lambda y: y, True), ("column", lambda y: y[:, None], True), ("row", lambda y: y[None, :], True),
           ("list", lambda y: y.tolist(), True), ("bool", lambda y: y.astype(bool), True),
           ("float16", lambda y: y.astype(np.float16), True), ("CSR column", lambda y: sp.csr_matrix(y[:, None]), True),
           ("twos", lambda y: y * 2, False), ("NaN", lambda y: np.where(y == 1, np.nan, 0.0), False),
           ("empty", lambda y: y[:0], False), ("short", lambda y: y[:-1], False), ("matrix", lambda y: np.c_[y, y], False),
           ("3-D", lambda y: y[None, None], False), ("None", lambda y: None, False), ("str", lambda y: y.astype(str), False),
           ("complex", lambda y: y + 1j, False), ("dict", lambda y: {}, False)]


@settings(max_examples=60, **SETTINGS)
@given(which=st.sampled_from(["y", "yhat"]), kind=st.sampled_from(VECTORS))
def test_generated_input_of_mcc(which, kind):
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    v = kind[1](y)
    args = (v, y) if which == "y" else (y, v)
    status, out = _outcome(lambda: M.mcc(*args), [which])
    assert (status == "ok") == kind[2], f"mcc({which}={kind[0]}): {status} {out!r}"
    if kind[2]:
        assert isinstance(out, float) and -1 <= out <= 1


# ---------------------------------------------------------------- data: the data set object
XKINDS = [("float64", lambda X: X, True), ("float32", lambda X: X.astype(np.float32), True),
          ("float16", lambda X: X.astype(np.float16), True), ("int", lambda X: X.astype(int), True),
          ("bool", lambda X: X > 0, True), ("CSR", lambda X: sp.csr_matrix(X), True), ("list", lambda X: X.tolist(), True),
          ("DataFrame", lambda X: pd.DataFrame(X), True), ("object", lambda X: X.astype(object), True),
          ("1-D", lambda X: X[:, 0], True), ("no features", lambda X: X[:, :0], True),
          ("NaN", lambda X: np.where(X > 1, np.nan, X), False), ("inf", lambda X: np.where(X > 1, np.inf, X), False),
          ("NaN CSR", lambda X: sp.csr_matrix(np.where(X > 1, np.nan, X)), False),
          ("too big for float32", lambda X: X * 1e300, False), ("3-D", lambda X: X[None], False),
          ("rows", lambda X: X[:-1], False), ("None", lambda X: None, False), ("str", lambda X: X.astype(str), False),
          ("complex", lambda X: X + 1j, False), ("ragged", lambda X: [[1.0, 2.0], [1.0]] * 3, False),
          ("text", lambda X: "X", False), ("dict", lambda X: {}, False)]
_X6 = np.arange(18.0).reshape(6, 3) / 4


@settings(max_examples=120, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_the_data_set(data):
    "MultiLabelDataset(X, Y, feature_names, label_names, name, provenance): a valid data set, or an error naming the argument."
    which = data.draw(st.sampled_from(["X", "Y", "feature_names", "label_names", "provenance"]))
    kw = dict(X=_X6, Y=YM)
    if which == "X":
        kind = data.draw(st.sampled_from(XKINDS))
        kw["X"], ok = kind[1](_X6), kind[2]
    elif which == "Y":
        A, kind = data.draw(matrices(YM))
        kw["Y"] = A
        ok = kind[2] is not False and kind[4] in ("same", "narrow")   # any number of label columns but 0
    else:
        names = {"feature_names": 3, "label_names": 3}
        pool = ([None, ["a", "b", "c"], [1, 2, 3], ("x", "y", "z"), ["a"], "abc", 5, ["a", "b", "c", "d"]]
                if which != "provenance" else [None, {}, {"file": "f"}, [("a", 1)], "p", 5])
        v = data.draw(st.sampled_from(pool))
        kw[which] = v
        ok = (v is None or isinstance(v, dict)) if which == "provenance" else \
            (v is None or (not isinstance(v, (str, int)) and len(v) == names[which]))
        kind = (v,)
    status, out = _outcome(lambda: MultiLabelDataset(**kw), [which, "X", "Y"] if which in ("X", "Y") else [which])
    assert (status == "ok") == ok, f"MultiLabelDataset({which}={kind[0]!r}): {status} {out!r}"
    if ok:
        assert out.n_samples == N and out.X.dtype == np.float32 and out.Y.dtype == np.int8
        assert np.isfinite(out.X.data if out.is_sparse else out.X).all()


@settings(max_examples=60, **SETTINGS)
@given(idx=st.sampled_from([([0, 2], True), (np.array([5, -6]), True), ([], True), (slice(1, 4), True),
                            (np.ones(N, bool), True), ([0.5, 1.0], False), ([6], False), ([-7], False),
                            (np.ones(N - 1, bool), False), ([[0, 1]], False), (None, False), ("a", False), (3, False),
                            ([10**30], False)]))
def test_generated_input_of_subset(idx):
    ds = MultiLabelDataset(_X6, YM)
    status, out = _outcome(lambda: ds.subset(idx[0]), ["idx"])
    assert (status == "ok") == idx[1], f"subset({idx[0]!r}): {status} {out!r}"


# ---------------------------------------------------------------- data: readers on damaged files
GOOD_FILES = {
    "arff": (lambda p, **kw: D.read_arff(p, **{"n_labels": 2, **kw}),
             "@relation 'toy'\n@attribute a numeric\n@attribute 'b c' {x,y}\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n"
             "@data\n1.5,x,1,0\n-2,y,0,1\n% comment\n3,x,1,1\n"),
    "sparse arff": (lambda p, **kw: D.read_arff(p, **{"n_labels": 2, **kw}),
                    "@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute l1 {0,1}\n@attribute l2 {0,1}\n"
                    "@data\n{0 1.5,2 1}\n{1 2,3 1}\n{}\n"),
    "xc": (D.read_xc, "3 4 3\n0,2 0:1 3:2.5\n1 1:1\n 2:-1\n"),
    "libsvm": (D.read_libsvm_multilabel, "0,2 1:1 4:2.5\n1 2:1\n 3:-1\n"),
    "pmlb": (D.read_pmlb, "a\tb\ttarget\n1\t2.5\t1\n0\t1\t0\n3\t0\t1\n"),
}


@st.composite
def damaged(draw, text):
    "A file's bytes after a few random edits (delete, insert, replace, truncate, duplicate a line), maybe gzipped."
    b = bytearray(text.encode())
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "duplicate", "swap"]))
        i = draw(st.integers(0, max(len(b) - 1, 0)))
        ch = draw(st.sampled_from(list(b"\n\t ,{}:?%@'\"-.0123456789eNa\x00\xff")))
        if op == "delete" and b: del b[i]
        elif op == "insert": b.insert(i, ch)
        elif op == "replace" and b: b[i] = ch
        elif op == "truncate": del b[i:]
        elif op == "duplicate":
            lines = bytes(b).split(b"\n")
            k = draw(st.integers(0, len(lines) - 1))
            b = bytearray(b"\n".join(lines[:k + 1] + lines[k:]))
        elif op == "swap":
            lines = bytes(b).split(b"\n")
            draw(st.randoms()).shuffle(lines)
            b = bytearray(b"\n".join(lines))
    raw = bytes(b)
    how = draw(st.sampled_from(["plain", "gzip", "gzip cut"]))
    if how != "plain":
        raw = gzip.compress(raw)
        if how == "gzip cut": raw = raw[:draw(st.integers(0, len(raw) - 1))]
    return raw


def _check_data_set(ds):
    assert isinstance(ds, MultiLabelDataset) and ds.n_samples >= 1 and ds.n_labels >= 1
    assert np.isfinite(ds.X.data if ds.is_sparse else ds.X).all()
    assert set(np.unique(ds.Y.data)) <= {1}


@pytest.mark.parametrize("fmt", list(GOOD_FILES))
def test_good_files_read(fmt, tmp_path):
    read, text = GOOD_FILES[fmt]
    (tmp_path / "f").write_text(text)
    _check_data_set(read(tmp_path / "f"))


@pytest.mark.parametrize("fmt", list(GOOD_FILES))
@settings(max_examples=150, **SETTINGS)
@given(data=st.data())
def test_generated_damaged_files(fmt, data):
    "Randomly damaged files: a valid data set, or a ValueError that names the file; never another exception."
    read, text = GOOD_FILES[fmt]
    p = TMP / f"damaged-{fmt.replace(' ', '-')}"
    p.write_bytes(data.draw(damaged(text)))
    status, out = _outcome(lambda: read(p), [str(p)])
    if status == "ok":
        _check_data_set(out)


@pytest.mark.parametrize("fmt", list(GOOD_FILES))
@settings(max_examples=40, **SETTINGS)
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_generated_garbage_files(fmt, raw):
    read, _ = GOOD_FILES[fmt]
    p = TMP / f"garbage-{fmt.replace(' ', '-')}"
    p.write_bytes(raw)
    status, out = _outcome(lambda: read(p), [str(p)])
    if status == "ok":
        _check_data_set(out)


(TMP / "a-directory").mkdir(exist_ok=True)
PATHS = [(None, TypeError), (5, TypeError), (3.5, TypeError), (b"f.arff", TypeError), (["f"], TypeError),
         (str(TMP / "no-such-file"), FileNotFoundError), (TMP / "no-such-file.gz", FileNotFoundError),
         (TMP / "a-directory", IsADirectoryError)]


@pytest.mark.parametrize("fmt", list(GOOD_FILES))
@pytest.mark.parametrize("path, err", PATHS, ids=lambda v: repr(v).replace(str(TMP), "TMP")[:30])   # ids alike in every xdist worker
def test_bad_paths(fmt, path, err):
    "A path of the wrong type is a TypeError naming `path`; a missing file or a directory Python's own OSError."
    read, _ = GOOD_FILES[fmt]
    with pytest.raises(err) as e:
        read(path)
    assert ("path" in str(e.value)) if err is TypeError else (str(path) in str(e.value))


# reader parameters: kind per parameter, with the file it is tried on
READER_PARAMS = {
    "read_arff": ("arff", {"n_labels": "count", "labels": ("last", "first", "auto"), "missing": "missing",
                           "xml": "path"}),
    "read_libsvm_multilabel": ("libsvm", {"n_features": "count", "n_labels": "count", "feature_base": (0, 1),
                                          "label_base": "index"}),
    "read_pmlb": ("pmlb", {"target": "column"}),
}
READER_OK = {
    "count": lambda v: v is None or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                                     and 1 <= v < 2**31),
    "index": lambda v: isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and 0 <= v < 2**31,
    "missing": lambda v: (isinstance(v, str) and v == "error") or (_real(v) and math.isfinite(v)),
    "path": lambda v: v is None,
    "column": lambda v: isinstance(v, str),
}


@pytest.mark.parametrize("fname", list(READER_PARAMS))
@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_generated_reader_parameters(fname, data):
    "Reader parameters: an invalid value is an error naming it; a valid one reads the file or names it (or the file)."
    fmt, params = READER_PARAMS[fname]
    p = TMP / f"params-{fmt}"
    p.write_text(GOOD_FILES[fmt][1])
    name = data.draw(st.sampled_from(sorted(params)))
    kind = params[name]
    v = data.draw(st.sampled_from(POOL + ["error", "target", "a", "last", "first", "auto", str(TMP / "no.xml"), 2**31]))
    ok = (not isinstance(v, (bool, np.bool_)) and isinstance(v, (str, numbers.Number)) and v in kind) \
        if isinstance(kind, tuple) else READER_OK[kind](v)
    try:
        status, out = _outcome(lambda: getattr(D, fname)(p, **{name: v}), [name, str(p)])
    except (FileNotFoundError, IsADirectoryError):   # xml= a path that does not exist: open's own error
        assert kind == "path" and isinstance(v, str)
        return
    if not ok:
        assert status == "error" and _names(str(out), [name]), f"{fname}({name}={v!r}): {status} {out!r}"
    elif status == "ok":
        _check_data_set(out)


# ---------------------------------------------------------------- data: writers
DS = MultiLabelDataset(_X6, YM, name="toy")


@settings(max_examples=60, **SETTINGS)
@given(fname=st.sampled_from(["write_arff", "write_xc"]), data=st.data())
def test_generated_input_of_the_writers(fname, data):
    params = {"write_arff": {"labels": ("last", "first"), "sparse": "flag_or_none"}, "write_xc": {"header": "flag"}}[fname]
    which = data.draw(st.sampled_from(["ds", "path"] + sorted(params)))
    kw = dict(ds=DS, path=TMP / f"out-{fname}.gz")
    if which == "ds":
        v = data.draw(st.sampled_from([DS, DS.subset([]), None, _X6, "ds", {}]))
        ok = v is DS
    elif which == "path":
        v = data.draw(st.sampled_from([TMP / "w.txt", str(TMP / "w2.txt"), None, 5, b"w"]))
        ok = isinstance(v, (str, Path))
    else:
        v = data.draw(st.sampled_from(POOL + ["last", "first"]))
        kind = params[which]
        ok = (isinstance(v, str) and v in kind) if isinstance(kind, tuple) else \
            (v is None or PARAM_OK["flag"](v)) if kind == "flag_or_none" else PARAM_OK["flag"](v)
    kw[which] = v
    status, out = _outcome(lambda: getattr(D, fname)(**kw), [which])
    assert (status == "ok") == ok, f"{fname}({which}={v!r}): {status} {out!r}"
    if ok:
        back = D.read_arff(out, n_labels=C, labels=kw.get("labels", "last")) if fname == "write_arff" else \
            (D.read_xc(out) if kw.get("header", True) else D.read_libsvm_multilabel(out, n_features=3, n_labels=C))
        np.testing.assert_array_equal(back.Y_dense, YM)


# ---------------------------------------------------------------- data: registry, fetch, load, load_split
NAMES = [("emotions", True), ("EMOTIONS", True), ("sonar", True), (None, False), (5, False), (3.5, False), ("", False),
         ("emotion", False), ("no-such-set", False), (["emotions"], False), (b"emotions", False), (True, False)]
SPLITS = [(None, True), ("train", True), ("test", True), ("full", False), ("union", False), ("valid", False), (1, False),
          (True, False), (["train"], False)]
HOMES = [(None, True), (str(TMP), True), (TMP, True), (5, False), (["x"], False), (b"x", False), (True, False)]
MIRRORS = [(None, True), ("file:///no/such/mirror", True), (5, False), (["x"], False), (True, False)]
TEST_SIZES = [(0.25, True), (1 / 3, True), (2, True), (np.float64(0.5), True), (0, False), (1.0, False), (1.5, False),
              (-1, False), (float("nan"), False), ("0.3", False), (None, False), (True, False)]
SEEDS = [(0, True), (None, True), (2**32 - 1, True), (np.int64(3), True), (-1, False), (2**32, False), (1.5, False),
         ("0", False), (True, False), ([0], False)]


@pytest.fixture
def no_download(monkeypatch):
    "No network: a download attempt fails the test (every valid call below is refused before reaching one)."
    monkeypatch.delenv("MLXPLAIN_MIRROR", raising=False)
    monkeypatch.delenv("MLXPLAIN_DATA", raising=False)
    monkeypatch.setenv("MLXPLAIN_CACHE", str(TMP / "cache"))
    with mock.patch.object(D, "_download", side_effect=AssertionError("a download was attempted")):
        yield


@pytest.mark.parametrize("fname", ["fetch", "load", "load_split", "registry"])
@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_the_registry_functions(fname, data, no_download):
    "Bad names, splits, folders, mirrors, test sizes and seeds: an error naming the argument, before any download."
    pools = {"fetch": dict(name=NAMES, data_home=HOMES, split=SPLITS, mirror=MIRRORS),
             "load": dict(name=NAMES, split=SPLITS, data_home=HOMES, mirror=MIRRORS),
             "load_split": dict(name=NAMES, test_size=TEST_SIZES, random_state=SEEDS, data_home=HOMES, mirror=MIRRORS),
             "registry": dict(data_home=HOMES, files=[(v, PARAM_OK["flag"](v)) for v in POOL])}[fname]
    kw, bad = {}, []
    for arg, pool in pools.items():
        v, ok = data.draw(st.sampled_from(pool))
        if arg == "split" and v is not None and isinstance(v, str) and isinstance(kw["name"], str):
            have = {e["split"] for e in D._REGISTRY if e["name"].lower() == kw["name"].lower()}
            ok = {"full": "union"}.get(v, v) in have           # the data set's own splits
        kw[arg] = v
        if not ok: bad.append(arg)
    assume(fname == "registry" or bad)        # an all-valid fetch or load would download
    status, out = _outcome(lambda: getattr(D, fname)(**kw), bad or ["data_home"])
    assert (status == "ok") == (not bad), f"{fname}({kw}): {status} {out!r}"
    if status == "error":   # the error names the first bad argument in the order they are checked
        assert _names(str(out), bad), f"{fname}({kw}): {out}"
    else:
        assert isinstance(out, pd.DataFrame) and len(out) > 0


# ---------------------------------------------------------------- data: splits
DS20 = MultiLabelDataset(np.arange(40.0).reshape(20, 2), (np.arange(60).reshape(20, 3) % 4 == 0).astype(int))
DSES = [(DS20, True), (DS20.subset([]), False), (MultiLabelDataset(np.zeros((2, 1)), [0, 1]), False),
        (None, False), (np.zeros((20, 2)), False), ("ds", False)]


@pytest.mark.parametrize("fname", ["train_test_split", "kfold"])
@settings(max_examples=80, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_the_splits(fname, data):
    which = data.draw(st.sampled_from(["ds", "test_size" if fname == "train_test_split" else "n_splits", "random_state"]))
    kw = dict(ds=DS20, random_state=0)
    if which == "ds": v, ok = data.draw(st.sampled_from(DSES))
    elif which == "random_state": v, ok = data.draw(st.sampled_from(SEEDS))
    elif which == "test_size":
        v, ok = data.draw(st.sampled_from(TEST_SIZES + [(19, True), (20, False), (10**30, False)]))
    else:
        v = data.draw(st.sampled_from(POOL + [5, 20, 21]))
        ok = isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and 2 <= v <= 20
    kw[which] = v
    names = [which] + (["n_splits", "test_size"] if which == "ds" else [])   # a tiny ds: too few rows for the folds
    status, out = _outcome(lambda: getattr(D, fname)(**kw), names)
    assert (status == "ok") == ok, f"{fname}({which}={v!r}): {status} {out!r}"
    if ok and fname == "train_test_split":
        a, b = out
        assert a.n_samples + b.n_samples == 20 and min(a.n_samples, b.n_samples) >= 1
    elif ok:
        assert sorted(np.concatenate([t for _, t in out]).tolist()) == list(range(20))


# ---------------------------------------------------------------- data: generators
def _int_ok(low, high=10**6):
    return lambda v: isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and low <= v <= high


def _float_ok(low, high, closed="both"):
    def ok(v):
        if not (_real(v) and math.isfinite(v)): return False
        return (low <= v if closed in ("both", "left") else low < v) and (v <= high if closed in ("both", "right") else v < high)
    return ok


def _seed_ok(v):
    return v is None or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and 0 <= v < 2**32)


def _skew_ok(v):   # a huge skew leaves too few words to fill nnz_per_row: an error naming it, or data
    return None if _real(v) and math.isfinite(v) and v > 10 else _float_ok(0, np.inf)(v)


GENERATORS = {
    "make_label_specific": (dict(n_samples=40, n_features=6, n_labels=3, n_relevant=2),
                            {"n_samples": _int_ok(2), "n_features": _int_ok(2), "n_labels": _int_ok(1),
                             "n_relevant": _int_ok(1, 6), "noise": _float_ok(0, np.inf), "sparse": PARAM_OK["flag"],
                             "label_correlation": _float_ok(0, 1), "random_state": _seed_ok}),
    "make_xc_label_specific": (dict(n_samples=40, n_features=30, n_labels=5, nnz_per_row=5, labels_per_row=2,
                                    n_relevant=2),
                               {"n_samples": _int_ok(1), "n_features": _int_ok(5), "n_labels": _int_ok(2),
                                "nnz_per_row": _float_ok(0, 30, "right"), "labels_per_row": _float_ok(1, 5),
                                "n_relevant": _int_ok(1, 30), "p_relevant": _float_ok(0, 1, "right"),
                                "label_skew": _float_ok(0, np.inf), "feature_skew": _skew_ok,
                                "random_state": _seed_ok}),
    "make_alternative_groups": (dict(n_samples=40, n_noise=3),
                                {"n_samples": _int_ok(2), "n_groups": _int_ok(1), "group_size": _int_ok(1),
                                 "n_noise": _int_ok(0), "noise": _float_ok(0, 0.5, "left"), "random_state": _seed_ok}),
}


@pytest.mark.parametrize("fname", list(GENERATORS))
@settings(max_examples=120, **SETTINGS)
@given(data=st.data())
def test_generated_input_of_the_generators(fname, data):
    "One parameter of a generator set to a generated value (huge sizes included): data, or an error naming it."
    base, params = GENERATORS[fname]
    p = data.draw(st.sampled_from(sorted(params)))
    v = data.draw(st.sampled_from(POOL + [10**12, 2**62, 2**40 + 1, 100, 7, 0.3, 0.49, 0.5]))
    ok = params[p](v)
    status, out = _outcome(lambda: getattr(D, fname)(**{**base, p: v}), [p])
    assert ok is None or (status == "ok") == ok, f"{fname}({p}={v!r}): {status} {out!r}"
    if ok and fname == "make_alternative_groups":
        X, y, groups = out
        assert np.isfinite(X).all() and set(np.unique(y)) <= {0, 1} and X.shape[0] == len(y)
    elif ok:
        _check_data_set(out[0])
