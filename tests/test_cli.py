"The `mlxplain` command line, run as a user runs it (a subprocess of the installed entry point)."
import json, os, subprocess, sys
from pathlib import Path
import pytest

# the console script installed beside this interpreter (pip install -e . puts it there)
MLX = [str(Path(sys.executable).with_name("mlxplain"))]

def run(*args, env=None, cwd=None):
    return subprocess.run([*MLX, *args], capture_output=True, text=True, timeout=600,
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
    assert "no-such-dataset" in r.stderr

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

def test_reproduce_parts_rejected_where_chapter_has_none(tmp_path):
    "`--parts` is passed only to chapters whose reproduce() takes it; elsewhere a clear error, nothing run or written."
    r = run("reproduce", "extended_plt", "--parts", "x", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "has no parts" in r.stderr
    assert not (tmp_path / "o").exists()

def test_reproduce_design_and_datasets_reach_the_chapter(tmp_path, monkeypatch):
    "`--design` and `--datasets` are parsed and handed to reproduce() (a stand-in records them; the real run takes hours)."
    import mlxplain.alternatives as A
    from mlxplain.cli import main
    seen = {}
    def fake(out_dir, quick=False, data_home=None, design="subset", datasets=None):
        seen.update(out_dir=out_dir, design=design, datasets=datasets)
    monkeypatch.setattr(A, "reproduce", fake)
    assert main(["reproduce", "alternatives", "--design", "paper", "--datasets", "hepatitis, spect", "--out", str(tmp_path)]) == 0
    assert seen == {"out_dir": tmp_path, "design": "paper", "datasets": ("hepatitis", "spect")}

def test_reproduce_design_rejected_where_chapter_has_none(tmp_path):
    "`--design` on a chapter whose reproduce() has no design: a clear error, nothing run or written."
    r = run("reproduce", "extended_plt", "--design", "paper", "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "has no design" in r.stderr
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


def test_import_mlxplain_is_light_and_lazy():
    "`import mlxplain` loads no heavy library; `mlxplain.FALS` loads the FALS module (and PyTorch) on first use."
    code = ("import sys, mlxplain; heavy = ('torch', 'ortools', 'napkinxc')\n"
            "assert not [m for m in heavy if m in sys.modules], [m for m in heavy if m in sys.modules]\n"
            "from mlxplain.fals import FALS\n"
            "assert mlxplain.FALS is FALS and 'torch' in sys.modules and mlxplain.__version__\n"
            "assert mlxplain.AlternativeFeatureSelector.__module__ == 'mlxplain.alternatives'")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
