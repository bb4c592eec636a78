"The grid runner: caching across runs, parallel equals serial, nothing half-written when a cell fails."
import numpy as np
import pandas as pd
import pytest
from mlxplain.experiments import run_grid, expand_grid

def noisy_mean(n, seed):
    return {"mean": float(np.random.default_rng(seed).normal(size=n).mean())}

def test_parallel_equals_serial_and_is_seeded(tmp_path):
    g = {"n": [5, 50], "seed": [0, 1, 2]}
    a = run_grid(noisy_mean, g)
    b = run_grid(noisy_mean, g, n_jobs=2, cache=tmp_path / "c.csv")
    pd.testing.assert_frame_equal(a, b)

def boom(i):
    if i == 5: raise RuntimeError("cell 5 fails")
    return {"sq": i * i}

def test_failure_keeps_finished_batches_and_no_temp_files(tmp_path):
    cache = tmp_path / "r.csv"
    with pytest.raises(RuntimeError, match="cell 5"): run_grid(boom, {"i": range(8)}, cache=cache, batch=2)
    done = pd.read_csv(cache)
    assert sorted(done["i"]) == [0, 1, 2, 3]          # the two finished batches, intact
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]
    # the rerun only computes what is missing (cell 5 now succeeds through a different function)
    calls = []
    def fixed(i): calls.append(i); return {"sq": i * i}
    df = run_grid(fixed, {"i": range(8)}, cache=cache, batch=2)
    assert sorted(calls) == [4, 5, 6, 7] and list(df.sort_values("i")["sq"]) == [i * i for i in range(8)]

def test_expand_grid_rejects_garbage():
    with pytest.raises(TypeError): expand_grid([1])
