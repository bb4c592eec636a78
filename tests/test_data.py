"""mlxplain.data: every staged data set loads with the documented shape; readers on bad input; round trips."""
import csv
import gzip
import hashlib
import os
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

from mlxplain import data as D
from mlxplain.data import (_REGISTRY, MultiLabelDataset, load, load_split, read_arff, read_libsvm_multilabel, read_pmlb,
                           read_xc, registry, train_test_split, kfold, write_arff, write_xc)


# ---------------------------------------------------------------- every manifest row loads
def _manifest_rows():
    "Rows of $MLXPLAIN_DATA/MANIFEST.tsv (empty when unset: the tests are then skipped by `data_home`)."
    d = os.environ.get("MLXPLAIN_DATA")
    m = Path(d) / "MANIFEST.tsv" if d else None
    if not m or not m.is_file():
        return [pytest.param(None, id="no-MLXPLAIN_DATA")]
    rows = list(csv.DictReader(open(m), delimiter="\t"))
    return [pytest.param(r, id=r["file"]) for r in rows]


def _reg_name(r):
    return r["dataset"] + ("-xc" if r["file"].startswith("xc/") else "")


def _reg_split(r):
    return {"full": "union"}.get(r["split"], r["split"])


@pytest.mark.parametrize("row", _manifest_rows())
def test_manifest_row_loads_with_documented_shape(row, data_home):
    if row is None:
        pytest.skip("staged data not available: no MANIFEST.tsv in MLXPLAIN_DATA (point it at the staged data)")
    ds = load(_reg_name(row), _reg_split(row), data_home=data_home)
    n, d, c = int(row["n"]), int(row["d"]), int(row["c"])
    assert ds.shape == (n, d, 1 if row["kind"] == "binary" else c)
    assert ds.X.dtype == np.float32 and ds.Y.dtype == np.int8 and sp.isspmatrix_csr(ds.Y)
    assert ds.provenance["verified"] and ds.provenance["sha256"] == row["sha256"]
    m = re.search(r"label cardinality ([0-9.]+)", row["notes"])
    if m:
        assert ds.cardinality == pytest.approx(float(m.group(1)), abs=1e-3)
    if "sparse ARFF" in row["notes"]:
        assert ds.is_sparse
    if row["kind"] == "binary":
        assert set(np.unique(ds.y)) == {0, 1}


@pytest.mark.parametrize("row", _manifest_rows())
def test_registry_matches_manifest(row):
    if row is None:
        pytest.skip("staged data not available: no MANIFEST.tsv in MLXPLAIN_DATA (point it at the staged data)")
    e = [e for e in D._REGISTRY if e["file"] == row["file"]]
    assert len(e) == 1
    e = e[0]
    assert (e["name"], e["split"], e["n"], e["d"], e["c"], e["sha256"]) == \
        (_reg_name(row), _reg_split(row), int(row["n"]), int(row["d"]), int(row["c"]), row["sha256"])
    if e["format"] == "arff":
        assert e["labels"] == row["label_position"]


def test_registry_table(data_home):
    reg = registry(data_home=data_home)
    assert reg.name.is_unique
    assert {"name", "kind", "n", "d", "c", "splits", "url", "available"} <= set(reg.columns)
    staged = reg[~reg.name.isin(["Eurlex-4K", "mediamill"])]
    assert staged.available.all()
    assert not reg.set_index("name").loc[["Eurlex-4K", "mediamill"], "available"].any()
    assert set(reg.kind) == {"multilabel", "binary", "xmlc"}


def test_split_none_stacks_train_and_test(data_home):
    ds = load("yeast-xc", data_home=data_home)
    assert ds.shape == (2417, 103, 14)
    assert ds.provenance["split"] == "train+test"


def test_load_split_official_and_stratified(data_home):
    tr, te = load_split("emotions", data_home=data_home)
    assert (tr.n_samples, te.n_samples) == (391, 202)
    a, b = load_split("CAL500", data_home=data_home, random_state=3)
    a2, b2 = load_split("CAL500", data_home=data_home, random_state=3)
    assert a.n_samples + b.n_samples == 502 and abs(b.n_samples - 502 / 3) <= 0.03 * 502  # iterative stratification: about 1/3
    assert (a.Y != a2.Y).nnz == 0
    tr, te = load_split("sonar", data_home=data_home)
    assert abs(tr.y.mean() - te.y.mean()) < 0.02


