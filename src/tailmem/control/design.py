"""The design check: before any model call, can the two arms of each paired claim differ at all, where, and can
the planned runs reach a verdict?

Matched replay makes every prompt independent of the predictions (each arm's memory is written from the true
trajectory), and greedy decoding gives one prompt one answer. So the model-free twin of a study (its replays with
the programmatic predictor) already says, step by step, whether two arms sent the predictor the same prompt:

- `identical`: the same memory block, so the same answer from any greedy model: the step's difference is exactly
  0 and needs no call;
- `evidence`: one block states the step's transition and the other does not (evidence coverage differs);
- `mention`: both or neither state it, but only one names the true next state anywhere (a reader could guess it);
- `blind`: the blocks differ, yet neither names the true next state: a predictor that answers only with a state
  its block names (the embedded model's grammar, the scoring backend's choice, the programmatic rule) is wrong in
  both arms, so the difference is exactly 0 for it and needs no call (`blind_exact`);
- `format`: the blocks differ, yet in none of those ways (order, form, other items).

A claim pair whose arms never differ on the steps it scores is undecidable by design, whatever model predicts.
The plan (`plan`) calls the predictor at a seeded sample of the steps some claim pair tells apart and at a
smaller sample of the others, each called step weighted by the inverse of its inclusion probability, so each
arm's error and each pair's difference stay unbiased (`control.replay.error_rate`,
`report.control_tables.compare_arms`); a step whose prompts a pair's arms share is known exactly (difference 0)
and needs no call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tailmem.control import arms

CATEGORIES = ("identical", "blind", "format", "mention", "evidence")
KNOWN = ("identical", "blind")  # the difference is exactly 0 without a call (blind: for a constrained predictor)


@dataclass(frozen=True)
class ClaimPair:
    """Two arms compared step by step by claims_ctmc (`label`: the claim family), on the tail or on every step."""

    label: str
    a: str
    b: str
    scope: str  # "tail" | "all"


def claim_pairs() -> list[ClaimPair]:
    """The paired comparisons behind claims_ctmc: Table 5's CTMC vs Graph Memory per encoding, CTMC at Graph
    Memory's measured budget, and Table 6's ordering (each neighbouring pair, tail and overall error)."""
    out = [
        ClaimPair(
            f"Table 5 ({enc}): CTMC vs Graph Memory", arms.nominal_ctmc(enc), arms.baseline("graph_memory", enc), "tail"
        )
        for enc in arms.ENCODINGS
    ]
    ablation = arms.table6_arms()
    out.append(ClaimPair("matched budget: CTMC vs Graph Memory", ablation[0], arms.baseline("graph_memory"), "tail"))
    names = ("CTMC", "uniform", "shuffled", "reversed")
    for scope in ("tail", "all"):
        for (ln, lo), (hn, hi) in zip(zip(names, ablation), zip(names[1:], ablation[1:])):
            out.append(ClaimPair(f"Table 6 ({'tail' if scope == 'tail' else 'overall'}): {ln} vs {hn}", hi, lo, scope))
    return out


def claim_arms() -> list[str]:
    """Every arm a claim pair reads, Graph Memory (compact) first: the matched arms spend its measured tokens."""
    first = arms.baseline("graph_memory")
    rest = [x for p in claim_pairs() for x in (p.a, p.b)]
    return list(dict.fromkeys([first, *rest]))


def classify(a: pd.DataFrame, b: pd.DataFrame, blind_exact: bool = True) -> np.ndarray:
    """Per step, which of `CATEGORIES` tells arm a's block from arm b's (rows aligned on the same steps); with
    `blind_exact` False (a predictor that may answer any state) blind steps count as format."""
    same = a.prompt_sha.to_numpy() == b.prompt_sha.to_numpy()
    evidence = a.covered.to_numpy(bool) != b.covered.to_numpy(bool)
    mention = a.mentions_next.to_numpy(bool) != b.mentions_next.to_numpy(bool)
    blind = ~a.mentions_next.to_numpy(bool) & ~b.mentions_next.to_numpy(bool) & blind_exact
    return np.select([same, evidence, mention, blind], ["identical", "evidence", "mention", "blind"], default="format")


def pair_counts(steps: dict[str, pd.DataFrame], in_tail: np.ndarray, pair: ClaimPair, blind_exact: bool = True) -> dict:
    """One run's counts for one claim pair on the steps it scores (its tail, or every step)."""
    scope = in_tail if pair.scope == "tail" else np.ones(len(in_tail), bool)
    kinds = classify(steps[pair.a], steps[pair.b], blind_exact)[scope]
    a, b = steps[pair.a][scope], steps[pair.b][scope]
    row = {"claim": pair.label, "arm_a": pair.a, "arm_b": pair.b, "scope": pair.scope, "steps": int(scope.sum())}
    row.update({k: int(np.sum(kinds == k)) for k in CATEGORIES})
    row["informative"] = row["steps"] - sum(row[k] for k in KNOWN)
    # the programmatic twin's own difference, a - b, in error and coverage: what a model that reads only the
    # evidence and the mentions would give
    row["twin_error_diff"] = float(np.mean(b.correct.to_numpy(float) - a.correct.to_numpy(float))) if len(a) else 0.0
    row["twin_coverage_diff"] = float(np.mean(a.covered.to_numpy(float) - b.covered.to_numpy(float))) if len(a) else 0.0
    return row


