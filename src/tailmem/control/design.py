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
`studies.controller.tables.compare_arms`); a step whose prompts a pair's arms share is known exactly (difference
0) and needs no call.

Whether the calls can decide a claim is the twin's to say too (`ClaimTwin`): its per-run differences give the
effect a claim is planned for and its spread between runs, its per-step differences per stratum the spread a
sampled run's estimate adds, so each claim gets a planned power (`tailmem.power.paired`), the runs and calls that
would reach the target, and a cost. A claim whose arms never differ in evidence is zero by design and gets no
call; with a budget (`spend_budget`) the plan buys the calls that decide the most claims.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tailmem.control import arms
from tailmem.graphworld.seeds import derive_seed
from tailmem.power import paired

CATEGORIES = ("identical", "blind", "format", "mention", "evidence")
KNOWN = ("identical", "blind")  # the difference is exactly 0 without a call (blind: for a constrained predictor)


@dataclass(frozen=True)
class ClaimPair:
    """Two arms compared step by step by claims_ctmc (`label`: the claim family), on the tail or on every step."""

    label: str
    a: str
    b: str
    scope: str  # "tail" | "all"
    side: str = "less"  # the side of 0 its claims name for error(a) - error(b): "less" (a lowers it) | "greater"


def claim_pairs() -> list[ClaimPair]:
    """The paired comparisons behind claims_ctmc: Table 5's CTMC vs Graph Memory per encoding, CTMC at Graph
    Memory's measured budget, and Table 6's ordering (each neighbouring pair, tail and overall error)."""
    out = [
        ClaimPair(
            f"Table 5 ({enc}): CTMC vs Graph Memory",
            arms.nominal_ctmc(enc),
            arms.baseline("graph_memory", enc),
            "tail",
            "less",
        )
        for enc in arms.ENCODINGS
    ]
    ablation = arms.table6_arms()
    out.append(
        ClaimPair("matched budget: CTMC vs Graph Memory", ablation[0], arms.baseline("graph_memory"), "tail", "less")
    )
    names = ("CTMC", "uniform", "shuffled", "reversed")
    for scope in ("tail", "all"):
        for (ln, lo), (hn, hi) in zip(zip(names, ablation), zip(names[1:], ablation[1:])):
            words = f"Table 6 ({'tail' if scope == 'tail' else 'overall'}): {ln} vs {hn}"
            out.append(ClaimPair(words, hi, lo, scope, "greater"))
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


STRATA = ("tail/decisive", "tail/format", "other/decisive", "other/format")


def stratum_of(kinds: np.ndarray, in_tail: np.ndarray) -> np.ndarray:
    """Each step's stratum (`STRATA`) for a pair of arms, or "" where the difference is known without a call
    (identical prompts; blind steps when the predictor answers only with a state its block names)."""
    kind = np.select([np.isin(kinds, ("evidence", "mention")), kinds == "format"], ["decisive", "format"], "")
    name = np.char.add(np.where(in_tail, "tail/", "other/"), kind.astype(str))
    return np.where(kind == "", "", name)


def scored(stratum: str, scope: str) -> bool:
    """Does a claim of `scope` (tail | all) read the steps of `stratum`?"""
    return scope == "all" or stratum.startswith("tail/")


