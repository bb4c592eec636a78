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
    """A registered set of another kind (the binary backache for PRAkEL: its confirm part takes any multilabel set
    its claims were not formed on) is refused at once with the chapter's list."""
    r = run("reproduce", "prakel", "--datasets", "backache", "--out", str(tmp_path / "o"), timeout=60)
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


def test_every_bad_argument_is_one_clear_line(tmp_path, capsys):
    "Each bad argument of every subcommand: exit status 2, a message naming the option, no traceback, nothing written."
    from mlxplain.cli import main
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    out = str(tmp_path / "o")
    cases = [(["reproduce", "prakel", "--seeds", "0-", "--out", out], "--seeds"),
             (["reproduce", "prakel", "--seeds", "5-2", "--out", out], "--seeds"),
             (["reproduce", "prakel", "--seeds", "4294967296", "--out", out], "--seeds"),
             (["reproduce", "prakel", "--seeds", "0-5000", "--out", out], "at most 1,000"),
             (["reproduce", "prakel", "--n-jobs", "0", "--out", out], "--n-jobs"),
             (["reproduce", "prakel", "--n-jobs", "100000", "--out", out], "--n-jobs"),
             (["reproduce", "prakel", "--n-jobs", "x", "--out", out], "--n-jobs"),
             (["reproduce", "prakel", "--scheduler", "udp://h:1", "--out", out], "--scheduler"),
             (["reproduce", "prakel", "--out", str(a_file)], "--out"),
             (["reproduce", "prakel", "--out", str(a_file / "sub")], "--out"),
             (["reproduce", "prakel", "--out", out, "--refresh"], "--refresh"),
             (["reproduce", "prakel", "--data-home", str(tmp_path / "none"), "--out", out], "--data-home"),
             (["reproduce", "prakel", "--parts", "nope", "--out", out], "parts="),
             (["reproduce", "prakel", "--datasets", "nope", "--out", out], "datasets="),
             (["reproduce", "prakel", "--parts", "main", "--datasets", "flags", "--out", out], "held-out"),
             (["datasets", "--data-home", str(a_file)], "--data-home"),
             (["fetch", "emotions", "--data-home", str(tmp_path / "none")], "--data-home"),
             (["demo", "--out", str(a_file)], "--out"),
             (["reproduce", "prakel", "--out", "/proc/mlxplain-out"], "--out /proc/mlxplain-out: cannot create"),
             (["demo", "--out", "/proc/mlxplain-out"], "--out /proc/mlxplain-out: cannot create")]
    for argv, names in cases:
        try: rc = main(argv)
        except SystemExit as e: rc = e.code
        err = capsys.readouterr().err
        assert rc == 2 and names in err and "Traceback" not in err, (argv, rc, err)
        assert not (tmp_path / "o").exists(), argv


def _limit_memory():   # a child that tried to list a billion seeds fails at once instead of filling the machine
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def test_a_billion_seeds_are_refused_at_once(tmp_path):
    "`--seeds 0-1000000000` is counted, not listed: refused in the parser (it grew to 19.8 GB in two minutes)."
    r = subprocess.run([*MLX, "reproduce", "prakel", "--seeds", "0-1000000000", "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120, preexec_fn=_limit_memory)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "1,000,000,001 seeds given; at most 1,000" in r.stderr and not (tmp_path / "o").exists()


STOPPABLE = """
import sys, time
import mlxplain.cli as cli
from mlxplain.experiments import run_grid
def cell(i):
    time.sleep(0.2)
    return {"v": i}
class Chapter:   # a reproduction of 200 slow cells, under the real CLI and grid runner
    def reproduce(self, out_dir, **kw):
        return {"t": run_grid(cell, {"i": range(200)}, cache=out_dir / "_cache" / "t.csv", batch=1, n_jobs=kw["n_jobs"])}
cli.reproduction_module = lambda name: Chapter()
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("n_jobs", ["1", "2"])
def test_ctrl_c_ends_with_one_line_saying_a_rerun_resumes(tmp_path, n_jobs):
    "Ctrl-C (SIGINT to the whole process group, as a terminal sends it): one line, exit status 130, the cells kept."
    import signal, time
    (tmp_path / "stoppable.py").write_text(STOPPABLE)
    out = tmp_path / "o"
    p = subprocess.Popen([sys.executable, str(tmp_path / "stoppable.py"), "reproduce", "prakel", "--out", str(out),
                          "--n-jobs", n_jobs], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True,   # SIGINT at its default, as under a terminal, even where the tests
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))   # run in the background
    cache, deadline = out / "_cache" / "t.csv", time.time() + 60
    while time.time() < deadline and p.poll() is None and not (cache.exists() and cache.read_text().count("\n") >= 4):
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    lines = [l for l in err.splitlines() if l.startswith("mlxplain")]
    assert lines == [f"mlxplain reproduce: stopped; the finished cells are cached in {out}, so the same command "
                     "resumes where this one stopped"], err[-3000:]
    assert cache.read_text().count("\n") >= 4                      # the cells finished before the stop are kept


def test_confirm_verdicts_print_one_line_each_with_why(tmp_path, monkeypatch, capsys):
    "A quick run's confirm part (one unit per held-out set): each claim on one line, saying why it cannot be decided."
    import pandas as pd
    import mlxplain.cli as cli
    from mlxplain.experiments import evaluate_claims, read_claims
    claims = read_claims("prakel")
    frame = pd.DataFrame([dict(claim=c["id"], dataset="flags", unit=0, side=s, value=v)
                          for c in claims["claims"] for s, v in (("a", 1.0), ("b", 0.0))])
    class Repro:
        def reproduce(self, out_dir, **kw): return {"confirm": evaluate_claims(claims, frame)}
    monkeypatch.setattr(cli, "reproduction_module", lambda name: Repro())
    assert cli.main(["reproduce", "prakel", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    body = out.split("== confirm:")[1].strip().splitlines()[1:]
    assert len(body) == len(claims["claims"])
    for line, c in zip(body, claims["claims"]):
        assert line.startswith(f"{c['id']}: inconclusive (flags: n=1 unit, a ") and "held-out set, a claim needs" in line