# ---------------------------------------------------------------- bad input
def test_unknown_name_lists_close_matches():
    with pytest.raises(ValueError, match="did you mean 'emotions'"):
        load("emotion")
    with pytest.raises(ValueError, match="unknown data set"):
        load("no-such-thing-at-all")


def test_a_file_failing_its_checksum_is_refused(tmp_path, data_home):
    "Issue 42: a local file whose checksum matches no registered one is refused (not loaded with a warning)."
    (tmp_path / "multilabel").mkdir()
    src = gzip.open(data_home / "multilabel/flags-test.arff.gz").read()
    (tmp_path / "multilabel/flags-train.arff").write_bytes(src)  # the test file where the train file should be
    e = next(e for e in _REGISTRY if e["name"] == "flags" and e["split"] == "train")
    got = hashlib.sha256(src).hexdigest()
    with pytest.raises(ValueError, match=re.escape(f"flags-train.arff is not the registered file of flags (train): "
                                                   f"expected sha256 {e['url_sha256']}, got {got}")) as err:
        load("flags", "train", data_home=tmp_path)
    assert "Delete it and load again" in str(err.value)


def test_shape_mismatch_is_reported(tmp_path, data_home):
    "An uncompressed copy whose content has no registered checksum is loaded unverified (a warning); its shape is checked."
    (tmp_path / "multilabel").mkdir()
    text = gzip.open(data_home / "multilabel/scene.arff.gz").read().decode()
    head, body = text.split("@data", 1)
    (tmp_path / "multilabel/scene.arff").write_text(head + "@data" + "\n".join(body.split("\n")[:101]) + "\n")
    with pytest.warns(UserWarning, match="loaded unverified"), \
            pytest.raises(ValueError, match=r"registry expects \(2407, 294, 6\)"):
        load("scene", data_home=tmp_path)


def _toy(tmp_path, body, header="@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute l {0,1}\n@data\n"):
    p = tmp_path / "t.arff"
    p.write_text(header + body)
    return p


def test_corrupt_arff_line_names_file_and_line(tmp_path):
    p = _toy(tmp_path, "1,2,1\n1,2\n")
    with pytest.raises(ValueError, match=r"t\.arff, line 7: expected 3"):
        read_arff(p, n_labels=1)
    p = _toy(tmp_path, "1,2,1\n\n1,x,0\n")
    with pytest.raises(ValueError, match=r"line 8: value 'x' for attribute 'b'"):
        read_arff(p, n_labels=1)
    p = _toy(tmp_path, "{0 1,2 1}\n{0 1 2}\n")
    with pytest.raises(ValueError, match=r"line 7: a sparse row needs"):
        read_arff(p, n_labels=1)
    p = _toy(tmp_path, "{0 1,2 1}\n1,2,1\n")
    with pytest.raises(ValueError, match=r"line 7: expected a sparse row"):
        read_arff(p, n_labels=1)


def test_gzip_corrupt_line(tmp_path):
    p = tmp_path / "t.arff.gz"
    with gzip.open(p, "wt") as f:
        f.write("@relation t\n@attribute a numeric\n@attribute l {0,1}\n@data\n1,0\n2,1\n3,0,1\n")
    with pytest.raises(ValueError, match=r"t\.arff\.gz, line 7"):
        read_arff(p, n_labels=1)


def test_wrong_label_count(tmp_path):
    p = _toy(tmp_path, "1,2,1\n0.5,3,0\n")
    with pytest.raises(ValueError, match="non-binary"):   # a numeric feature taken as a label
        read_arff(p, n_labels=2)
    with pytest.raises(ValueError, match="wrong label count"):
        read_arff(p, n_labels=3)
    with pytest.raises(ValueError, match="number of labels is unknown"):
        read_arff(p)
    q = tmp_path / "x.txt"
    q.write_text("2 2 2\n0,2 0:1\n1 1:1\n")
    with pytest.raises(ValueError, match="wrong label count"):
        read_xc(q)


