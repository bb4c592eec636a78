"""Shared pytest fixtures and options for mlxplain's tests.

- `need_data`: `need_data("emotions", ...)` makes the named data sets available the way a user gets them
  (`$MLXPLAIN_DATA`, the user cache, then a checksummed download) and *skips* the test with the reason when one
  of them is absent and cannot be downloaded. Every test that reads a registered data set goes through it.
- `data_home`: the staged data folder itself (`$MLXPLAIN_DATA`), for tests that read its files directly;
  skipped with the reason when it is not set or holds no `MANIFEST.tsv`.
- `--runslow`: run tests marked `slow` (skipped by default).
"""
import os
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def _unavailable(name, err):
    "The skip reason for data set `name`, with the first line of the loader's own explanation."
    why = str(err).splitlines()[0][:200]
    return f"data set {name} not available: set MLXPLAIN_DATA or run `mlxplain fetch {name}` ({why})"


@pytest.fixture(scope="session")
def need_data():
    "`need_data(*names)`: fetch each data set (local copy or download) or skip the test, saying why."
    from mlxplain.data import fetch
    missing = {}  # name -> reason, so a data set that failed once is not downloaded again in this session

    def need(*names):
        for name in names:
            if name not in missing:
                try:
                    fetch(name)
                    missing[name] = None
                except (OSError, ValueError) as e:  # DownloadError and FileNotFoundError are OSErrors
                    missing[name] = _unavailable(name, e)
            if missing[name]:
                pytest.skip(missing[name])
    return need


@pytest.fixture(scope="session")
def data_home():
    "The staged data folder from $MLXPLAIN_DATA; skips the test when it is unset or holds no manifest."
    d = os.environ.get("MLXPLAIN_DATA")
    if not d:
        pytest.skip("staged data not available: MLXPLAIN_DATA is not set (point it at a copy of the staged data)")
    p = Path(d).expanduser().resolve()
    if not (p / "MANIFEST.tsv").is_file():
        pytest.skip(f"staged data not available: MLXPLAIN_DATA={d} holds no MANIFEST.tsv")
    return p


@pytest.hookimpl(trylast=True)   # after the other summaries; pytest lists each skip reason (-rs) right below
def pytest_terminal_summary(terminalreporter):
    "Close with how many tests were skipped for missing data (their reasons are listed above, with -rs)."
    skipped = terminalreporter.stats.get("skipped", [])
    reasons = [str(r.longrepr[2] if isinstance(r.longrepr, tuple) else r.longrepr) for r in skipped]
    data = sum("not available" in why for why in reasons)   # need_data / data_home: "... not available: ..."
    slow = sum(why.startswith("Skipped: slow") or why.startswith("slow") for why in reasons)
    if skipped:
        terminalreporter.write_line(f"skipped: {len(skipped)} in all, {data} for missing data (set MLXPLAIN_DATA or "
                                    f"run `mlxplain fetch NAME`), {slow} slow (--runslow), "
                                    f"{len(skipped) - data - slow} other")
