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
