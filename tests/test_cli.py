"The `mlxplain` command line, run as a user runs it (a subprocess of the installed entry point)."
import json, os, subprocess, sys
from pathlib import Path
import pytest

# the console script installed beside this interpreter (pip install -e . puts it there)
MLX = [str(Path(sys.executable).with_name("mlxplain"))]

def run(*args, env=None, cwd=None, timeout=600):
    return subprocess.run([*MLX, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=cwd)

def test_help_lists_subcommands():
    r = run("--help")
    assert r.returncode == 0
    for cmd in ("datasets", "fetch", "demo", "reproduce"): assert cmd in r.stdout

def test_datasets_lists_registry_and_availability(tmp_path):
    r = run("datasets", "--data-home", str(tmp_path))
    assert r.returncode == 0, r.stderr
    for name in ("emotions", "bibtex", "Eurlex-4K", "Mediamill", "wdbc"): assert name.lower() in r.stdout.lower()

def test_fetch_unknown_name_is_a_clear_error(tmp_path):
    r = run("fetch", "no-such-dataset", "--data-home", str(tmp_path))
    assert r.returncode == 2
    assert "no-such-dataset" in r.stderr and "`mlxplain datasets`" in r.stderr   # the command that lists them

def test_fetch_staged(data_home):
    r = run("fetch", "emotions", "--data-home", str(data_home))
    assert r.returncode == 0, r.stderr
    assert "emotions" in r.stdout

def test_unknown_chapter_rejected():
    r = run("reproduce", "nope")
    assert r.returncode != 0 and "invalid choice" in r.stderr

def test_demo_runs_every_chapter(tmp_path):
    "`mlxplain demo` runs the foundation and every existing chapter on embedded data, writing figures and a report."
    out = tmp_path / "out"
    r = run("demo", "--out", str(out), env={"MLXPLAIN_DATA": str(tmp_path / "empty")})  # no real data needed
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    rep = json.loads((out / "report.json").read_text())
    assert rep["foundation"]["average_precision"] > 0.6
    from mlxplain.cli import CHAPTERS, chapter_module
    for c in CHAPTERS:
        if chapter_module(c) is not None and hasattr(chapter_module(c), "demo"):
            assert c in rep and "error" not in rep[c], rep.get(c)
            assert list((out / c).glob("*.png")), f"chapter {c} wrote no figure"
    assert "figures written to" in r.stdout
    # each chapter's numbers once: the summary, not also the chapter's own printout of them
    assert r.stdout.count("PRAkEL trained for F1 | F1 loss") == 1 and "F1 loss  Hamming loss" not in r.stdout

def test_reproduce_help_documents_scale_out():
    r = run("reproduce", "--help")
    assert r.returncode == 0
    for opt in ("--parts", "--datasets", "--seeds", "--quick", "--out", "--n-jobs", "--scheduler", "LocalCluster"):
        assert opt in r.stdout, opt


def test_reproduce_help_lists_parts_and_datasets():
    "`reproduce --help` ends with every chapter's parts (defaults starred) and data sets; `--data-home` is explained."
    r = run("reproduce", "--help")
    assert r.returncode == 0, r.stderr
    from mlxplain.repro import prakel, alternatives
    tail = r.stdout.split("data sets of each chapter:", 1)[1]
    for c in ("fals", "extended_plt", "prakel", "alternatives"): assert f"\n  {c}" in tail, c
    for p in prakel.PARTS: assert f"    {p}*" in tail
    assert "    paper " in tail and "    subset*" in tail                     # alternatives: paper is not a default
    assert ", ".join(prakel.DATASETS) in tail and ", ".join(alternatives.PAPER_DATASETS) in tail
    assert "$MLXPLAIN_DATA" in r.stdout.split("--data-home", 2)[2]
    one = run("reproduce", "prakel", "--help")                                # CHAPTER first: that chapter alone
    assert one.returncode == 0 and "\n  prakel" in one.stdout and "\n  fals" not in one.stdout


def test_reproduce_refuses_a_dataset_outside_the_chapter(tmp_path):
    "A registered set the chapter never sized (bibtex for PRAkEL) is refused at once with the chapter's list."
    r = run("reproduce", "prakel", "--datasets", "bibtex", "--out", str(tmp_path / "o"), timeout=60)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "emotions, scene, yeast, birds, medical, enron, CAL500" in r.stderr and "`mlxplain datasets`" in r.stderr
    assert not (tmp_path / "o").exists()


def test_reproduce_options_reach_the_chapter(tmp_path, monkeypatch):
    "Every option is parsed and handed to the chapter's reproduce() under the common signature (a stand-in records them)."
    import pandas as pd
    import mlxplain.cli as cli
    seen = {}

    class Repro:
        def reproduce(self, out_dir, *, parts=None, quick=False, datasets=None, seeds=None, data_home=None,
                      n_jobs=1, scheduler=None):
            seen.update(out_dir=out_dir, parts=parts, quick=quick, datasets=datasets, seeds=seeds,
                        data_home=data_home, n_jobs=n_jobs, scheduler=scheduler)
            return {"table": pd.DataFrame({"x": [1, 2]})}
    monkeypatch.setattr(cli, "reproduction_module", lambda name: Repro())
    argv = ["reproduce", "alternatives", "--parts", "paper", "--datasets", "hepatitis, spect", "--seeds", "0-2",
            "--n-jobs", "4", "--scheduler", "tcp://127.0.0.1:8786", "--quick", "--out", str(tmp_path)]
    assert cli.main(argv) == 0
    assert seen == dict(out_dir=tmp_path, parts=("paper",), quick=True, datasets=("hepatitis", "spect"),
                        seeds=(0, 1, 2), data_home=None, n_jobs=4, scheduler="tcp://127.0.0.1:8786")


def test_reproduce_bad_options_are_clear_errors(tmp_path):
    "Malformed options fail in the parser, before any work, naming the option."
    for args, msg in ((["--seeds", "a"], "--seeds"), (["--scheduler", "8786"], "--scheduler"),
                      (["--n-jobs", "0"], "--n-jobs")):
        r = run("reproduce", "prakel", *args, "--out", str(tmp_path / "o"))
        assert r.returncode == 2 and msg in r.stderr, r.stderr
        assert not (tmp_path / "o").exists()


def test_datasets_rows_fit_a_terminal(tmp_path):
    "One short row per data set (the longest PMLB name has 58 characters); `--wide` adds the download URLs."
    r = run("datasets", "--data-home", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert max(map(len, r.stdout.splitlines())) < 120 and "https://" not in r.stdout
    assert {"name", "download", "local"} <= set(r.stdout.splitlines()[0].split())
    wide = run("datasets", "--wide", "--data-home", str(tmp_path))
    assert wide.returncode == 0 and "https://" in wide.stdout


def test_reproduce_without_data_is_one_clear_line(tmp_path):
    "No staged data and no network: `reproduce --quick` names the missing data set in one line, no traceback."
    closed = "http://127.0.0.1:9"  # nothing listens on the discard port: every download is refused at once
    env = {"MLXPLAIN_DATA": str(tmp_path / "empty"), "MLXPLAIN_CACHE": str(tmp_path / "cache"),
           "http_proxy": closed, "https_proxy": closed, "no_proxy": ""}
    r = run("reproduce", "prakel", "--quick", "--out", str(tmp_path / "o"), env=env)
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr[-2000:]
    assert "Traceback" not in r.stderr and "mlxplain reproduce: " in r.stderr and "emotions" in r.stderr
    msg = [l for l in r.stderr.splitlines() if l.startswith("mlxplain reproduce: ")]
    assert len(msg) == 1 and "MLXPLAIN_DATA" in msg[0]


def test_reproduce_a_part_end_to_end(tmp_path, need_data):
    "`mlxplain reproduce prakel --quick --parts onesided --datasets emotions` runs the real part: tables, meta.json."
    need_data("emotions")   # the shortest real part (6 s); tests/test_repro_*.py run each chapter's parts in-process
    r = run("reproduce", "prakel", "--quick", "--parts", "onesided", "--datasets", "emotions", "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert (tmp_path / "quick" / "runs_onesided.csv").exists() and (tmp_path / "quick" / "meta.json").exists()
    assert f"results written to {tmp_path / 'quick'}\n" in r.stdout    # the path printed is the path written
    bad = run("reproduce", "prakel", "--parts", "nope", "--out", str(tmp_path / "o"))
    assert bad.returncode == 2 and "onesided" in bad.stderr and not (tmp_path / "o").exists()
