"""A fresh fuzz of mlxplain's public surface with bad input, and its counts by outcome.

The test suites hold fixed cases (`tests/test_bad_input*.py`, `tests/test_conformance.py`, hypothesis suites that
replace one argument at a time). This tool draws new cases with its own generator (Python's `random`, seeded): a
public function, estimator or command line, and one to three of its arguments (an estimator's constructor
parameters, the `X`/`Y` of `fit`, the `X` of `predict`) replaced by values drawn from a pool of bad ones (wrong
types, shapes, NaN/inf, empty, out-of-range, strings, huge and negative numbers, wrong containers, damaged labels).
Each case runs in a worker process with a time limit, so a crash or a hang is seen as such. Outcomes:

- `works`: the call returned a well-formed result (a finite number, an array or table of the right shape, a fitted
  estimator whose predictions have the right shape) -- the value was valid, or has a documented meaning;
- `clear error`: ValueError or TypeError (or the CLI's exit status 2) whose message names a replaced argument;
- `unclear error`: an exception of another type, or one naming none of the replaced arguments;
- `wrong result`: a result that is not well-formed (NaN, wrong shape) -- silent corruption;
- `crash`: the worker process died; `hang`: no answer within the time limit.

Integer parameters that size the work (epochs, iterations, estimators, ...) are not given huge values: asking for
10**12 epochs is a request for long work, not bad input.

Usage: python tools/fuzz_bad_input.py [--cases 3000] [--seed 20261128] [--timeout 30] [--out fuzz.csv]
"""
import argparse, json, math, os, random, re, select, subprocess, sys, time, warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK_SIZE = {"epochs", "n_iterations", "n_estimators", "max_iter", "max_iters", "ig_steps", "n_chains", "n_samples",
             "n_candidates", "sw_grid", "cv", "max_leaves", "ensemble", "beam_search_width", "n_alternatives",
             "hidden", "batch_size", "n_splits", "liblinear_max_iter", "score_subsample", "n_features", "n_labels",
             "n_groups", "group_size", "n_noise", "n_repeats", "k", "augment_ratio", "n_sets", "arity"}


# ---------------------------------------------------------------------------------------------------------------------
# the pool of bad values
# ---------------------------------------------------------------------------------------------------------------------
def scalar_pool():
    import numpy as np
    return [None, math.nan, math.inf, -math.inf, -1, 0, 1, 2, -0.5, 0.5, 1.5, 10**12, -10**12, 1e-300, True, False,
            "", "auto", "nonsense", "1", 1 + 2j, np.int64(3), np.float32(0.3), np.nan, [1], (), {}, [None], object()]


def array_pool(rng, n, d, kind):
    "Bad (or odd) matrices for an argument of shape (n, d); kind 'X' (features) or 'Y' (0/1 labels)."
    import numpy as np, scipy.sparse as sp, pandas as pd
    r = np.random.default_rng(rng.randrange(2**31))
    base = (r.random((n, d)) < 0.4).astype(int) if kind == "Y" else r.normal(size=(n, d))
    def with_(v):
        a = base.astype(float).copy(); a[r.integers(n), r.integers(d)] = v; return a
    choices = [
        lambda: base[:0], lambda: base[:, :0], lambda: np.empty((0, 0)), lambda: base[:, 0], lambda: base[0],
        lambda: base[..., None], lambda: base[:-1], lambda: base[:, :-1], lambda: np.hstack([base, base]),
        lambda: with_(np.nan), lambda: with_(np.inf), lambda: with_(-np.inf), lambda: with_(2), lambda: with_(-1),
        lambda: with_(0.5), lambda: base.astype(str), lambda: base.astype(object), lambda: base.astype(bool),
        lambda: base.astype(np.float16), lambda: base.astype(np.int8), lambda: base.astype(complex),
        lambda: sp.csr_matrix(base[:-1]), lambda: sp.coo_matrix(base), lambda: sp.csc_matrix(base),
        lambda: sp.csr_matrix(base.astype(float) * np.nan), lambda: pd.DataFrame(base).astype(str),
        lambda: pd.DataFrame(base, columns=[f"c{j}" for j in range(d)]).iloc[:, ::-1],
        lambda: pd.DataFrame(base, columns=[0] * d), lambda: base.tolist()[:-1] + [[1]], lambda: [[]],
        lambda: [], lambda: None, lambda: "X", lambda: 3.0, lambda: {"a": 1},
        lambda: np.zeros((n, d)), lambda: np.ones((n, d)), lambda: np.full((n, d), 1e308),
        lambda: base[:1], lambda: base[:, :1], lambda: pd.Series(base[:, 0]),
    ]
    return rng.choice(choices)()