def pair_counts(steps: dict[str, pd.DataFrame], in_tail: np.ndarray, pair: ClaimPair, blind_exact: bool = True) -> dict:
    """One run's counts for one claim pair on the steps it scores (its tail, or every step), and per stratum
    (`STRATA`) its steps (`size_<stratum>`) and the SD of the twin's per-step difference in error there
    (`sd_<stratum>`): what the planned power reads (`ClaimTwin`)."""
    scope = in_tail if pair.scope == "tail" else np.ones(len(in_tail), bool)
    every = classify(steps[pair.a], steps[pair.b], blind_exact)
    kinds = every[scope]
    a, b = steps[pair.a][scope], steps[pair.b][scope]
    row = {"claim": pair.label, "arm_a": pair.a, "arm_b": pair.b, "scope": pair.scope, "steps": int(scope.sum())}
    row.update({k: int(np.sum(kinds == k)) for k in CATEGORIES})
    row["informative"] = row["steps"] - sum(row[k] for k in KNOWN)
    # the programmatic twin's own difference, a - b, in error and coverage: what a model that reads only the
    # evidence and the mentions would give
    row["twin_error_diff"] = float(np.mean(b.correct.to_numpy(float) - a.correct.to_numpy(float))) if len(a) else 0.0
    row["twin_coverage_diff"] = float(np.mean(a.covered.to_numpy(float) - b.covered.to_numpy(float))) if len(a) else 0.0
    diff = steps[pair.b].correct.to_numpy(float) - steps[pair.a].correct.to_numpy(float)
    strata = stratum_of(every, in_tail)
    for name in STRATA:
        mine = diff[(strata == name) & scope]
        row[f"size_{name}"] = int(mine.size)
        row[f"sd_{name}"] = float(np.std(mine, ddof=1)) if mine.size > 1 else 0.0
    return row


# The least spread the plan assumes for a step's difference in error, per stratum: a step whose blocks differ in
# evidence or mention is where a reader's answers part (a difference near +-1 about half the time); a format-only
# difference flips a reader less often. The twin measures each stratum's spread, but its rule reads only evidence
# and mentions (a format step never parts it) and a model's answers can part more often than its own: the plan
# takes the larger of the twin's SD and this floor, both to split a pair's calls between strata and for the
# planned power (which is therefore the power for a model whose answers part no more often than that).
# control_report logs how often a model's answers parted in each stratum (the evidence for the next plan).
STRATUM_SD = {"decisive": 0.5, "format": 0.3}


def floored(stratum: str, sd: float) -> float:
    """The SD the plan assumes for a stratum's per-step difference: the twin's, at least `STRATUM_SD`."""
    return max(float(sd), STRATUM_SD[stratum.split("/")[1]])


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


def allocate(sizes: dict[str, int], calls: int, sds: dict[str, float] | None = None) -> dict[str, int]:
    """Calls per stratum: the Neyman allocation (`paired.neyman`) of `calls` by each stratum's size and SD (the
    twin's `sds`, floored at `STRATUM_SD`; the floor alone without them), at least one call in a non-empty
    stratum, never more than its size."""
    keys = list(sizes)
    sd = [floored(k, (sds or {}).get(k, 0.0)) for k in keys]
    return dict(zip(keys, paired.neyman([sizes[k] for k in keys], sd, calls)))


def arm_pairs() -> dict[tuple[str, str], set[str]]:
    """Each pair of arms some claim compares -> the scopes its claims score (tail, all)."""
    out: dict[tuple[str, str], set[str]] = {}
    for p in claim_pairs():
        out.setdefault((p.a, p.b), set()).add(p.scope)
    return out


def run_seed(family: str, size: int, seed: int) -> int:
    """The random key stream of one run's plan, named by the run (family, size, seed): runs of different families
    with one seed draw different steps (`graphworld.seeds.derive_seed`)."""
    return derive_seed(int(seed), "design plan", str(family), int(size))


