"""A claims row is judge-sensitive exactly when its verdict differs between judges: the same answers, judged by two
judges that agree, leave every row robust; a judge that disagrees on the answers of one arm flips that row (and only
the rows that read correctness), through the claims function itself."""

import numpy as np
import pandas as pd
import pytest

from tailmem.errors import DataError
from tailmem.judges.claims import ROBUST, SENSITIVE, with_sensitivity
from tailmem.stats.group import shipped
from tailmem.stats.verdict import HELD
from tailmem.studies.fsmem.claims import ANSWER_COLUMNS, claims

S = shipped(resamples=500, seed=0)
N = 60


def answers(curated_correct: np.ndarray, closed_correct: np.ndarray) -> pd.DataFrame:
    """closed_book, verbatim and agent_curated on the same N questions; verbatim always right, costs differ."""
    arms = {"closed_book": closed_correct, "verbatim": np.ones(N), "agent_curated": curated_correct}
    frames = [
        pd.DataFrame(
            {
                "study": "main",
                "benchmark": "locomo",
                "conversation": "conv-50",
                "variant": v,
                "harness": "center",
                "builder": "programmatic",
                "searcher": "programmatic",
                "qid": np.arange(N),
                "question": [f"q{i}?" for i in range(N)],
                "f1": 0.5,
                "judge_correct": c.astype(float),
                "search_chars_read": 100.0 if v == "agent_curated" else 900.0,
                "search_dollars": 0.0,
            }
        )
        for v, c in arms.items()
    ]
    return pd.concat(frames, ignore_index=True)[list(ANSWER_COLUMNS)]


def table(by_judge: dict[str, pd.DataFrame]) -> pd.DataFrame:
    base = claims(answers(np.zeros(N), np.zeros(N)).assign(judge_correct=np.nan), S, 0.05)  # as written: F1 only
    return with_sensitivity(base, {j: claims(a, S, 0.05) for j, a in by_judge.items()})


def row(df: pd.DataFrame, start: str) -> pd.Series:
    hit = df[df.claim.str.startswith(start) & ~df.claim.str.contains("token F1")]  # the judged row
    assert len(hit) == 1
    return hit.iloc[0]


def test_flag_flips_when_one_judge_disagrees():
    rng = np.random.default_rng(0)
    closed = (rng.random(N) < 0.2).astype(float)
    strict = answers((rng.random(N) < 0.9).astype(float), closed)  # curated clearly beats closed book
    lenient_same = strict.copy()
    agree = table({"paper": strict, "gist": lenient_same})
    r = row(agree, "A file-based store (agent_curated)")
    assert r["verdict_paper"] == r["verdict_gist"] == HELD and not r[SENSITIVE] and r[ROBUST]
    assert not agree[SENSITIVE].any()

    # the gist judge passes closed book's answers too: curated no longer beats it under that judge alone
    gist = strict.copy()
    gist.loc[gist.variant == "closed_book", "judge_correct"] = 1.0
    split = table({"paper": strict, "gist": gist})
    r = row(split, "A file-based store (agent_curated)")
    assert r["verdict_paper"] == HELD and r["verdict_gist"] != HELD
    assert r[SENSITIVE] and not r[ROBUST]
    cost = row(split, "Organization buys search economy: agent_curated")  # no judge moves a cost claim
    assert not cost[SENSITIVE] and cost["verdict_paper"] == cost["verdict_gist"]


def test_misaligned_claims_are_an_error():
    a = answers(np.ones(N), np.zeros(N))
    base = claims(a, S, 0.05)
    with pytest.raises(DataError, match="do not line up"):
        with_sensitivity(base, {"paper": base.iloc[1:]})
