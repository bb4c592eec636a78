"""Claims as checks: every chapter's claims file (nbs/results/<chapter>/claims.json) is valid, names held-out sets that its
rule gives, and is what the chapter's notebooks state; the committed confirm verdicts are what `evaluate_claims`
computes from the committed rows; and the machinery fails where it should (a claim stated in prose but missing from
the file, an edited sentence, a flipped direction)."""
import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from mlxplain.cli import reproduction_module
from mlxplain.experiments import (check_stated_claims, claim_span, confirm_recomputed, evaluate_claims, held_out_sets, read_claims,
                                  read_meta, stated_claims)

ROOT = Path(__file__).resolve().parents[1]
NBS, RESULTS = ROOT / "nbs", ROOT / "nbs" / "results"
# the notebooks of each chapter: its claims may be stated in any of them
CHAPTER_NOTEBOOKS = {"fals": ("10_fals.ipynb", "10a_fals_experiments.ipynb"),
                     "extended_plt": ("20_extended_plt.ipynb", "20a_extended_plt_experiments.ipynb"),
                     "prakel": ("30_prakel.ipynb", "30a_prakel_experiments.ipynb"),
                     "alternatives": ("40_alternatives.ipynb", "40a_alternatives_experiments.ipynb")}
CLAIMED = sorted(p.parent.name for p in RESULTS.glob("*/claims.json"))
CONFIRMED = sorted(p.parent.parent.name for p in RESULTS.glob("*/confirm/confirm_claims.csv"))


def _notebooks(chapter):
    return [NBS / n for n in CHAPTER_NOTEBOOKS[chapter]]


def test_the_chapters_keep_claims_and_confirm_them():
    assert {"extended_plt", "fals", "prakel", "alternatives"} <= set(CLAIMED)
    assert set(CONFIRMED) == set(CLAIMED), "a chapter with a claims file commits its confirm verdicts"


@pytest.mark.parametrize("chapter", CLAIMED)
def test_held_out_sets_follow_the_rule(chapter):
    "Drawn by the rule, not by hand; the rule reads the registry, so it holds on any machine, with or without data."
    h = read_claims(RESULTS / chapter / "claims.json")["held_out"]
    assert held_out_sets(h["exclude"], **h["args"]) == h["sets"]


@pytest.mark.parametrize("chapter", CLAIMED)
def test_held_out_sets_were_never_used(chapter):
    c = read_claims(RESULTS / chapter / "claims.json")
    h, mod = c["held_out"], reproduction_module(chapter)
    assert tuple(h["exclude"]) == mod.FORMING_SETS                        # the rule excludes every set the chapter uses
    assert tuple(h["sets"]) == mod.CONFIRM_SETS and len(h["sets"]) >= 3
    for claim in c["claims"]:
        assert set(claim["formed_on"]) <= set(h["exclude"]), claim["id"]


def _verdicts(chapter):
    "The chapter's committed verdicts on its held-out sets (confirm/confirm_claims.csv)."
    return pd.read_csv(RESULTS / chapter / "confirm" / "confirm_claims.csv")


@pytest.mark.parametrize("chapter", CLAIMED)
def test_the_notebooks_state_exactly_the_claims_of_the_file(chapter):
    "Every claim stated in the file's words, and stated as a conclusion only where it replicated on the held-out sets."
    assert check_stated_claims(read_claims(RESULTS / chapter / "claims.json"), _notebooks(chapter), _verdicts(chapter)) == []


@pytest.mark.parametrize("chapter", CLAIMED)
def test_a_conclusion_from_a_claim_that_did_not_replicate_fails(chapter, tmp_path):
    "A page that states a claim as its conclusion is checked against the verdicts: only a replicated claim passes."
    claims, verdicts, nbs = read_claims(RESULTS / chapter / "claims.json"), _verdicts(chapter), _notebooks(chapter)
    for c in claims["claims"]:
        page = _with_markdown(tmp_path, nbs[-1], f"We conclude: {claim_span(claims, c['id'], conclusion=True)}")
        problems = check_stated_claims(claims, nbs[:-1] + [page], verdicts)
        replicated = (verdicts.loc[verdicts.claim == c["id"], "verdict"] == "replicated").all()
        assert (problems == []) == bool(replicated), (c["id"], problems)


