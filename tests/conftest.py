"""Shared pytest fixtures and options for mlxplain's tests.

- `data_home`: the staged benchmark data (`$MLXPLAIN_DATA`, e.g. ../shared/data); tests that need
  it are skipped when the variable is unset.
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


@pytest.fixture(scope="session")
def data_home():
    "The staged data directory from $MLXPLAIN_DATA; skips the test when it is unset or missing."
    d = os.environ.get("MLXPLAIN_DATA")
    if not d:
        pytest.skip("MLXPLAIN_DATA is not set (point it at the staged data, e.g. ../shared/data)")
    p = Path(d).expanduser().resolve()
    if not p.is_dir():
        pytest.skip(f"MLXPLAIN_DATA={d} is not a directory")
    return p