# The spread assumed for a step's difference in error when the plan splits a pair's calls between its strata
# (Neyman allocation): a step whose blocks differ in evidence or mention is where a reader's answers part (a
# difference near +-1 about half the time); a format-only difference flips a reader less often. The twin cannot
# measure the second (its rule reads only evidence and mentions), so the plan spends some calls there too, and
# control_report logs how often a model's answers parted in each stratum (the evidence for the next plan).
STRATUM_SD = {"decisive": 0.5, "format": 0.3}


@dataclass(frozen=True)
class PairPlan:
    """The steps at which one pair of arms is called for its claims' difference, each weighing the size of its
    stratum over the steps drawn from it; `stratum` names each step's (tail|other, decisive|format)."""

    a: str
    b: str
    steps: list[int]
    weights: list[float]
    strata: list[str]


@dataclass(frozen=True)
class Plan:
    """One run's plan: `steps`/`weights` are a uniform sample of every step shared by all arms (each arm's own
    error, the table cells); `pairs` the steps each claim pair is called at (its claims' difference)."""

    steps: list[int]
    weights: list[float]
    pairs: list[PairPlan]
    informative: int


def allocate(sizes: dict[str, int], calls: int) -> dict[str, int]:
    """Calls per stratum: Neyman allocation (size x assumed spread) of `calls`, at least one call in a non-empty
    stratum, never more than its size."""
    live = {k: n for k, n in sizes.items() if n > 0}
    if not live or calls <= 0:
        return {k: 0 for k in sizes}
    share = {k: n * STRATUM_SD[k.split("/")[1]] for k, n in live.items()}
    total = sum(share.values())
    out = {k: min(n, max(1, int(round(calls * share[k] / total)))) for k, n in live.items()}
    return {k: out.get(k, 0) for k in sizes}


def arm_pairs() -> dict[tuple[str, str], set[str]]:
    """Each pair of arms some claim compares -> the scopes its claims score (tail, all)."""
    out: dict[tuple[str, str], set[str]] = {}
    for p in claim_pairs():
        out.setdefault((p.a, p.b), set()).add(p.scope)
    return out


