"""A newcomer without the staged data and without network: data-dependent tests are skipped with the reason.

The suite's own fixtures (`need_data`, `data_home`) run on real tests of the suite in a subprocess whose data
folder and cache are empty and whose every download goes to a closed local port.
"""
import os, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# one test per kind of data the fixtures guard (a Mulan set, an extreme-classification set, the staged folder);
# each file is imported twice below, so the FALS file (PyTorch's import alone is 3 s) is left out
DATA_TESTS = ["tests/test_prakel.py::test_theorem3_on_emotions",
              "tests/test_extended_plt.py::test_napkinxc_yeast_contract",
              "tests/test_data.py::test_load_split_official_and_stratified"]


def offline_env(tmp_path):
    "The environment of a user with an empty data folder, an empty cache and no network."
    env = {k: v for k, v in os.environ.items() if k not in ("MLXPLAIN_MIRROR", "MLXPLAIN_DATA")}
    (tmp_path / "empty").mkdir()
    closed = "http://127.0.0.1:9"  # the discard port: nothing listens, every connection is refused at once
    env.update(MLXPLAIN_CACHE=str(tmp_path / "cache"), HOME=str(tmp_path), http_proxy=closed, https_proxy=closed,
               HTTP_PROXY=closed, HTTPS_PROXY=closed, no_proxy="", NO_PROXY="")
    return env


def test_data_tests_skip_with_reason_without_data_or_network(tmp_path):
    base = offline_env(tmp_path)
    for env in (base, {**base, "MLXPLAIN_DATA": str(tmp_path / "empty")}):  # unset, then an empty folder
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *DATA_TESTS],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        out = r.stdout + r.stderr
        assert r.returncode == 0, out[-3000:]
        assert re.search(rf"\b{len(DATA_TESTS)} skipped\b", out) and " passed" not in out and "failed" not in out, out[-3000:]
        for name in ("emotions", "yeast-xc"):
            assert f"data set {name} not available: set MLXPLAIN_DATA or run `mlxplain fetch {name}`" in out, out[-3000:]
        assert "staged data not available" in out, out[-3000:]
        assert not any((tmp_path / "cache").rglob("*.part")), "a failed download left a partial file"


def _show_data(repo, env, *args):
    "MLXPLAIN_DATA as `make test`'s recipes see it, in `repo` (a copy of the Makefile) under `env`."
    (repo / "show.mk").write_text('show:\n\t@echo "[$$MLXPLAIN_DATA]"\n')
    r = subprocess.run(["make", "-s", "-f", "Makefile", "-f", "show.mk", "show", *args], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()[1:-1]


def test_make_test_without_the_staged_data_next_to_it(tmp_path):
    "../shared/data is found by itself; `MLXPLAIN_DATA=` (empty, in the environment or on make's line) turns it off."
    repo, data = tmp_path / "repo", tmp_path / "shared" / "data"
    data.mkdir(parents=True)
    (data / "MANIFEST.tsv").write_text("")
    repo.mkdir()
    (repo / "Makefile").write_text((ROOT / "Makefile").read_text())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MLXPLAIN", "MAKE"))}
    assert _show_data(repo, env) == str(data)
    assert _show_data(repo, {**env, "MLXPLAIN_DATA": ""}) == ""
    assert _show_data(repo, {**env, "MLXPLAIN_DATA": "/elsewhere"}, "MLXPLAIN_DATA=") == ""


FAKE_MAKE = """#!/usr/bin/env python3
import json, os, sys
keys = ("MLXPLAIN_DATA", "MLXPLAIN_CACHE", "XDG_CACHE_HOME", "HOME", "https_proxy", "http_proxy", "no_proxy")
with open(os.environ["CALLS"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], **{k: os.environ.get(k) for k in keys}}) + "\\n")
"""


def test_ci_runs_the_suite_with_and_without_data(tmp_path):
    "`.ci/run` runs `make test` twice: with ../shared/data, then with no data, an empty home and cache, and no network."
    repo, data, bin_ = tmp_path / "repo", tmp_path / "shared" / "data", tmp_path / "bin"
    for d in (repo / ".ci", data, bin_): d.mkdir(parents=True)
    (repo / ".ci" / "run").write_text((ROOT / ".ci" / "run").read_text())
    for name, text in (("make", FAKE_MAKE), ("chromium", "#!/bin/sh\n")):   # make records each call; no apt-get
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    calls = tmp_path / "calls.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLXPLAIN")}
    env.update(PATH=f"{bin_}{os.pathsep}{env['PATH']}", CALLS=str(calls), MLXPLAIN_CACHE=str(tmp_path / "user-cache"))
    r = subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    import json
    with_data, without = [json.loads(l) for l in calls.read_text().splitlines()]
    assert with_data["argv"] == without["argv"] == ["test"]
    assert Path(with_data["MLXPLAIN_DATA"]).resolve() == data.resolve()
    assert not without["MLXPLAIN_DATA"] and without["MLXPLAIN_CACHE"] is None and without["XDG_CACHE_HOME"] is None
    assert without["HOME"] != os.environ.get("HOME") and not Path(without["HOME"]).exists()   # a fresh home, removed
    assert without["https_proxy"] == without["http_proxy"] == "http://127.0.0.1:9"