def bad_value(rng, name, valid, n=None, d=None, kind=None):
    "A value for argument `name` (whose valid value is `valid`) drawn from the pool."
    import numpy as np
    if kind is not None and rng.random() < 0.75:
        return array_pool(rng, n, d, kind)
    pool = scalar_pool()
    if name in WORK_SIZE: pool = [v for v in pool if not (isinstance(v, (int, float)) and abs(v) > 1e6)]
    v = rng.choice(pool)
    if rng.random() < 0.15 and isinstance(valid, (int, float)) and not isinstance(valid, bool):
        v = type(valid)(valid) * rng.choice([-1, 0, 10, 0.1]) if name not in WORK_SIZE else rng.choice([-1, 0, -5])
    if rng.random() < 0.05 and isinstance(valid, str): v = valid.upper()
    return v


# ---------------------------------------------------------------------------------------------------------------------
# the targets: a valid call and a check that a result is well-formed
# ---------------------------------------------------------------------------------------------------------------------
N, D, L = 60, 8, 4


def _data(seed=0):
    import numpy as np
    r = np.random.default_rng(seed)
    X = r.normal(size=(N, D)); Y = (X[:, :L] + 0.5 * r.normal(size=(N, L)) > 0).astype(int)
    Y[0] = 1; Y[1] = 0
    return X, Y


def estimators():
    "name -> (factory of the estimator with fast valid settings, the target kind: 'multi' or 'single')."
    import mlxplain as M
    from sklearn.linear_model import LogisticRegression
    return {
        "FALS": (lambda: M.FALS(epochs=2, random_state=0), "multi"),
        "ExtendedPLT": (lambda: M.ExtendedPLT(random_state=0, seed=0), "multi"),
        "PRAkEL": (lambda: M.PRAkEL(loss="hamming", n_iterations=3, random_state=0), "multi"),
        "RAkEL": (lambda: M.RAkEL(n_iterations=3, random_state=0), "multi"),
        "CSRAkEL": (lambda: M.CSRAkEL(n_iterations=3, random_state=0), "multi"),
        "EPCC": (lambda: M.EPCC(n_chains=2, n_samples=20, n_candidates=5, random_state=0), "multi"),
        "MLkNN": (lambda: M.MLkNN(k=5), "multi"),
        "LIFT": (lambda: M.LIFT(ratio=0.2), "multi"),
        "BinaryRelevance": (lambda: M.BinaryRelevance(LogisticRegression()), "multi"),
        "LabelSpecificBR": (lambda: M.LabelSpecificBR(feature_sets=[[0, 1]] * L), "multi"),
        "LassoSelector": (lambda: M.LassoSelector(k=0.5), "multi"),
        "RFSelector": (lambda: M.RFSelector(k=0.5, n_estimators=5), "multi"),
        "AlternativeFeatureSelector": (lambda: M.AlternativeFeatureSelector(objective="mi", k=2, n_alternatives=2,
                                                                            random_state=0), "single"),
    }