def plan(
    steps: dict[str, pd.DataFrame],
    in_tail: np.ndarray,
    pair_calls: int,
    sample: float,
    seed: int,
    blind_exact: bool = True,
) -> Plan:
    """A run's plan. Per pair of arms, its steps split into strata: tail or other, and decisive (the blocks differ
    in evidence coverage or in naming the true next state) or format (they differ otherwise); a step whose blocks
    are identical needs no call (difference exactly 0). `pair_calls` steps are drawn from the tail's strata
    (Neyman allocation, `allocate`), and as many from the other steps' strata when a claim of the pair scores every
    step (those are most of its steps, so their draws set its interval); a blind step needs none when `blind_exact`;
    each drawn step weighs its stratum's size / drawn, so each pair's difference is unbiased
    (`report.control_tables.compare_arms`). A `sample` share of every step, shared by all arms and weighing
    1/sample, estimates each arm's own error (`control.replay.error_rate`). Draws share one random key per step
    (common random numbers), so overlapping pairs share calls."""
    rng = np.random.default_rng(seed)
    first = next(iter(steps.values()))
    step_ids = first.step.to_numpy()
    # one random key per step, shared by every pair: each stratum takes its steps of smallest key, a simple random
    # sample of it, and pairs that share an arm tend to draw the same steps, so one call serves both
    key_of = rng.random(len(first))
    differs = np.zeros(len(first), bool)
    pairs = []
    for (a, b), scopes in arm_pairs().items():
        kinds = classify(steps[a], steps[b], blind_exact)
        differs |= ~np.isin(kinds, KNOWN)
        members = {}
        for where, mask, calls in (("tail", in_tail, pair_calls), ("other", ~in_tail, pair_calls)):
            if where == "other" and "all" not in scopes:
                continue
            decisive = mask & np.isin(kinds, ("evidence", "mention"))
            fmt = mask & (kinds == "format")
            sizes = {f"{where}/decisive": int(decisive.sum()), f"{where}/format": int(fmt.sum())}
            for key, drawn in allocate(sizes, calls).items():
                pool = np.flatnonzero(decisive if key.endswith("decisive") else fmt)
                for i in pool[np.argsort(key_of[pool], kind="stable")[:drawn]]:
                    members[int(i)] = (pool.size / drawn, key)
        order = sorted(members)
        pairs.append(
            PairPlan(
                a,
                b,
                [int(step_ids[i]) for i in order],
                [float(members[i][0]) for i in order],
                [members[i][1] for i in order],
            )
        )
    shared = np.flatnonzero(rng.random(len(first)) < sample)
    return Plan(
        steps=[int(step_ids[i]) for i in shared],
        weights=[1.0 / sample] * len(shared),
        pairs=pairs,
        informative=int(differs.sum()),
    )


def smallest_p(units: int) -> float:
    """The smallest one-sided p the runs' exact sign-flip test can reach: every run on the claim's side."""
    return 0.5 ** max(int(units), 0)


def feasibility(units: int, informative_units: int, informative_steps: int, min_units: int, alpha: float) -> str:
    """Can the plan reach a verdict? `units`: independent runs planned; `informative_units`: runs with at least one
    step that tells the arms apart. Every reason that blocks a verdict is named, so that fixing one does not
    reveal the next only after the calls are spent."""
    reasons = []
    if informative_steps == 0:
        reasons.append("0 informative steps")
    if units < min_units:
        reasons.append(f"{units} runs planned, stats.min_units {min_units}")
    elif smallest_p(units) > alpha:
        reasons.append(f"smallest p {smallest_p(units):.3g} > {alpha:g}")
    if informative_steps and informative_units < min_units:
        reasons.append(f"{informative_units} runs with an informative step, stats.min_units {min_units}")
    return f"undecidable by design: {'; '.join(reasons)}" if reasons else "decidable"


def summarize_pairs(rows: pd.DataFrame, min_units: int, alpha: float) -> pd.DataFrame:
    """The design_check table: one row per claim pair over every run of the study."""
    out = []
    for claim, g in rows.groupby("claim", sort=False):
        steps = int(g.steps.sum())
        share = {k: (g[k].sum() / steps if steps else float("nan")) for k in CATEGORIES}
        informative_units = int((g.informative > 0).sum())
        out.append(
            {
                "claim": claim,
                "arm_a": g.arm_a.iloc[0],
                "arm_b": g.arm_b.iloc[0],
                "scope": g.scope.iloc[0],
                "runs": len(g),
                "steps": steps,
                **{f"{k}_share": share[k] for k in CATEGORIES},
                "informative_per_run": float(g.informative.mean()),
                "runs_informative": informative_units,
                "min_units": min_units,
                "smallest_p": smallest_p(len(g)),
                "twin_error_diff": float(g.twin_error_diff.mean()),
                "twin_coverage_diff": float(g.twin_coverage_diff.mean()),
                "plan": feasibility(len(g), informative_units, int(g.informative.sum()), min_units, alpha),
            }
        )
    return pd.DataFrame(out)