def test_missing_values(tmp_path):
    p = _toy(tmp_path, "1,?,1\n")
    with pytest.raises(ValueError, match="line 6: missing value"):
        read_arff(p, n_labels=1)
    assert read_arff(p, n_labels=1, missing=-1).X[0, 1] == -1


def test_nan_and_nonbinary_rejected(tmp_path):
    with pytest.raises(ValueError, match="NaN"):
        MultiLabelDataset(np.array([[np.nan]]), [[1]])
    with pytest.raises(ValueError, match="infinite"):
        MultiLabelDataset(sp.csr_matrix(np.array([[np.inf]])), [[1]])
    with pytest.raises(ValueError, match="binary"):
        MultiLabelDataset(np.zeros((2, 1)), [[1], [3]])
    with pytest.raises(ValueError, match="rows"):
        MultiLabelDataset(np.zeros((2, 1)), [[1]])
    p = _toy(tmp_path, "nan,1,1\n")
    with pytest.raises(ValueError, match="NaN"):
        read_arff(p, n_labels=1)
    p = _toy(tmp_path, "1,1,2\n", header="@relation t\n@attribute a numeric\n@attribute b numeric\n"
                                        "@attribute l {0,1,2}\n@data\n")
    with pytest.raises(ValueError, match="line 6: label attribute 'l' has the non-binary value 2"):
        read_arff(p, n_labels=1)


def test_unsupported_attribute_type(tmp_path):
    p = _toy(tmp_path, "x,1\n", header="@relation t\n@attribute s string\n@attribute l {0,1}\n@data\n")
    with pytest.raises(ValueError, match="line 2: attribute 's' has type 'string'"):
        read_arff(p, n_labels=1)


def test_meka_negative_C_means_last(tmp_path):
    p = _toy(tmp_path, "1,2,1\n", header="@relation 't: -C -1'\n@attribute a numeric\n@attribute b numeric\n"
                                        "@attribute l {0,1}\n@data\n")
    ds = read_arff(p, labels="auto")
    assert ds.label_names == ["l"] and ds.feature_names == ["a", "b"]


def test_libsvm_and_pmlb_small(tmp_path):
    p = tmp_path / "y.txt.gz"
    with gzip.open(p, "wt") as f:
        f.write("0,2 1:0.5 3:1\n 2:1\n1 1:2\n")
    ds = read_libsvm_multilabel(p)
    assert ds.shape == (3, 3, 3)
    np.testing.assert_array_equal(ds.X.toarray(), [[0.5, 0, 1], [0, 1, 0], [2, 0, 0]])
    np.testing.assert_array_equal(ds.Y_dense, [[1, 0, 1], [0, 0, 0], [0, 1, 0]])
    q = tmp_path / "p.tsv"
    q.write_text("a\tb\ttarget\n1\tx\t0\n")
    with pytest.raises(ValueError, match="non-numeric"):
        read_pmlb(q)


def test_real_readers_directly(data_home):
    ds = read_arff(data_home / "multilabel/emotions-train.arff.gz")   # labels from emotions.xml next to it
    assert ds.shape == (391, 72, 6) and ds.label_names[0] == "amazed-suprised"
    ds = read_arff(data_home / "multilabel/scene.arff.gz", labels="auto")
    assert ds.shape == (2407, 294, 6)
    ds = read_libsvm_multilabel(data_home / "xc/yeast-test.txt.gz")
    assert ds.shape == (917, 103, 14)
    ds = read_pmlb(data_home / "pmlb/hepatitis.tsv.gz")
    assert ds.y.sum() == 123  # classes 1:32, 2:123 -> 2 coded 1


# ---------------------------------------------------------------- dataset object, splits
def test_dataset_object():
    ds, rel = D.make_label_specific(n_samples=200, n_features=20, n_labels=4, random_state=0)
    assert "N=200" in repr(ds) and "dense" in repr(ds)
    s = ds.summary()
    assert s["n_labels"] == 4 and 0 < s["label_density"] < 1
    sub = ds.subset(np.arange(10))
    assert sub.n_samples == 10 and sub.label_names == ds.label_names
    dsp, _ = D.make_label_specific(n_samples=200, n_features=20, n_labels=4, sparse=True, random_state=0)
    assert dsp.is_sparse and "sparse" in repr(dsp) and not dsp.dense().is_sparse


