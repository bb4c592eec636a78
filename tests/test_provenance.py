"""Provenance of the committed results (nbs/results/<chapter>/): every row of a part's results file names the code
version and the run that computed it, meta.json names each of those versions and runs, one code version per file,
and no meta.json points into a temporary folder (gone once the run ends, so the record would lead nowhere)."""
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from mlxplain.experiments import read_meta

RESULTS = Path(__file__).resolve().parents[1] / "nbs" / "results"
CHAPTERS = sorted(p.name for p in RESULTS.iterdir() if p.is_dir())


def _part_files(chapter) -> dict:
    "{part: file names} of the tidy per-run tables a chapter's `reproduce` writes (summaries derive from them)."
    if chapter == "fals":
        from mlxplain.repro.fals import PART_FILES
        return {p: list(f) for p, f in PART_FILES.items()}
    if chapter == "extended_plt":
        from mlxplain.repro.extended_plt import PART_FILES
        return {p: list(f) for p, f in PART_FILES.items()}
    if chapter == "prakel":
        from mlxplain.repro.prakel import _RUN_FILES
        return {p: [f] for p, f in _RUN_FILES.items()}
    if chapter == "alternatives":
        from mlxplain.repro.alternatives import PARTS, _file
        return {p: [_file("records", p)] for p in PARTS}
    raise KeyError(f"{chapter}: a results folder of no known chapter; add its part files here")


def _present(chapter) -> list:
    "(part, file) pairs of the chapter whose file is committed."
    return [(p, f) for p, fs in _part_files(chapter).items() for f in fs if (RESULTS / chapter / f).exists()]


def _names(v) -> set:
    "The versions meta.json gives for a part: one string or a list of them."
    return {v} if isinstance(v, str) else set(v or [])


# The committed folders that cannot pass without a rerun (or an archaeology not yet done), and why.
NOT_YET: dict = {}   # chapter -> why: none at present
# Files that hold rows of several code versions: they pass once their part is rerun in one call.
MIXED = {
    ("fals", "table3.csv"): "units 1-2 of imdb and tmc2007-500 were added by code version 948288bd11ab and units 1-2 of "
                            "delicious by 650cffd690fd, the other rows are e58b4c40c258's; verify_table3 recomputes rows "
                            "of the older two (emotions unit 1, tmc2007-500 unit 2) identically with the current code "
                            "(test_verify_table3_recomputes_the_unit_of_its_seed)",
    ("alternatives", "records_paper.csv"): "the paper design's slice: fold 0 ran under code version 4510af3c2ab1, "
                                           "folds 1-2 under b2c2f56682f4, folds 3-4 under d62ab2a8a7ea; the current code "
                                           "recomputes a unit of each identically "
                                           "(test_the_slices_older_rows_are_what_the_current_code_computes)",
}


def _marked(chapter, extra=None):
    reason = NOT_YET.get(chapter) or extra
    return pytest.param(chapter, marks=pytest.mark.xfail(strict=True, reason=reason)) if reason else chapter


def _temporary(s: str) -> bool:
    "A path into a temporary folder: a component tmp/temp (any case) or a tempfile/pytest name."
    if "/" not in s and "\\" not in s: return False
    parts = [p.lower() for p in re.split(r"[\\/]+", s)]
    return any(p in ("tmp", "temp") or re.fullmatch(r"tmp[a-z0-9_]{6,}", p)
               or p.startswith("pytest-of-") for p in parts)


def _strings(o):
    if isinstance(o, str): yield o
    elif isinstance(o, dict):
        for k, v in o.items(): yield str(k); yield from _strings(v)
    elif isinstance(o, list):
        for v in o: yield from _strings(v)


def test_temporary_path_detector():
    for s in ("../../../../../tmp/onesided34", "/tmp/x", "C:\\Users\\a\\AppData\\Local\\Temp\\r", "/var/t/tmpab12cd34/o",
              "/private/var/folders/x/pytest-of-a/p0"):
        assert _temporary(s), s
    for s in (".", "_cache/new_main", "tmc2007-500", "nbs/results/fals", "template/x", "tmp"):
        assert not _temporary(s), s


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_meta_json_points_into_a_temporary_folder(chapter):
    for path in sorted((RESULTS / chapter).glob("*meta*.json")):
        bad = [s for s in _strings(json.loads(path.read_text())) if _temporary(s)]
        assert not bad, f"{path.relative_to(RESULTS)} names temporary folders: {bad}"


@pytest.mark.parametrize("chapter", [_marked(c) for c in CHAPTERS])
def test_every_row_names_a_version_and_run_that_meta_names(chapter):
    "Each row's _version is a code version meta.json names for its part, and its _run a run meta.json records."
    meta = read_meta(RESULTS / chapter)
    present = _present(chapter)
    assert present, f"{chapter}: no part file committed"
    for part, name in present:
        assert name in (meta.get("files") or {}).get(part, []), f"meta.json's files do not list {name} ({part})"
        t = pd.read_csv(RESULTS / chapter / name, dtype={"_version": str, "_run": str})
        for col in ("_version", "_run"):
            missing = int(t[col].isna().sum()) if col in t else len(t)
            assert not missing, f"{name}: {missing} of {len(t)} rows without {col}"
        named = _names((meta.get("code_version") or {}).get(part))
        assert set(t["_version"]) == named, f"{name} carries {sorted(set(t['_version']))}, meta.json names {sorted(named)}"
        runs = meta.get("runs") or {}
        for run, v in t.groupby("_run")["_version"]:
            assert run in runs, f"{name}: run {run!r} is not in meta.json's runs"
            ran = _names(runs[run]["code_version"].get(part))
            assert set(v) <= ran, f"{name}: rows of run {run!r} carry {sorted(set(v))}, the run names {sorted(ran)}"


def _file_params():
    out = []
    for chapter in CHAPTERS:
        for part, name in _present(chapter) or [(None, None)]:
            reason = NOT_YET.get(chapter) or MIXED.get((chapter, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(chapter, part, name, marks=marks, id=f"{chapter}-{name}"))
    return out


@pytest.mark.parametrize("chapter, part, name", _file_params())
def test_one_code_version_per_file(chapter, part, name):
    "A results file is one code version's output, the one meta.json names for its part."
    meta = read_meta(RESULTS / chapter)
    t = pd.read_csv(RESULTS / chapter / name, dtype={"_version": str})
    versions = set(t["_version"].dropna()) if "_version" in t else set()
    assert "_version" in t and t["_version"].notna().all() and len(versions) == 1, \
        f"{name} holds rows of {sorted(versions) or 'unrecorded'} code versions"
    assert _names(meta["code_version"][part]) == versions