def plan(
    steps: dict[str, pd.DataFrame],
    in_tail: np.ndarray,
    pair_calls: int | dict[tuple[str, str], tuple[int, int]],
    sample: float,
    seed: int,
    blind_exact: bool = True,
) -> Plan:
    """A run's plan. Per pair of arms, its steps split into strata (`stratum_of`): tail or other, and decisive
    (the blocks differ in evidence coverage or in naming the true next state) or format (they differ otherwise); a
    step whose blocks are identical needs no call (difference exactly 0), nor does a blind step when
    `blind_exact`. `pair_calls` says how many steps each pair draws: an int, that many from the tail's strata and
    as many from the other steps' when a claim of the pair scores every step (those are most of its steps, so
    their draws set its interval); a mapping (a, b) -> (tail, other) calls, a budget's allocation (`spend_budget`;
    a pair it leaves out draws nothing). Within tail or other, the calls split between strata by Neyman
    allocation on the twin's per-step SDs of this run (`allocate`; the steps' `correct` is the twin's). Each drawn
    step weighs its stratum's size / drawn, so each pair's difference is unbiased
    (`studies.controller.tables.compare_arms`). A `sample` share of every step, shared by all arms and weighing
    1/sample, estimates each arm's own error (`control.replay.error_rate`). Draws share one random key per step
    (common random numbers), so overlapping pairs share calls; `seed` names the run's key stream (`run_seed`)."""
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
        strata = stratum_of(kinds, in_tail)
        diff = _twin_diff(steps[a], steps[b])
        if isinstance(pair_calls, dict):
            tail_calls, other_calls = pair_calls.get((a, b), (0, 0))
        else:
            tail_calls, other_calls = pair_calls, pair_calls
        members = {}
        for where, calls in (("tail", tail_calls), ("other", other_calls)):
            if where == "other" and "all" not in scopes:
                continue
            names = [f"{where}/decisive", f"{where}/format"]
            sizes = {k: int(np.sum(strata == k)) for k in names}
            sds = {k: float(np.std(diff[strata == k], ddof=1)) if sizes[k] > 1 else 0.0 for k in names}
            for key, drawn in allocate(sizes, calls, sds).items():
                pool = np.flatnonzero(strata == key)
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