def test_splits_deterministic_and_stratified():
    ds, _ = D.make_label_specific(n_samples=600, n_labels=6, random_state=1)
    a, b = train_test_split(ds, 0.25, random_state=5)
    a2, b2 = train_test_split(ds, 0.25, random_state=5)
    assert (a.Y != a2.Y).nnz == 0 and b.n_samples == 150
    np.testing.assert_allclose(a.Y_dense.mean(0), b.Y_dense.mean(0), atol=0.03)
    folds = kfold(ds, 4, random_state=0)
    assert len(folds) == 4
    allte = np.sort(np.concatenate([te for _, te in folds]))
    np.testing.assert_array_equal(allte, np.arange(600))
    for tr, te in folds:
        assert len(np.intersect1d(tr, te)) == 0
    with pytest.raises(ValueError, match="test_size"):
        train_test_split(ds, 1.5)


# ---------------------------------------------------------------- generators' ground truth
def test_alternative_groups_equally_predictive():
    from sklearn.model_selection import cross_val_score
    from sklearn.tree import DecisionTreeClassifier
    X, y, groups = D.make_alternative_groups(n_samples=1200, n_groups=4, group_size=3, n_noise=8, random_state=2)
    assert X.shape == (1200, 20) and len(np.unique(np.concatenate(groups))) == 12
    acc = [cross_val_score(DecisionTreeClassifier(max_depth=3, random_state=0), X[:, g], y, cv=4).mean()
           for g in groups]
    assert max(acc) - min(acc) < 0.05 and min(acc) > 0.75
    noise = np.setdiff1d(np.arange(20), np.concatenate(groups))
    assert cross_val_score(DecisionTreeClassifier(max_depth=3, random_state=0), X[:, noise], y, cv=4).mean() < 0.6


def test_label_specific_ground_truth():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score
    ds, rel = D.make_label_specific(n_samples=800, n_features=40, n_labels=4, n_relevant=2, noise=0.05,
                                    random_state=3)
    Y = ds.Y_dense
    for j in range(4):
        assert len(rel[j]) == 2
        own = cross_val_score(LogisticRegression(max_iter=500), ds.X[:, rel[j]], Y[:, j], cv=3).mean()
        assert own > 0.93


# ---------------------------------------------------------------- hypothesis round trips
names = st.text(alphabet="ab Z9_-'\\,%{}\"", min_size=1, max_size=6)


@st.composite
def datasets(draw, sparse):
    n = draw(st.integers(1, 6))
    d = draw(st.integers(1, 5))
    c = draw(st.integers(1, 4))
    vals = st.floats(-1e6, 1e6, allow_nan=False, width=32) | st.just(0.0)
    X = np.array(draw(st.lists(st.lists(vals, min_size=d, max_size=d), min_size=n, max_size=n)), np.float32)
    Y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=c, max_size=c), min_size=n, max_size=n)))
    fn = draw(st.lists(names, min_size=d, max_size=d, unique=True))
    ln = draw(st.lists(names.filter(lambda s: s not in fn), min_size=c, max_size=c, unique=True))
    return MultiLabelDataset(sp.csr_matrix(X) if sparse else X, Y, fn, ln, name="rt")


def _same(a, b):
    np.testing.assert_array_equal(sp.csr_matrix(a.X).toarray(), sp.csr_matrix(b.X).toarray())
    np.testing.assert_array_equal(a.Y_dense, b.Y_dense)


HS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@HS
@given(ds=datasets(False), pos=st.sampled_from(["last", "first"]), gz=st.booleans())
def test_arff_dense_round_trip(tmp_path, ds, pos, gz):
    p = write_arff(ds, tmp_path / ("d.arff" + (".gz" if gz else "")), labels=pos)
    back = read_arff(p, n_labels=ds.n_labels, labels=pos)
    _same(ds, back)
    assert back.feature_names == ds.feature_names and back.label_names == ds.label_names and not back.is_sparse