def functions():
    "name -> (function, valid keyword arguments, well-formedness check, argument kinds for arrays)."
    import numpy as np, pandas as pd
    import mlxplain as M, mlxplain.metrics as me, mlxplain.alternatives as al
    X, Y = _data()
    S = np.random.default_rng(1).random((N, L))
    scal = lambda v: isinstance(v, (float, int, np.floating, np.integer)) and math.isfinite(float(v))
    vec = lambda v: (isinstance(v, np.ndarray) and np.isfinite(v).all()) or scal(v)
    sets = lambda v: isinstance(v, (list, tuple)) and all(len(s) >= 0 for s in v)
    ds = M.make_label_specific(n_samples=N, n_features=D, n_labels=L, random_state=0)[0]
    q = np.random.default_rng(2).random(10)
    out = {}
    for f in ["hamming_loss", "subset_zero_one_loss", "example_f1", "f1_loss", "micro_f1", "macro_f1",
              "composite_loss"]:
        out[f] = (getattr(me, f), dict(Y=Y, P=(S > 0.5).astype(int)), vec, dict(Y="Y", P="Y"))
    out["mcc"] = (me.mcc, dict(y=Y[:, 0], yhat=Y[:, 1]), vec, {})
    for f in ["ranking_loss", "one_error", "coverage", "average_precision"]:
        out[f] = (getattr(me, f), dict(Y=Y, S=S), vec, dict(Y="Y", S="X"))
    for f in ["precision_at_k", "ndcg_at_k"]:
        out[f] = (getattr(me, f), dict(Y=Y, S=S, k=2), vec, dict(Y="Y", S="X"))
    for f in ["psdcg_at_k", "psprecision_at_k"]:
        out[f] = (getattr(me, f), dict(Y=Y, S=S, k=2, inv_ps=np.ones(L)), vec, dict(Y="Y", S="X"))
    out["inverse_propensity"] = (me.inverse_propensity, dict(Y=Y), vec, dict(Y="Y"))
    out["top_k"] = (me.top_k, dict(S=S, k=2), lambda v: isinstance(v, np.ndarray) and v.ndim == 2, dict(S="X"))
    out["make_label_specific"] = (M.make_label_specific, dict(n_samples=50, n_features=6, n_labels=3, random_state=0),
                                  lambda v: v[0].X.shape[0] > 0, {})
    out["make_alternative_groups"] = (M.make_alternative_groups, dict(n_samples=50, random_state=0),
                                      lambda v: len(v) > 0, {})
    out["train_test_split"] = (M.train_test_split, dict(ds=ds, test_size=0.3, random_state=0),
                               lambda v: v[0].X.shape[0] > 0 and v[1].X.shape[0] > 0, {})
    out["kfold"] = (lambda **kw: list(M.kfold(**kw)), dict(ds=ds, n_splits=3, random_state=0), lambda v: len(v) > 0, {})
    out["load"] = (M.load, dict(name="emotions"), lambda v: v is not None, {})
    out["load_split"] = (M.load_split, dict(name="emotions", test_size=0.3, random_state=0),
                         lambda v: v is not None, {})
    out["registry"] = (M.registry, dict(), lambda v: isinstance(v, pd.DataFrame), {})
    for f in ["greedy_replacement", "greedy_balancing", "greedy_depth_search"]:
        out[f] = (getattr(al, f), dict(q=q, k=3, n_alternatives=2, tau=0.5), lambda v: v is not None, {})
    out["dice_dissimilarity"] = (al.dice_dissimilarity, dict(a=[0, 1, 2], b=[1, 2, 3]), scal, {})
    out["mi_qualities"] = (al.mi_qualities, dict(X=X, y=Y[:, 0], random_state=0), vec, dict(X="X"))
    return out


def _named(msg, names):
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_0-9])", msg) for n in names)


def make_case(seed, i):
    "Case i: (target, the replaced arguments' names, a function that runs it and returns a well-formedness flag)."
    import numpy as np
    rng = random.Random(seed * 1_000_003 + i)
    ests, funs = estimators(), functions()
    X, Y = _data(i % 7)
    if rng.random() < 0.55:
        name = rng.choice(sorted(ests)); factory, target = ests[name]
        est = factory(); params = est.get_params(deep=False)
        slots = sorted(params) + ["X_fit", "Y_fit", "X_predict"] * 4
        chosen = sorted(set(rng.sample(slots, rng.choice([1, 1, 1, 2, 3]))))
        args = {"X_fit": X[:40], "Y_fit": Y[:40] if target == "multi" else Y[:40, 0], "X_predict": X[40:]}
        for s in chosen:
            if s in args:
                kind = "Y" if s == "Y_fit" else "X"
                v = bad_value(rng, s, args[s], 40 if s != "X_predict" else 20, L if kind == "Y" else D, kind)
                if s == "Y_fit" and target == "single" and isinstance(v, np.ndarray) and v.ndim == 2 and rng.random() < .5:
                    v = v[:, 0]
                args[s] = v
            else:
                params[s] = bad_value(rng, s, params[s])
        names = [("X" if s.startswith("X") else ("y" if target == "single" else "Y") if s == "Y_fit" else s)
                 for s in chosen] + (["Y", "y"] if "Y_fit" in chosen else [])
        if any(s in args for s in chosen):   # data that conflict with a parameter (k labels of 3 on 1): it may be named
            names += sorted(params)

        def run():
            e = type(est)(**params).fit(args["X_fit"], args["Y_fit"])
            P = e.predict(args["X_predict"]) if hasattr(e, "predict") else e.transform(args["X_predict"])
            import scipy.sparse as sp
            P = P.toarray() if sp.issparse(P) else np.asarray(P)
            n_rows = np.shape(args["X_predict"])[0] if not hasattr(args["X_predict"], "shape") else args["X_predict"].shape[0]
            return P.shape[0] == n_rows and np.isfinite(P.astype(float)).all()
        return name, chosen, names, run
    if rng.random() < 0.1:
        return cli_case(rng)
    name = rng.choice(sorted(funs)); f, kw, ok, kinds = funs[name]
    kw = dict(kw); keys = sorted(kw) or ["<none>"]
    chosen = sorted(set(rng.sample(keys, min(len(keys), rng.choice([1, 1, 2])))))
    for s in chosen:
        if s == "<none>": kw["data_home"] = bad_value(rng, "data_home", "x"); chosen = ["data_home"]; continue
        kind = kinds.get(s)
        shape = np.shape(kw[s]) if kind else (None, None)
        kw[s] = bad_value(rng, s, kw[s], shape[0] if kind else None, shape[1] if kind and len(shape) > 1 else None,
                          kind)
    # a function's error may name another of its arguments that the replaced one conflicts with (k against Y's labels)
    return name, chosen, sorted(set(chosen) | set(kw)), lambda: bool(ok(f(**kw)))