def _twin_diff(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """The twin's per-step difference in error, a - b (zeros when the frames carry no `correct`)."""
    if "correct" not in a or "correct" not in b:
        return np.zeros(len(a))
    return b.correct.to_numpy(float) - a.correct.to_numpy(float)


def feasibility(units: int, informative_units: int, informative_steps: int, min_units: int, alpha: float) -> str:
    """Can the plan reach a verdict? `units`: independent runs planned; `informative_units`: runs with at least one
    step that tells the arms apart. Every reason that blocks a verdict is named, so that fixing one does not
    reveal the next only after the calls are spent."""
    reasons = []
    if informative_steps == 0:
        reasons.append("0 informative steps")
    if units < min_units:
        reasons.append(f"{units} runs planned, stats.min_units {min_units}")
    elif paired.smallest_p(units) > alpha:
        reasons.append(f"smallest p {paired.smallest_p(units):.3g} > {alpha:g}")
    if informative_steps and informative_units < min_units:
        reasons.append(f"{informative_units} runs with an informative step, stats.min_units {min_units}")
    return f"undecidable by design: {'; '.join(reasons)}" if reasons else "decidable"


@dataclass(frozen=True)
class ClaimTwin:
    """One claim pair's twin over the runs of a design check (its rows of pairs.csv, one per run): what the planned
    power reads. `effect`: the mean over runs of the twin's difference in error (a - b) on the steps the claim
    scores; `sd_between`: its SD over runs (the spread a row has with every step called); `sizes` and `sds`
    (runs x `STRATA`): each run's steps per stratum and the SD the plan assumes there (`floored`); `steps`: each
    run's scored steps; `evidence`: the scored steps, over every run, whose blocks differ in evidence coverage."""

    pair: ClaimPair
    effect: float
    sd_between: float
    sizes: np.ndarray
    sds: np.ndarray
    steps: np.ndarray
    evidence: int
    runs: tuple[tuple[str, int], ...]  # (family, seed) per row

    @classmethod
    def of(cls, pair: ClaimPair, rows: pd.DataFrame) -> ClaimTwin:
        diffs = rows.twin_error_diff.to_numpy(float)
        return cls(
            pair=pair,
            effect=float(diffs.mean()) if diffs.size else float("nan"),
            sd_between=float(diffs.std(ddof=1)) if diffs.size > 1 else float("nan"),
            sizes=rows[[f"size_{k}" for k in STRATA]].to_numpy(float),
            sds=np.array(
                [[floored(k, s) for k, s in zip(STRATA, r)] for r in rows[[f"sd_{k}" for k in STRATA]].to_numpy(float)]
            ),
            steps=rows.steps.to_numpy(float),
            evidence=int(rows.evidence.sum()),
            runs=tuple(zip(rows.family.astype(str), rows.seed.astype(int))) if "family" in rows else (),
        )

    @property
    def zero_by_design(self) -> bool:
        """The arms' blocks never differ in evidence on the steps the claim scores: what the claim credits (better
        evidence) cannot differ, whatever a model reads."""
        return self.evidence == 0

    def draws(self, tail: int, other: int) -> np.ndarray:
        """Per run and stratum, the draws a plan of `tail` and `other` calls per run makes (`allocate`, as `plan`
        splits them), on the strata this claim scores."""
        out = np.zeros_like(self.sizes, dtype=int)
        for r in range(len(self.sizes)):
            for where, calls in (("tail", tail), ("other", other)):
                names = [k for k in STRATA if k.startswith(where) and scored(k, self.pair.scope)]
                if not names:
                    continue
                sizes = {k: int(self.sizes[r, STRATA.index(k)]) for k in names}
                sds = {k: float(self.sds[r, STRATA.index(k)]) for k in names}
                for k, n in allocate(sizes, calls, sds).items():
                    out[r, STRATA.index(k)] = n
        return out

    def unit_sd(self, draws: np.ndarray | None) -> float:
        """The SD of one run's estimate: between runs, and the draw's own spread at `draws` (runs x strata; None:
        every step called)."""
        if draws is None:
            return self.sd_between
        within = [
            paired.draw_variance(self.sizes[r], self.sds[r], draws[r], self.steps[r]) if self.steps[r] else 0.0
            for r in range(len(self.sizes))
        ]
        return math.sqrt(self.sd_between**2 + float(np.mean(within))) if within else float("nan")

    def power(self, units: int, draws: np.ndarray | None, alpha: float) -> float:
        """The chance the claims row is decided (HELD or NOT HELD, `paired.decided`) at the twin's effect with
        `units` runs and `draws` (runs x strata; None: every step called)."""
        return paired.decided(self.effect, self.unit_sd(draws), units, alpha)

    @property
    def expects(self) -> str:
        """The verdict the twin's effect points to: HELD on the claim's side of 0, else NOT HELD."""
        return "HELD" if (self.effect < 0) == (self.pair.side == "less") and self.effect != 0 else "NOT HELD"

    def calls(self, draws: np.ndarray, units: int) -> float:
        """Predictor calls for this claim over `units` runs: both arms at every drawn step the claim reads."""
        return 2.0 * float(draws.sum(axis=1).mean()) * units if len(draws) else 0.0

    def most_calls(self) -> int:
        """Calls per run (tail, and as many other) past which every step the claim scores is drawn in every run."""
        if not self.sizes.size:
            return 0
        tail = self.sizes[:, [STRATA.index(k) for k in STRATA if k.startswith("tail/")]].sum(axis=1)
        other = self.sizes[:, [STRATA.index(k) for k in STRATA if k.startswith("other/")]].sum(axis=1)
        return int(max(tail.max(), other.max() if self.pair.scope == "all" else 0))

    def calls_for(self, units: int, alpha: float, target: float) -> int | None:
        """The fewest calls per run (tail calls, and as many other where the claim scores every step) at which
        `units` runs reach `target` power; None when even every step called does not."""
        top = self.most_calls()
        if top == 0 or self.power(units, None, alpha) < target:
            return None
        lo, hi = 1, top
        while lo < hi:  # the draw variance falls as calls rise
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self.power(units, self.draws(mid, mid), alpha) >= target else (mid + 1, hi)
        return lo


def twins(rows: pd.DataFrame) -> dict[str, ClaimTwin]:
    """Each claim pair's `ClaimTwin` from the design check's pairs.csv rows of every run (label -> twin)."""
    by_label = {p.label: p for p in claim_pairs()}
    return {
        label: ClaimTwin.of(by_label[label], g) for label, g in rows.groupby("claim", sort=False) if label in by_label
    }


def drawn(plans, pair: ClaimPair, runs: tuple[tuple[str, int], ...]) -> np.ndarray:
    """Per run (in `runs` order) and stratum, the steps the plans (`DesignPlan`s) drew for `pair`'s arms on the
    strata its claim scores."""
    by_run = {(str(p.family), int(p.seed)): p for p in plans}
    out = np.zeros((len(runs), len(STRATA)), dtype=int)
    for r, run in enumerate(runs):
        for p in by_run[run].pairs if run in by_run else ():
            if (p["a"], p["b"]) == (pair.a, pair.b):
                for k in p["strata"]:
                    if scored(k, pair.scope):
                        out[r, STRATA.index(k)] += 1
    return out


@dataclass(frozen=True)
class PlanBudget:
    """What a plan may spend and how it values a claim: `seconds` of predictor calls (None: no budget), at
    `rate` seconds a call; `target` the power a claim is planned to, `least` the power below which a claim is
    not worth a call; `alpha` the one-sided level of the claims' tests."""

    seconds: float | None
    rate: float
    target: float
    least: float
    alpha: float


def _grid(top: int) -> list[int]:
    """Calls per run a budget plan considers for a stratum group: 0, then doubling-ish steps up to `top`."""
    out, n = [0], 1
    while n < top:
        out.append(n)
        n = max(n + 1, int(round(n * 1.4)))
    return out + [top] if top else out


def spend_budget(
    twin_of: dict[str, ClaimTwin], units: int, budget: PlanBudget
) -> dict[tuple[str, str], tuple[int, int]]:
    """Calls per run, (tail, other), for each pair of arms, so that the claims' planned powers (`ClaimTwin.power`)
    sum to the most `budget.seconds` buys over `units` runs (`paired.spend`). A claim counts only where its power
    reaches `budget.least`: a plan does not buy a claim it would decide a few times in ten; a claim whose twin
    effect is zero by design (`ClaimTwin.zero_by_design`) counts nothing. A pair left out draws nothing."""
    groups: dict[tuple[str, str], list[ClaimTwin]] = {}
    for twin in twin_of.values():
        groups.setdefault((twin.pair.a, twin.pair.b), []).append(twin)
    keys, options = list(groups), []
    for key in keys:
        mine = groups[key]
        top = max(t.most_calls() for t in mine)
        overall = any(t.pair.scope == "all" for t in mine)
        opts, choice = [(0.0, 0.0)], [(0, 0)]
        for tail in _grid(top):
            for other in _grid(top) if overall else [0]:
                if tail == other == 0:
                    continue
                value, per_run = 0.0, np.zeros(len(mine[0].sizes))
                for t in mine:
                    d = t.draws(tail, other)
                    p = 0.0 if t.zero_by_design else t.power(units, d, budget.alpha)
                    value += p if p >= budget.least else 0.0
                    per_run = np.maximum(per_run, d.sum(axis=1))  # the overall claim's draws hold the tail's
                opts.append((2.0 * units * float(per_run.mean()) * budget.rate, value))
                choice.append((tail, other))
        options.append((opts, choice))
    picks = paired.spend([o for o, _ in options], float(budget.seconds or 0.0))
    return {key: choice[i] for key, (_, choice), i in zip(keys, options, picks) if choice[i] != (0, 0)}


def plan_text(
    twin: ClaimTwin,
    called: bool,
    units: int,
    planned: float,
    units_80: int | None,
    calls_80: int | None,
    every_80: int | None,
    budget: PlanBudget,
    designed: str,
) -> str:
    """What the plan can do for a claim, in words: the design check's reasons first (`feasibility`), then its
    twin's: zero by design, decidable, left without calls by a budget (`called` False), short of power at the
    plan's calls, out of reach at this scale's runs, or at any number of runs."""
    if designed != "decidable":
        return designed
    at = f"{budget.target:.0%} power"
    if twin.zero_by_design:
        every = (
            f"{at} would take {every_80:,} runs with every step called"
            if every_80
            else f"no number of runs reaches {at} (its sign is not the claim's)"
        )
        return (
            f"twin effect zero by design (the arms' blocks differ in evidence on 0 of {int(twin.steps.sum()):,} "
            f"scored steps; twin effect {twin.effect:+.3f}): undecidable at any budget, {every}; no calls"
        )
    expect = f"{twin.expects} expected at the twin's effect {twin.effect:+.3f}"
    shown = f"{math.floor(100 * planned)}%"  # 79.9% is not 80%
    if planned >= budget.target:
        return f"decidable: planned power {shown} ({expect})"
    if not called:
        every = twin.power(units, None, budget.alpha)
        return (
            f"no calls planned: the budget decides more claims elsewhere (every step called: power "
            f"{math.floor(100 * every)}% over {units} runs; {expect})"
        )
    if calls_80 is not None:
        return f"underpowered: planned power {shown}; {at} at {calls_80} draws per run over {units} runs ({expect})"
    if every_80 is not None:
        return (
            f"no budget of this scale's {units} runs reaches {at} (planned power {shown}): it would take "
            f"{every_80:,} runs with every step called ({expect})"
        )
    return f"undecidable at any budget: the twin's effect {twin.effect:+.3f} reaches {at} at no number of runs"


def summarize_pairs(rows: pd.DataFrame, min_units: int, budget: PlanBudget, plans=()) -> pd.DataFrame:
    """The design_check table: one row per claim pair over every run of the study, with its planned power at the
    twin's effect under the `plans` (`DesignPlan`s; none: every step called) and what 80% would take."""
    out = []
    alpha = budget.alpha
    twin_of = twins(rows)
    for claim, g in rows.groupby("claim", sort=False):
        steps = int(g.steps.sum())
        share = {k: (g[k].sum() / steps if steps else float("nan")) for k in CATEGORIES}
        informative_units = int((g.informative > 0).sum())
        twin, units = twin_of[claim], len(g)
        draws = drawn(plans, twin.pair, twin.runs) if plans else None
        planned = 0.0 if twin.zero_by_design else twin.power(units, draws, alpha)
        units_80 = paired.units_for(twin.effect, twin.unit_sd(draws), alpha, target=budget.target, least=min_units)
        every_80 = paired.units_for(twin.effect, twin.sd_between, alpha, target=budget.target, least=min_units)
        per_run = twin.calls_for(units, alpha, budget.target)
        calls_80 = None if per_run is None else twin.calls(twin.draws(per_run, per_run), units)
        calls = 0.0 if twin.zero_by_design or draws is None else twin.calls(draws, units)
        designed = feasibility(units, informative_units, int(g.informative.sum()), min_units, alpha)
        out.append(
            {
                "claim": claim,
                "arm_a": g.arm_a.iloc[0],
                "arm_b": g.arm_b.iloc[0],
                "scope": g.scope.iloc[0],
                "runs": units,
                "steps": steps,
                **{f"{k}_share": share[k] for k in CATEGORIES},
                "informative_per_run": float(g.informative.mean()),
                "runs_informative": informative_units,
                "min_units": min_units,
                "smallest_p": paired.smallest_p(units),
                "twin_coverage_diff": float(g.twin_coverage_diff.mean()),
                "twin_effect": twin.effect,
                "sd_between": twin.sd_between,
                "planned_units": units,
                "planned_calls": calls,
                "calls_per_unit": calls / units if units else float("nan"),
                "planned_power": planned,
                "units_for_80": units_80,
                "calls_for_80": calls_80,
                "core_seconds": calls * budget.rate,
                "plan": plan_text(
                    twin, calls > 0 or draws is None, units, planned, units_80, per_run, every_80, budget, designed
                ),
            }
        )
    return pd.DataFrame(out)