def test_no_notebook_states_a_claim_that_no_claims_file_holds():
    ids = {c["id"] for ch in CLAIMED for c in read_claims(RESULTS / ch / "claims.json")["claims"]}
    stray = [(nb.name, i) for nb in sorted(NBS.glob("*.ipynb")) for i, _ in stated_claims(nb) if i not in ids]
    assert stray == []


def _with_markdown(tmp_path, nb, text):
    "A copy of notebook `nb` with one more markdown cell holding `text`."
    out = tmp_path / nb.name
    d = json.loads(nb.read_text())
    d["cells"].append({"cell_type": "markdown", "id": "extra0001", "metadata": {}, "source": [text]})
    out.write_text(json.dumps(d))
    return out


@pytest.mark.parametrize("chapter", CLAIMED)
def test_a_claim_stated_in_prose_but_missing_from_the_file_fails(chapter, tmp_path):
    claims = read_claims(RESULTS / chapter / "claims.json")
    nbs = _notebooks(chapter)
    made_up = _with_markdown(tmp_path, nbs[-1], 'We find <span class="claim" id="x-beats-y">X beats Y everywhere.</span>')
    problems = check_stated_claims(claims, nbs[:-1] + [made_up])
    assert problems == [f"{made_up.name}: states claim 'x-beats-y', which {chapter}'s claims file does not hold"]
    c0 = claims["claims"][0]
    edited = _with_markdown(tmp_path, nbs[-1], f'<span class="claim" id="{c0["id"]}">{c0["sentence"][:-1]} by far.</span>')
    assert any("reads" in p and c0["id"] in p for p in check_stated_claims(claims, nbs[:-1] + [edited]))
    dropped = claims | {"claims": claims["claims"][1:]}                   # the file loses a claim the prose states
    assert any(c0["id"] in p for p in check_stated_claims(dropped, nbs))


@pytest.mark.parametrize("chapter", CONFIRMED)
def test_confirm_verdicts_on_disk_are_what_evaluate_claims_computes(chapter):
    mod = reproduction_module(chapter)
    disk, again = confirm_recomputed(chapter, mod.confirm_frame, RESULTS / chapter)
    pd.testing.assert_frame_equal(disk.drop(columns=["_version", "_run"]), again, check_dtype=False)


@pytest.mark.parametrize("chapter", CONFIRMED)
def test_confirm_rows_one_version_named_by_meta_and_the_frozen_claims(chapter):
    folder = RESULTS / chapter / "confirm"
    rows = pd.read_csv(folder / "confirm.csv", dtype={"_version": str, "_run": str})
    verdicts = pd.read_csv(folder / "confirm_claims.csv", dtype={"_version": str, "_run": str})
    meta = read_meta(folder)
    assert rows["_version"].nunique() == 1 and rows["_run"].nunique() == 1
    assert meta["code_version"] == {"confirm": rows["_version"].iloc[0]} == {"confirm": verdicts["_version"].iloc[0]}
    assert set(meta["runs"]) == set(rows["_run"])
    # the claims were not changed after the verdicts were computed
    assert meta["claims"]["sha256"] == hashlib.sha256((RESULTS / chapter / "claims.json").read_bytes()).hexdigest()


@pytest.mark.parametrize("chapter", CONFIRMED)
def test_every_claim_is_tested_on_three_held_out_sets_over_independent_splits(chapter):
    """The units are the claims file's splits, one seed each (the paper's split 0 among them), on every held-out set
    of the rule; every claim covers at least three sets."""
    c = read_claims(RESULTS / chapter / "claims.json")
    rows = pd.read_csv(RESULTS / chapter / "confirm" / "confirm.csv")
    verdicts = pd.read_csv(RESULTS / chapter / "confirm" / "confirm_claims.csv")
    assert set(rows.dataset) == set(c["held_out"]["sets"]) and len(c["held_out"]["sets"]) >= 3
    assert set(rows.split) == set(c["splits"]) and 0 in set(rows.split)
    if "seed" in rows: assert (rows.groupby(["dataset", "split"]).seed.nunique() == 1).all()   # no nested seeds
    assert set(verdicts.claim) == {x["id"] for x in c["claims"]}
    for claim, g in verdicts.groupby("claim"):
        covered = {s for d in g.dataset.dropna() for s in d.split("+")}
        assert len(covered) >= 3, claim


