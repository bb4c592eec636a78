"""Shared validators: properties over generated inputs (hypothesis) and the error messages of bad input."""
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from mlxplain.checks import (check_bool, check_choice, check_float, check_int, check_k, check_random_state, check_X,
                             check_Y)

F32_MAX = float(np.finfo(np.float32).max)
shapes = st.tuples(st.integers(1, 6), st.integers(1, 6))
finite = st.floats(-1e30, 1e30, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.float64, s, elements=finite)))
def test_check_X_keeps_finite_values_dense_and_sparse(X):
    A = check_X(X)
    assert A.dtype == np.float64 and np.array_equal(A, X)
    S = check_X(sp.csr_matrix(X), dtype=np.float32)
    assert sp.isspmatrix_csr(S) and S.dtype == np.float32
    np.testing.assert_array_equal(S.toarray(), X.astype(np.float32))


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.float64, s, elements=finite)), st.data(),
       st.sampled_from([np.nan, np.inf, -np.inf]))
def test_check_X_rejects_any_non_finite_entry(X, data, bad):
    i = data.draw(st.integers(0, X.shape[0] - 1))
    j = data.draw(st.integers(0, X.shape[1] - 1))
    X[i, j] = bad
    with pytest.raises(ValueError, match=rf"NaN or infinite values \(first at row {i}, column"):
        check_X(X)
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_X(sp.csr_matrix(X))


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.float64, s, elements=st.floats(-1e37, 1e37))), st.data(),
       st.floats(1e39, 1e300), st.booleans())
def test_check_X_float32_overflow_is_an_error_not_inf(X, data, big, sparse):
    check_X(X, dtype=np.float32)                                   # every value fits float32
    X[data.draw(st.integers(0, X.shape[0] - 1)), data.draw(st.integers(0, X.shape[1] - 1))] = -big
    with pytest.raises(ValueError, match="too large for float32"):
        check_X(sp.csr_matrix(X) if sparse else X, dtype=np.float32)
    assert np.isfinite(check_X(X)).all()                           # float64 holds it


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.int8, s, elements=st.integers(0, 1))))
def test_check_Y_dense_and_sparse_agree(Y):
    a, b = check_Y(Y, Y.shape[0]), check_Y(sp.coo_matrix(Y))
    for M in (a, b):
        assert sp.isspmatrix_csr(M) and M.dtype == np.int8 and M.has_sorted_indices
        assert np.all(M.data == 1)
    np.testing.assert_array_equal(a.toarray(), Y)
    np.testing.assert_array_equal(b.toarray(), Y)


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.int64, s, elements=st.integers(-3, 3))))
def test_check_Y_accepts_exactly_binary(Y):
    if np.isin(Y, (0, 1)).all(): check_Y(Y)
    else:
        with pytest.raises(ValueError, match="must be binary"): check_Y(Y)


LABEL_DTYPES = [np.float16, np.float32, np.float64, np.longdouble, np.int8, np.int16, np.int32, np.int64, np.uint8,
                np.uint16, np.uint32, np.uint64, np.bool_]


@settings(max_examples=60, deadline=None)
@given(shapes.flatmap(lambda s: arrays(np.int8, s, elements=st.integers(0, 1))), st.sampled_from(LABEL_DTYPES),
       st.booleans())
def test_check_Y_accepts_every_real_and_bool_dtype(Y, dtype, sparse):
    "0/1 labels of any real or bool dtype, dense or sparse, come back as the same int8 CSR (float16 too: issue 42)."
    A = Y.astype(dtype)
    if sparse: A = sp.csr_matrix(A.astype(np.float32) if dtype == np.float16 else A)   # scipy holds no float16
    M = check_Y(A)
    assert sp.isspmatrix_csr(M) and M.dtype == np.int8
    np.testing.assert_array_equal(M.toarray(), Y)


def test_check_Y_float16_is_not_refused_with_scipys_message():
    Y = np.array([[1, 0], [0, 1]], np.float16)
    np.testing.assert_array_equal(check_Y(Y).toarray(), Y)
    with pytest.raises(ValueError, match="must be binary"): check_Y(Y * 2)