def alfworld_games(alf) -> int | None:
    """The games each ALFWorld subset's chain plays, at most (its claims table is per subset): the `smoke`
    subset plays its listed `smoke_games`, a real split its first `max_games` (None: the whole split)."""
    counts = [len(alf.smoke_games) if subset == "smoke" else alf.max_games for subset in alf.subsets]
    counts = [c if alf.max_games is None or c is None else min(c, alf.max_games) for c in counts]
    known = [c for c in counts if c is not None]
    return min(known) if known else None


def study_rows(cfg, min_units: int, alpha: float, fsmem_questions: int | None = None) -> list[dict]:
    """The other model-played studies' paired claims, checked before any call: the independent units each plans
    (questions, games, runs) against `stats.min_units` and the smallest p. A cap of None counts as the whole
    benchmark (enough units); `fsmem_questions`, when the data was read, is the number of LoCoMo questions the
    answer stages ask (fewer than the cap when the kept sessions hold the evidence of fewer)."""

    # a yes/no outcome (correct, won) is decided by the units where the arms part only: the exact paired test's
    # smallest p is 2^-k over k discordant units, so enough units is not enough when the arms rarely part
    discordant = next(k for k in range(1, 64) if 0.5**k <= alpha)

    def row(claim: str, unit: str, units) -> dict:
        n = int(units) if units is not None else None
        ok = n is None or (n >= min_units and smallest_p(n) <= alpha)
        plan = (
            f"decidable if at least {discordant} {unit} part the arms (yes/no outcomes; a score such as F1: any)"
            if ok
            else f"undecidable by design: {n} {unit} planned, stats.min_units {min_units}"
        )
        p = smallest_p(n if n is not None else 10**6)
        return {"claim": claim, "scope": unit, "runs": n, "min_units": min_units, "smallest_p": p, "plan": plan}

    s, lme = cfg.scale, cfg.longmemeval
    questions = None if lme.max_per_type is None else int(lme.max_per_type) * 6  # LongMemEval's six question types
    if lme.max_questions is not None:
        questions = int(lme.max_questions) if questions is None else min(questions, int(lme.max_questions))
    out = [
        row(
            "fsmem: arms on the same LoCoMo questions",
            "questions",
            fsmem_questions if fsmem_questions is not None else cfg.fsmem.max_questions,
        ),
        row("LongMemEval: arms on the same questions", "questions", questions),
    ]

    def not_run(claim: str, unit: str, why: str) -> dict:
        """A study this scale does not play: no units, and where its claims are decided instead."""
        return {"claim": claim, "scope": unit, "runs": 0, "min_units": min_units, "smallest_p": 1.0, "plan": why}

    games = "ALFWorld: arms on the same games"
    if cfg.alfworld.subsets:
        out.append(row(games, "games", alfworld_games(cfg.alfworld)))
    else:
        out.append(
            not_run(
                games,
                "games",
                f"not run at this scale (alfworld.subsets is empty): a game claim needs at least {min_units} games; "
                "scale paper_model plays them (benchmarks/plan_model_slice.py prints its cost)",
            )
        )
    claim = "LLM policy vs random walk: tail shape"
    tails = getattr(s.control, "tail_policy", None) or s.control.policy
    if tails == "llm":  # a model plays the policy: its tails beside the random walk's, run by run
        out.append(row(claim, "runs", len(s.families) * len(s.sizes) * len(s.seeds)))
    else:  # the trajectories come from the model-free proxy
        out.append(
            not_run(
                claim,
                "runs",
                f"not run at this scale (scale.control.tail_policy {tails}): scale paper_model runs the LLM policy "
                "for 160 x 50 steps per run (benchmarks/plan_model_slice.py prints its cost)",
            )
        )
    return out