@pytest.mark.parametrize("chapter", CONFIRMED)
def test_a_paired_verdict_counts_splits_not_seeds(chapter):
    """Every paired verdict's n is the number of independent splits of its set; adding seeds within the committed
    splits (a confirm part that pools seeds of one split) leaves n unchanged. Breaks when evaluate_claims stops
    averaging the rows of a split or a chapter's frame drops its split column."""
    c = read_claims(RESULTS / chapter / "claims.json")
    rows = pd.read_csv(RESULTS / chapter / "confirm" / "confirm.csv")
    frame = reproduction_module(chapter).confirm_frame(rows, c)
    assert "split" in frame
    paired = {x["id"] for x in c["claims"] if x["test"] != "spearman_permutation"}
    got = evaluate_claims(c, frame).query("claim in @paired")
    splits = frame[frame.claim.isin(paired)].groupby(["claim", "dataset"]).split.nunique()
    assert (got.set_index(["claim", "dataset"]).n_units == splits.reindex(got.set_index(["claim", "dataset"]).index)).all()
    assert (got.n_units <= len(c["splits"])).all()
    # the same rows again as a second "seed" of each split (new unit ids): still one unit per split
    twice = pd.concat([frame, frame.assign(unit=frame.unit.astype(str) + "/again")], ignore_index=True)
    again = evaluate_claims(c, twice).query("claim in @paired")
    assert again.n_units.tolist() == got.n_units.tolist()


@pytest.mark.parametrize("chapter", CONFIRMED)
def test_a_flipped_direction_is_not_replicated(chapter):
    """Reversing the direction of every directional claim swaps replicated and not replicated on each held-out set,
    leaves inconclusive sets inconclusive, and turns every replicated claim into a not replicated one."""
    c = read_claims(RESULTS / chapter / "claims.json")
    rows = pd.read_csv(RESULTS / chapter / "confirm" / "confirm.csv")
    frame = reproduction_module(chapter).confirm_frame(rows, c)
    flip = {"greater": "less", "less": "greater"}
    flipped = c | {"claims": [x | {"direction": flip.get(x["direction"], x["direction"])} for x in c["claims"]]}
    base, got = evaluate_claims(c, frame), evaluate_claims(flipped, frame)
    m = base.direction.isin(list(flip))
    decided = m & (base.set_verdict != "inconclusive")
    if not decided.any(): pytest.skip(f"{chapter}: no directional claim is decided on any held-out set")
    swap = {"replicated": "not replicated", "not replicated": "replicated", "inconclusive": "inconclusive"}
    assert (got.loc[m, "set_verdict"] == base.loc[m, "set_verdict"].map(swap)).all()
    assert (got.loc[m & (base.verdict == "replicated"), "verdict"] == "not replicated").all()


def test_alternatives_claims_state_what_the_chapters_records_show():
    """Each alternatives claim, read by its frozen statistic from the chapter's own records (10 independent splits: fold 0
    of partition s), points the claimed way on every set it was formed on: the file states what the chapter found, not more."""
    from mlxplain.repro.alternatives import confirm_frame
    c = read_claims(RESULTS / "alternatives" / "claims.json")
    rec = pd.read_csv(RESULTS / "alternatives" / "records.csv")
    got = evaluate_claims(c, confirm_frame(rec, c))
    sign = {"greater": 1, "less": -1}
    for claim in c["claims"]:
        t = got[got.claim == claim["id"]]
        assert sorted(t.dataset) == sorted(claim["formed_on"]), claim["id"]
        assert (t.n_units == 10).all() and (sign[claim["direction"]] * t.estimate > 0).all(), (claim["id"], t.estimate.tolist())