def test_check_bool():
    assert check_bool("average", True) is True and check_bool("average", np.False_) is False
    for v in (1, 0, "yes", None, 1.0, [True]):
        with pytest.raises(TypeError, match=re.escape(f"average={v!r}: average must be True or False")):
            check_bool("average", v)


def test_checks_import_no_scikit_learn():
    "data and metrics import the checks at the top; scikit-learn (~2 s) is imported only by the two checks that use it."
    import subprocess, sys
    code = "import sys, mlxplain.checks, mlxplain.data, mlxplain.metrics; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr[-2000:]


@given(st.lists(st.lists(st.integers(0, 9), max_size=4), min_size=2, max_size=6)
       .filter(lambda rows: len({len(r) for r in rows}) > 1))
def test_check_Y_label_lists_point_to_the_binarizer(rows):
    with pytest.raises(ValueError, match="MultiLabelBinarizer"): check_Y(rows)


@given(st.integers(1, 500), st.data())
def test_check_k_counts_and_fractions(D, data):
    n = data.draw(st.integers(1, D))
    assert check_k(n, D) == n
    f = data.draw(st.floats(0, 1, exclude_min=True))
    assert 1 <= check_k(f, D) <= D
    assert check_k(1.0, D) == D
    bad = data.draw(st.one_of(st.integers(max_value=0), st.integers(min_value=D + 1),
                              st.floats(max_value=0), st.floats(min_value=1, exclude_min=True), st.just(np.nan)))
    with pytest.raises(ValueError, match=rf"or an integer in \[1, D={D}\]"): check_k(bad, D)


@given(st.integers(-5, 5), st.integers(-5, 5), st.integers(-20, 20))
def test_check_int_range(low, span, v):
    high = low + abs(span)
    if low <= v <= high: assert check_int("n", v, low, high) == v
    else:
        with pytest.raises(ValueError, match=rf"n={v}: n must be an integer in \[{low}, {high}\]"):
            check_int("n", v, low, high)


@given(st.floats(allow_nan=True), st.sampled_from(["both", "left", "right", "neither"]))
def test_check_float_range(v, closed):
    inside = not np.isnan(v) and np.isfinite(v) and (0 <= v if closed in ("both", "left") else 0 < v) \
        and (v <= 1 if closed in ("both", "right") else v < 1)
    if inside: assert check_float("p", v, 0, 1, closed=closed) == v
    else:
        with pytest.raises(ValueError, match="p=.*: p must be a finite number in"):
            check_float("p", v, 0, 1, closed=closed)


@pytest.mark.parametrize("f", [lambda v: check_int("n", v), lambda v: check_float("x", v),
                               lambda v: check_k(v, 10)])
def test_bools_are_not_numbers(f):
    for v in (True, False, np.True_):
        with pytest.raises(TypeError): f(v)


def test_choice_and_random_state():
    assert check_choice("method", "GW", ("GW", "SW")) == "GW"
    with pytest.raises(ValueError, match=r"method='gw': method must be one of 'GW', 'SW'"):
        check_choice("method", "gw", ("GW", "SW"))
    assert check_random_state(3).randint(100) == np.random.RandomState(3).randint(100)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.booleans())
def test_check_X_shape_limits(n, d, sparse):
    "Too few rows or columns, or a column count other than the one seen in fit, is an error naming X."
    X = np.ones((n, d))
    X = sp.csr_matrix(X) if sparse else X
    if n >= 2 and d >= 1:
        assert check_X(X, min_samples=2).shape == (n, d)
    else:
        with pytest.raises(ValueError, match=r"X has \d+ (samples|feature)"):
            check_X(X, min_samples=2)
    if n >= 1 and d >= 1:
        with pytest.raises(ValueError, match=f"X has {d} features, but the estimator is expecting {d + 1} features"):
            check_X(X, n_features=d + 1)