@HS
@given(ds=datasets(True), gz=st.booleans())
def test_arff_sparse_round_trip(tmp_path, ds, gz):
    p = write_arff(ds, tmp_path / ("s.arff" + (".gz" if gz else "")), labels="first")
    back = read_arff(p, labels="auto")
    _same(ds, back)
    assert back.is_sparse and back.label_names == ds.label_names


@HS
@given(ds=datasets(True), gz=st.booleans())
def test_xc_and_libsvm_round_trip(tmp_path, ds, gz):
    sfx = ".gz" if gz else ""
    _same(ds, read_xc(write_xc(ds, tmp_path / ("x.txt" + sfx))))
    back = read_libsvm_multilabel(write_xc(ds, tmp_path / ("l.txt" + sfx), header=False),
                                  n_features=ds.n_features, n_labels=ds.n_labels)
    _same(ds, back)


# ---------------------------------------------------------------- cross-check with a peer reader
@pytest.mark.parametrize("f,C,sparse", [("emotions-train", 6, False), ("medical-train", 45, True),
                                        ("genbase-test", 27, False), ("enron-test", 53, True)])
def test_arff_agrees_with_scikit_multilearn(f, C, sparse, data_home, tmp_path):
    skm = pytest.importorskip("skmultilearn.dataset")
    plain = tmp_path / f"{f}.arff"
    plain.write_bytes(gzip.decompress((data_home / "multilabel" / f"{f}.arff.gz").read_bytes()))
    Xp, Yp = skm.load_from_arff(str(plain), label_count=C, label_location="end", load_sparse=sparse)
    ds = read_arff(data_home / "multilabel" / f"{f}.arff.gz", n_labels=C)
    assert ds.is_sparse == sparse
    np.testing.assert_allclose(sp.csr_matrix(ds.X).toarray(), Xp.toarray().astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(ds.Y_dense, Yp.toarray())


def test_make_xc_label_specific_shape_sparsity_seed():
    ds, rel = D.make_xc_label_specific(n_samples=3000, n_features=500, n_labels=20, nnz_per_row=40, labels_per_row=3,
                                       n_relevant=4, random_state=0)
    assert (ds.n_samples, ds.n_features, ds.n_labels) == (3000, 500, 20) and ds.is_sparse
    assert abs(ds.X.nnz / 3000 - 40) < 4 and abs(ds.cardinality - 3) < 0.3
    assert [len(r) for r in rel] == [4] * 20 and all(np.all(np.diff(r) > 0) for r in rel)
    again, rel2 = D.make_xc_label_specific(n_samples=3000, n_features=500, n_labels=20, nnz_per_row=40,
                                           labels_per_row=3, n_relevant=4, random_state=0)
    assert (again.X != ds.X).nnz == 0 and (again.Y != ds.Y).nnz == 0 and all(np.array_equal(a, b) for a, b in zip(rel, rel2))
    other, _ = D.make_xc_label_specific(n_samples=3000, n_features=500, n_labels=20, nnz_per_row=40,
                                        labels_per_row=3, n_relevant=4, random_state=1)
    assert (other.X != ds.X).nnz > 0
    Xb, Yd = (ds.X > 0).toarray(), ds.Y_dense.astype(bool)
    for j in range(20):   # planted features are far more frequent among the label's positives than its negatives
        lift = Xb[Yd[:, j]][:, rel[j]].mean(0) - Xb[~Yd[:, j]][:, rel[j]].mean(0)
        assert lift.min() > 0.3, (j, lift)


@pytest.mark.parametrize("kw,msg", [(dict(n_relevant=0), "n_relevant=0"), (dict(labels_per_row=0.5), "labels_per_row"),
                                    (dict(nnz_per_row=0), "nnz_per_row=0"), (dict(p_relevant=0), "p_relevant=0")])
def test_make_xc_label_specific_bad_parameters(kw, msg):
    with pytest.raises(ValueError, match=msg):
        D.make_xc_label_specific(n_samples=50, n_features=40, n_labels=5, **{"nnz_per_row": 5, "labels_per_row": 2, **kw})