def cli_case(rng):
    "A command line with a bad option value."
    import mlxplain.cli as C
    options = {"reproduce": [["--seeds", "x"], ["--seeds", "5-1"], ["--seeds", "0-"], ["--n-jobs", "0"],
                             ["--n-jobs", "abc"], ["--parts", "nope"], ["--datasets", "nope"],
                             ["--scheduler", "tcp://"], ["--out", "/proc/x"], ["--seeds", "-3"]],
               "fetch": [["nope"], [""], ["../etc"]], "demo": [["--out", "/proc/x"]],
               "datasets": [["--bogus"]]}
    cmd = rng.choice(sorted(options)); extra = rng.choice(options[cmd])
    argv = [cmd] + ([rng.choice(["prakel", "fals", "alternatives", "extended_plt", "nope"])] if cmd == "reproduce"
                    else []) + extra
    names = [t.lstrip("-") for t in extra if t.startswith("--")] + [t for t in argv[1:2]] + ["chapter", "name"]

    def run():
        import contextlib, io
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                rc = C.main(argv)
            except SystemExit as e:
                rc = e.code
        if rc in (0, None): return True
        raise ValueError(f"exit {rc}: {err.getvalue().strip()[-300:]}")
    return "cli " + " ".join(argv), ["argv"], names, run


def worker(seed):
    "Read case numbers from stdin, write one JSON line per case."
    os.environ.setdefault("TQDM_DISABLE", "1")
    warnings.simplefilter("ignore")
    import numpy as np  # noqa: F401
    for line in sys.stdin:
        i = int(line)
        try:
            target, chosen, names, run = make_case(seed, i)
        except Exception as e:
            print(json.dumps(dict(i=i, target="?", args="", outcome="generator error", detail=repr(e)[:300])),
                  flush=True); continue
        try:
            good = run()
            outcome, detail = ("works", "") if good else ("wrong result", "not well-formed")
        except (ValueError, TypeError) as e:
            msg = str(e)
            outcome = "clear error" if _named(msg, names) else "unclear error"
            detail = f"{type(e).__name__}: {msg[:300]}"
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as e:
            outcome, detail = "clear error", f"{type(e).__name__}: {str(e)[:300]}"
        except BaseException as e:
            outcome, detail = "unclear error", f"{type(e).__name__}: {str(e)[:300]}"
        print(json.dumps(dict(i=i, target=target, args=",".join(chosen), outcome=outcome, detail=detail)), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--out", default="fuzz_bad_input.csv")
    ap.add_argument("--worker", action="store_true")
    a = ap.parse_args()
    if a.worker: return worker(a.seed)
    import pandas as pd
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "TQDM_DISABLE": "1", "PYTHONHASHSEED": "0"}

    def start():
        return subprocess.Popen([sys.executable, __file__, "--worker", "--seed", str(a.seed)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=ROOT)
    rows, p, t0 = [], start(), time.time()
    for i in range(a.cases):
        p.stdin.write(f"{i}\n"); p.stdin.flush()
        ready, _, _ = select.select([p.stdout], [], [], a.timeout + (120 if i == 0 else 0))
        line = p.stdout.readline() if ready else ""
        if line:
            rows.append(json.loads(line))
        else:
            target, chosen, _, _ = make_case(a.seed, i)   # the case again, here, to name it
            if ready:   # end of file: the worker died
                rc = p.wait(); rows.append(dict(i=i, target=target, args=",".join(chosen), outcome="crash",
                                                detail=f"exit {rc}"))
            else:
                p.kill(); p.wait(); rows.append(dict(i=i, target=target, args=",".join(chosen), outcome="hang",
                                                     detail=f"no answer in {a.timeout:g} s"))
            p = start()
        if (i + 1) % 100 == 0:
            print(f"{i + 1} cases, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    p.stdin.close(); p.wait()
    df = pd.DataFrame(rows)
    df.to_csv(a.out, index=False)
    print(df["outcome"].value_counts().rename_axis("outcome").to_frame("cases").to_string())
    bad = df[~df["outcome"].isin(["works", "clear error"])]
    if len(bad):
        print("\nnot clear:")
        print(bad.groupby(["outcome", "target"]).size().to_string())
    return 0 if bad.empty else 1


if __name__ == "__main__":
    sys.exit(main())
