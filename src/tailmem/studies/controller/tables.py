"""Paper 1 Tables 4-6 and the CTMC claims from the controller study's summaries, paper values beside ours.

Rows aggregate every family and seed of the study (mean ± sd); the CSV keeps the per-arm numbers. The frame is
one `summary_row` per arm, family and seed (the stage reads the summaries).

Tail error and tail coverage are scored on ONE tail set per replayed trajectory (`shared_tail`): the least-accessed
half of the states predicted at, ranked by the trajectory's own access counts (the rollout's trace), so every arm
is scored on the same states. Each arm's own-count tail (`control.replay.tail_states` on its counts, what
summary.json holds) stays beside it as `tail_error_own` / `tail_coverage_own`.

The claims (`claims`) are decided from per-state paired differences of the per-step records (`steps.parquet`).
The states of one replayed trajectory share its memory, so the independent unit is the run (family x seed): the
verdict reads the runs (an exact interval at few runs, else runs resampled and states within them; the claim's
sign-flip test on each run's mean), and the state-level reading (states as if independent) stands beside it
(tailmem.stats).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tailmem import outputs
from tailmem.control import arms
from tailmem.control.replay import error_rate, tail_states
from tailmem.memory.arm_names import ArmName
from tailmem.records.control import ControlSummary
from tailmem.report import paper1_values as paper
from tailmem.report.claims import Claim, build, evidence, power_of
from tailmem.report.table_spec import specs, text
from tailmem.roles import PREDICTOR, PROGRAMMATIC
from tailmem.settings.stats import StatsGroup
from tailmem.stats.compare import compare, missing
from tailmem.studies.controller import claim_specs

METRICS = ("tokens_per_step", "overall_error", "tail_error", "overall_coverage", "tail_coverage")
OWN_TAIL = ("tail_error_own", "tail_coverage_own")  # each arm's own-count tail, kept beside the shared one
ERRORS = ("overall_error", "tail_error")  # the metrics a model's answers make: a planned replay reads them at few steps
RUN = ["family", "seed"]  # one replayed trajectory
FILE = "controller/control.yaml"  # these tables' words and column lists (this study's data/control.yaml)
SPECS = specs(FILE)
# what the claims read of steps.parquet (`called` and `prompt_sha`: a planned model replay's uncalled steps are
# those whose prompts the claims' arms share, so their difference is exactly 0)
STEP_COLUMNS = (
    "step",
    "state",
    "correct",
    "covered",
    "mentions_next",
    "prompt_tokens",
    "called",
    "prompt_sha",
    "weight",
)


SUMMARY_COLUMNS = (
    "label",
    "controller",
    "encoding",
    "budget",
    "tau",
    "order",
    PREDICTOR,
    "policy",  # the walk policy, not the role
    *METRICS,
    "memory_tokens_per_step",
)  # fields of records.control.ControlSummary


def summary_row(arm: str, family: str, seed: int, summary: ControlSummary) -> dict:
    """One controller-study summary.json as a row of the frame every table here reads."""
    return {"arm": arm, "family": family, "seed": seed, **{k: getattr(summary, k) for k in SUMMARY_COLUMNS}}


def shared_tail(steps: pd.DataFrame, trajectory_counts: dict, fraction: float) -> pd.DataFrame:
    """`steps` (every arm's per-step rows, with arm, family and seed) with a boolean `in_tail` column: the step's
    state is among the least-accessed `fraction` of the states predicted at, ranked by its trajectory's access
    counts (`trajectory_counts[(family, seed)]`). The same states for every arm of a run."""
    parts = []
    for (fam, seed), run in steps.groupby(RUN, sort=False):
        tail = tail_states(run, np.asarray(trajectory_counts[(fam, seed)]), fraction)
        parts.append(run.assign(in_tail=np.isin(run.state.to_numpy(), tail)))
    return pd.concat(parts, ignore_index=True)


def answered(rows: pd.DataFrame) -> int:
    """The rows an arm's own error reads (`error_rate`): every row, or in a planned replay the called ones of its
    uniform sample (weight > 0; a step called only for a pair's difference weighs 0 there)."""
    if "weight" in rows and not rows.called.all():
        return int((rows.called.astype(bool) & (rows.weight > 0)).sum())
    return len(rows)


def with_shared_tail(
    df: pd.DataFrame, steps: pd.DataFrame, arm_counts: dict | None = None, fraction: float = 0.5
) -> pd.DataFrame:
    """The summary frame with tail error and coverage scored on the shared tail (`shared_tail`); the
    summaries' own-count values move to `tail_error_own` and `tail_coverage_own`. `tail_error_steps` and
    `overall_error_steps`: the answered steps each error rests on (`answered`); with `arm_counts` ((arm, family,
    seed) -> the arm's access counts, its counts.npz) also `tail_error_own_steps`, those of the arm's own tail (the
    least-accessed `fraction` of the states predicted at by its own counts, as its summary scored it)."""

    def own(arm, fam, seed, g) -> dict:
        if arm_counts is None:
            return {}
        tail = tail_states(g, np.asarray(arm_counts[(arm, fam, seed)]), fraction)
        return {"tail_error_own_steps": answered(g[np.isin(g.state.to_numpy(), tail)])}

    shared = pd.DataFrame(
        [
            {"arm": arm, "family": fam, "seed": seed, "tail_error": error_rate(g[g.in_tail])}
            | {"tail_coverage": g.covered[g.in_tail].mean(), "tail_steps": int(g.in_tail.sum())}
            | {"tail_error_steps": answered(g[g.in_tail]), "overall_error_steps": answered(g)}
            | own(arm, fam, seed, g)
            for (arm, fam, seed), g in steps.groupby(["arm", *RUN])
        ]
    )
    out = df.rename(columns={"tail_error": "tail_error_own", "tail_coverage": "tail_coverage_own"})
    return out.merge(shared, on=["arm", *RUN], how="left")


def _aggregate(
    df: pd.DataFrame, arm_list: list[str], metrics=METRICS, cells: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Mean and sd over runs per arm of `arm_list` that ran (a scale may run only the claims' arms), and per error
    the answered steps it rests on over all runs (`<error>_steps`). `cells` (`planned_cells`): a planned replay's
    errors estimated along the claims' pairs, which replace the arms' own (their sd then blank: one estimate
    over every run, not a mean of runs)."""
    rows = []
    for arm in (a for a in arm_list if (df.arm == a).any()):
        sub = df[df.arm == arm]
        row = {"arm": arm, "controller": sub.label.iloc[0], "encoding": sub.encoding.iloc[0], "runs": len(sub)}
        for m in (*metrics, *(c for c in OWN_TAIL if c in sub)):
            row[m] = sub[m].mean()
            row[f"{m}_sd"] = sub[m].std(ddof=1)
        for m in (*ERRORS, "tail_error_own"):
            if f"{m}_steps" in sub:
                row[f"{m}_steps"] = int(sub[f"{m}_steps"].sum())
        mine = pd.DataFrame() if cells is None else cells[cells.arm == arm]
        for cell in mine.itertuples():
            row[cell.metric], row[f"{cell.metric}_sd"], row[f"{cell.metric}_steps"] = cell.value, np.nan, cell.steps
        rows.append(row)
    return pd.DataFrame(rows)


def _with_paper(out: pd.DataFrame) -> pd.DataFrame:
    """Paper 1's tokens/step and tail error beside each arm, from the one source
    (`paper1_values.controller_value`), and the paper table they come from."""
    keys = [(a.controller, a.encoding) for a in map(ArmName.parse, out.arm)]
    for m in ("tokens_per_step", "tail_error"):
        out[f"{m}_paper"] = [paper.controller_value(c, e, m) for c, e in keys]
    out["paper_table"] = [paper.controller_table(c, e) for c, e in keys]
    return out


def table4(df: pd.DataFrame) -> pd.DataFrame:
    return SPECS[outputs.TABLE4_BASELINES].check(_with_paper(_aggregate(df, arms.table4_arms())))


def table5(df: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """`cells`: a planned replay's errors along the claims' pairs (`planned_cells`)."""
    return SPECS[outputs.TABLE5_GRAPH_VS_CTMC].check(_with_paper(_aggregate(df, arms.table5_arms(), cells=cells)))


def table4_note(predictor: str) -> str:
    """What Table 4's paper columns can and cannot be compared with, given the predictor that made ours."""
    if PROGRAMMATIC in predictor:
        return text(FILE, "table4_programmatic")
    return text(FILE, "table4_model", predictor=predictor)


def table5_note(budgets: dict) -> str:
    """How Table 5's arms are budgeted; `budgets` maps a controller to its nominal memory budget (tokens)."""
    return text(FILE, "table5_budgets", graph_memory=budgets.get("graph_memory"), ctmc=budgets.get("ctmc"))


ABLATION_NAMES = ("ctmc", "uniform", "shuffled", "reversed")
ALLOCATIONS = ("CTMC (tau=1)", "Uniform (tau=0)", "Shuffled ranks (tau=1)", "Reversed ranks (tau=1)")


def table6(df: pd.DataFrame, cells: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per ablation arm that ran (`scale.control.arms: first_claim` runs only tau = 1's); `cells`: a
    planned replay's errors along the claims' pairs (`planned_cells`)."""
    out = _aggregate(df, arms.table6_arms(), cells=cells)
    order = arms.table6_arms()
    ran = [order.index(arm) for arm in out.get("arm", [])]
    names = [ABLATION_NAMES[i] for i in ran]
    out.insert(1, "allocation", [ALLOCATIONS[i] for i in ran])
    for m in ("tokens_per_step", "overall_error", "tail_error"):
        out[f"{m}_paper"] = [paper.TABLE6[name][m] for name in names]
    return SPECS[outputs.TABLE6_ABLATION].check(out)


def _paired(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Per family and seed, arm a's and arm b's numbers side by side."""
    paired = df[df.arm == a].merge(df[df.arm == b], on=["family", "seed"], how="inner", suffixes=("_a", "_b"))
    return paired.set_index(["family", "seed"])


def token_reduction(df: pd.DataFrame) -> pd.DataFrame:
    """Figure 7's data: CTMC vs Graph Memory per paired configuration (family x seed x encoding), each at its own
    nominal budget (Table 5's arms), so a negative reduction (CTMC spends more) can appear."""
    rows = []
    for enc in arms.ENCODINGS:
        p = _paired(df, arms.baseline("graph_memory", enc), arms.nominal_ctmc(enc))
        for (fam, seed), r in p.iterrows():
            rows.append(
                {
                    "family": fam,
                    "seed": seed,
                    "encoding": enc,
                    "graph_memory_tokens": r.tokens_per_step_a,
                    "ctmc_tokens": r.tokens_per_step_b,
                    "reduction_pct": 100.0 * (1.0 - r.tokens_per_step_b / r.tokens_per_step_a),
                    "tail_error_change": r.tail_error_b - r.tail_error_a,
                    "tail_coverage_change": r.tail_coverage_b - r.tail_coverage_a,
                }
            )
    return SPECS[f"{outputs.FIG7_REDUCTION}_data"].check(pd.DataFrame(rows))


def _paired_steps(steps: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """Arm a's and arm b's rows of the same step of the same trajectory side by side (suffixes _a, _b)."""
    keys = [*RUN, "step"]
    cols = [
        c
        for c in ("correct", "covered", "mentions_next", "prompt_tokens", "called", "prompt_sha", "weight")
        if c in steps
    ]
    right = steps.loc[steps.arm == b, [*keys, *cols]]
    return steps[steps.arm == a].merge(right, on=keys, how="inner", suffixes=("_a", "_b"))


def _planned(p: pd.DataFrame, col: str) -> bool:
    """Whether `col` of the paired rows `p` is known at some steps only: a planned model replay's answers."""
    return col == "correct" and "called_a" in p and not (p.called_a.all() and p.called_b.all())


def _blind(p: pd.DataFrame) -> np.ndarray:
    """Steps where neither block names the true next state and the plan knows both arms are wrong there
    (`blind_exact`: the predictor answers only with a state its block names)."""
    if "blind_exact" not in p or "mentions_next_a" not in p:
        return np.zeros(len(p), bool)
    return (p.blind_exact.astype(bool) & ~p.mentions_next_a.astype(bool) & ~p.mentions_next_b.astype(bool)).to_numpy()


def _step_diff(p: pd.DataFrame, col: str, sign: float) -> tuple[pd.Series, pd.Series]:
    """(sign x (a - b) of `col`, weight) per paired step. In a planned model replay (`control.plan`) a step at
    which both arms sent the same prompt differs by exactly 0 (greedy decoding: one prompt, one answer), weight 1,
    called or not, and so does a blind step (neither block names the true next state) when the plan knows it
    (`blind_exact`: the predictor answers only with a state its block names, so both arms are wrong); a step the
    plan drew for this pair (`pair_weight`, its stratum's size / drawn: the weighted mean is the pair's
    difference without bias) weighs that; any other step is left out (NaN). Without pair draws (an older plan) a
    step called for both arms weighs its shared plan weight."""
    d = sign * (p[f"{col}_a"].astype(float) - p[f"{col}_b"].astype(float))
    w = pd.Series(1.0, index=p.index)
    if not _planned(p, col):
        return d, w
    same = (p.prompt_sha_a == p.prompt_sha_b).to_numpy(copy=True) | _blind(p)
    called = (p.called_a.astype(bool) & p.called_b.astype(bool)).to_numpy()
    weight = p.pair_weight.astype(float) if "pair_weight" in p else p.weight_a.astype(float)
    drawn = called & weight.notna().to_numpy() & (weight.fillna(0) > 0).to_numpy()
    d = d.mask(same, 0.0).mask(~same & ~drawn, np.nan)
    return d, w.mask(~same & drawn, weight)


def _per_state(paired: pd.DataFrame, diff: pd.Series, weight: pd.Series | None = None) -> pd.DataFrame:
    """Weighted mean step difference per state of each trajectory (the unit), its summed step weight (its weight
    in the run's mean: its step count when every step was called), its seed."""
    w = np.ones(len(paired)) if weight is None else weight.to_numpy(dtype=float)
    frame = paired[[*RUN, "state"]].assign(wd=w * diff.to_numpy(dtype=float), w=w)
    g = frame.groupby([*RUN, "state"])
    out = pd.DataFrame({"diff": g.wd.sum() / g.w.sum(), "steps": g.w.sum()}).reset_index()
    return out[out.steps > 0]


DIFFS = {  # metric -> (step column, sign): error = 1 - correct, so b - a of `correct` is a - b of error
    "tail_error": ("correct", -1.0),
    "overall_error": ("correct", -1.0),
    "tail_coverage": ("covered", 1.0),
    "overall_coverage": ("covered", 1.0),
    "tokens_per_step": ("prompt_tokens", 1.0),
}


def compare_arms(
    steps: pd.DataFrame,
    a: str,
    b: str,
    metric: str,
    direction: str,
    threshold: float,
    s: StatsGroup,
    pair_weights: pd.DataFrame | None = None,
) -> dict:
    """Claims columns of metric(a) - metric(b) over the same steps, read on the runs (the verdict), with the
    state-level reading beside it (`state_*`, `n_states`). Tail metrics use the shared tail only. `pair_weights`
    (family, seed, a, b, step, pair_weight): a planned replay's draws per pair of arms (`pair_weight_frame`)."""
    p = _pair_frame(steps, a, b, metric, pair_weights)
    col, sign = DIFFS[metric]
    d, w = _step_diff(p, col, sign)
    keep = d.notna().to_numpy()
    units = _per_state(p[keep], d[keep], w[keep])
    run = (units.family.astype(str) + "/" + units.seed.astype(str)).to_numpy()
    runs = compare(
        units["diff"], run, units["steps"], direction=direction, threshold=threshold, settings=s, clustered=True
    )
    states = compare(units["diff"], None, units["steps"], direction=direction, threshold=threshold, settings=s)
    row = {
        "unit": UNIT,
        **runs.row(),
        "n_seeds": int(units.seed.nunique()),
        "n_states": len(units),
        "state_ci_low": states.interval.low,
        "state_ci_high": states.interval.high,
        "state_verdict": states.verdict,
    }
    if states.verdict != runs.verdict:
        row["reason"] = "; ".join(filter(None, (row["reason"], f"states as independent units: {states.verdict}")))
    return row


UNIT = "run (family x seed); states within"


def _pair_frame(steps: pd.DataFrame, a: str, b: str, metric: str, pair_weights: pd.DataFrame | None) -> pd.DataFrame:
    """Arm a's and arm b's rows of the steps `metric` scores (the shared tail for a tail metric) side by side, with
    a planned replay's draws for this pair (`pair_weight`) and whether its blind steps are known (`blind_exact`)."""
    p = _paired_steps(steps, a, b)
    if pair_weights is not None:
        mine = pair_weights[
            ((pair_weights.a == a) & (pair_weights.b == b)) | ((pair_weights.a == b) & (pair_weights.b == a))
        ]
        p = p.merge(mine[[*RUN, "step", "pair_weight"]], on=[*RUN, "step"], how="left")
        p = p.merge(pair_weights.attrs["blind_exact"], on=RUN, how="left")
    if metric.startswith("tail_"):
        p = p[p.in_tail]
    return p


def pair_levels(steps: pd.DataFrame, a: str, b: str, metric: str, pair_weights: pd.DataFrame | None = None) -> dict:
    """Arm a's and arm b's `metric` estimated as their claims row estimates their difference: over the same steps
    with the same weights (`_step_diff`), pooled over runs as the row's estimate is (each run weighs its steps), so
    `a - b` is the row's `estimate` and the two can never point different ways.

    Where every step was predicted that is each arm's mean over the pair's steps. In a planned model replay the
    steps the pair drew carry each arm's own answers; a blind step is wrong in both; a step whose prompts the arms
    share has one answer for both, read where either arm was called, and elsewhere the error of such steps in the
    plan's uniform sample (`control.plan_sample`, weight > 0), or when the sample holds none of them, the error of
    every sampled step of the pair (both arms' answers): the same value in both arms, so it sets the pair's level
    and leaves its difference alone. `steps`: the called steps these levels read; `blind`: the blind steps known
    wrong in both without a call; `sampled`: the sampled steps the unread ones rest on (None when none had to be
    filled in, NaN levels when the sample holds none); `any_prompt`: whether those are every sampled step rather
    than the shared-prompt ones; `estimate`: the row's, a - b."""
    p = _pair_frame(steps, a, b, metric, pair_weights)
    col, sign = DIFFS[metric]
    d, w = _step_diff(p, col, sign)
    keep = d.notna().to_numpy()
    va, vb = (p[f"{col}_{x}"].to_numpy(dtype=float) for x in "ab")
    read, sampled, known, any_prompt = int(keep.sum()), None, 0, False
    if _planned(p, col):
        called_a, called_b = p.called_a.to_numpy(bool), p.called_b.to_numpy(bool)
        read = int((keep & (called_a | called_b)).sum())
        blind = _blind(p)
        known = int((keep & blind).sum())
        same = (p.prompt_sha_a == p.prompt_sha_b).to_numpy() & ~blind
        # a shared prompt's answer, read where either arm was called: one prompt, one answer
        common = np.where(called_a, va, vb)
        in_sample = called_a & called_b & (p.weight_a.to_numpy(float) > 0) & (p.weight_b.to_numpy(float) > 0)
        unread = keep & same & ~called_a & ~called_b
        if unread.any():
            sampled = int((same & in_sample).sum())
            any_prompt = not sampled
            pool = (va + vb)[in_sample] / 2 if any_prompt else common[same & in_sample]
            sampled = sampled or int(in_sample.sum())
            common = np.where(unread, pool.mean() if sampled else np.nan, common)
        va = np.where(blind, 0.0, np.where(same, common, va))
        vb = np.where(blind, 0.0, np.where(same, common, vb))
    w = w.to_numpy(dtype=float)[keep]
    total = w.sum()
    level_a, level_b = (float((w * v[keep]).sum() / total) if total > 0 else float("nan") for v in (va, vb))
    if sign < 0:  # error = 1 - correct
        level_a, level_b = 1.0 - level_a, 1.0 - level_b
    estimate = float((w * d.to_numpy(dtype=float)[keep]).sum() / total) if total > 0 else float("nan")
    return {
        "a": level_a,
        "b": level_b,
        "estimate": estimate,
        "steps": read,
        "blind": known,
        "sampled": sampled,
        "any_prompt": any_prompt,
    }


def level_chains() -> list[tuple[list[str], str]]:
    """(arms, metric) whose planned cells are read along claim pairs: each two neighbours are the arm and the
    baseline of one claims row on that metric (Table 5's Graph Memory and CTMC per encoding on tail error; Table
    6's ablation, CTMC < uniform < shuffled < reversed, on tail and overall error)."""
    table5 = [([arms.baseline("graph_memory", enc), arms.nominal_ctmc(enc)], "tail_error") for enc in arms.ENCODINGS]
    return [*table5, *((arms.table6_arms(), m) for m in ERRORS)]


def _anchor_rank(levels: dict) -> tuple:
    """How well a pair's levels are placed: nothing to fill in, else shared-prompt samples before any-prompt
    ones, then the more sampled steps."""
    if levels["sampled"] is None:
        return (2, 0)
    return (0 if levels["any_prompt"] else 1, levels["sampled"])


def planned_cells(steps: pd.DataFrame, pair_weights: pd.DataFrame) -> pd.DataFrame:
    """A planned replay's error cells (arm, metric, value, steps) for Tables 5 and 6, estimated as the claims rows
    are: two neighbours of a chain (`level_chains`) at their pair's levels (`pair_levels`; the best placed pair,
    `_anchor_rank`), then each other arm at its neighbour's cell plus or minus their row's estimate, so every two
    neighbouring cells differ by the row's estimate. `steps`: the answered steps of the pair that places the arm. An arm's own error (the plan's uniform sample) rests on a few steps per run
    and could point the other way from the row."""
    rows = []
    for chain, metric in level_chains():
        if not all((steps.arm == a).any() for a in chain):
            continue
        links = [pair_levels(steps, hi, lo, metric, pair_weights) for lo, hi in zip(chain, chain[1:])]
        k = max(range(len(links)), key=lambda i: _anchor_rank(links[i]))
        value = {chain[k]: links[k]["b"], chain[k + 1]: links[k]["a"]}
        read = {chain[k]: links[k]["steps"], chain[k + 1]: links[k]["steps"]}
        for i in range(k + 1, len(links)):  # up the chain: hi = lo + (hi - lo)
            value[chain[i + 1]], read[chain[i + 1]] = value[chain[i]] + links[i]["estimate"], links[i]["steps"]
        for i in range(k - 1, -1, -1):  # down the chain: lo = hi - (hi - lo)
            value[chain[i]], read[chain[i]] = value[chain[i + 1]] - links[i]["estimate"], links[i]["steps"]
        rows += [{"arm": a, "metric": metric, "value": value[a], "steps": read[a]} for a in chain]
    return pd.DataFrame(rows, columns=["arm", "metric", "value", "steps"])


def pair_weight_frame(plans: list) -> pd.DataFrame:
    """The design-check plans' draws per pair of arms, one row per (family, seed, a, b, step): `pair_weight` and
    `stratum`, for `compare_arms` and for the flips per stratum the model slice reports."""
    rows = [
        (plan.family, int(plan.seed), p["a"], p["b"], int(t), float(w), k)
        for plan in plans
        for p in plan.pairs
        for t, w, k in zip(p["steps"], p["weights"], p["strata"])
    ]
    out = pd.DataFrame(rows, columns=[*RUN, "a", "b", "step", "pair_weight", "stratum"])
    # per run: whether its blind steps are known without a call (read by compare_arms)
    out.attrs["blind_exact"] = pd.DataFrame(
        [(plan.family, int(plan.seed), bool(plan.blind_exact)) for plan in plans], columns=[*RUN, "blind_exact"]
    )
    # per run and pair of arms: the calls the plan allotted (read by `planned_calls`)
    out.attrs["pair_calls"] = pd.DataFrame(
        [
            (plan.family, int(plan.seed), c["a"], c["b"], int(c["tail"]), int(c["other"]))
            for plan in plans
            for c in plan.pair_calls
        ],
        columns=[*RUN, "a", "b", "tail", "other"],
    )
    return out


def planned_calls(pair_weights: pd.DataFrame, a: str, b: str, metric: str) -> int | None:
    """The calls per run a planned replay allotted arms a and b (either order) on the steps `metric` scores (the
    tail's for a tail metric, tail and other for an overall one), summed over runs; None when the plans record
    no allotment for the pair (an older plan)."""
    calls = pair_weights.attrs.get("pair_calls")
    if calls is None:
        return None
    mine = calls[((calls.a == a) & (calls.b == b)) | ((calls.a == b) & (calls.b == a))]
    if mine.empty:
        return None
    return int(mine["tail"].sum() + (0 if metric.startswith("tail_") else mine["other"].sum()))


def not_planned(row: dict, power: float) -> dict:
    """A compared row whose pair of arms the plan gave no calls: read anyway, its runs would rest on the steps whose
    prompts the arms share (difference exactly 0), an interval of [0, 0] that measures nothing. INCONCLUSIVE with
    the plan's power instead, the state-level reading blank as well."""
    reason = (
        f"not planned: planned power {power:.2f} (the plan allots this pair of arms no calls on the steps the "
        "claim scores; only the steps whose prompts they share, exactly 0, could be read)"
    )
    nan = float("nan")
    return (
        row
        | missing(row["side"], reason)
        | {"n_states": 0, "state_ci_low": nan, "state_ci_high": nan}
        | {"state_verdict": missing()["verdict"]}
    )


def _run_slopes(frame: pd.DataFrame, x: str, y: str, log: bool = False) -> pd.DataFrame:
    """Per run (family, seed), the least-squares slope of y against x (both logged when `log`)."""
    rows = []
    for (fam, seed), run in frame.groupby(RUN, sort=False):
        run = run.groupby(x)[y].mean()
        if len(run) < 2:
            continue
        xs, ys = run.index.to_numpy(dtype=float), run.to_numpy(dtype=float)
        if log:
            xs, ys = np.log(xs), np.log(ys)
        rows.append({"family": fam, "seed": seed, "slope": float(np.polyfit(xs, ys, 1)[0])})
    return pd.DataFrame(rows, columns=["family", "seed", "slope"])


def read_note(levels: dict) -> str:
    """What a planned replay's pair levels (`pair_levels`) rest on, for the claims' evidence."""
    blind = f", {levels['blind']} blind ones known wrong in both" if levels["blind"] else ""
    kind = "steps of any prompt" if levels["any_prompt"] else "ones"
    shared = "" if levels["sampled"] is None else f"; shared prompts' error from {levels['sampled']} sampled {kind}"
    return f" (on {levels['steps']} answered steps{blind}{shared})"


def own_note(df: pd.DataFrame, c: Claim) -> str:
    """What a planned replay's own-tail errors rest on (the plan's uniform sample in each arm's own tail), for the
    claims' evidence: they may point either way, so their steps stand beside them."""
    col = f"{c.metric}_own_steps"
    if col not in df:
        return ""
    b, a = (int(df.loc[df.arm == arm, col].sum()) for arm in (c.baseline, c.arm))
    return f" (on {b} vs {a} answered steps)"


def _mean(df: pd.DataFrame, arm: str, col: str) -> float:
    return float(df.loc[df.arm == arm, col].mean()) if col in df else float("nan")


def claims(
    df: pd.DataFrame,
    tau_conc: pd.DataFrame,
    steps: pd.DataFrame,
    s: StatsGroup,
    pair_weights: pd.DataFrame | None = None,
    planned: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Paper 1's CTMC claims (`claim_specs.CTMC`), one compared metric per row with its interval, tests and
    verdict; a claim made of several compared metrics gets a closing row that combines their verdicts
    (`tailmem.report.claims`).

    `df` is `with_shared_tail` of the summaries, `steps` is `shared_tail` of the per-step records, `pair_weights`
    a planned model replay's draws per pair of arms (`pair_weight_frame`), `planned` its plan's power per claim
    pair (`DesignPlan.planned_power`), printed beside each error row's verdict. A row's `a` and `b` are its arms'
    levels on its own steps and weights (`pair_levels`): their difference is the row's estimate; in a planned
    replay `read` says what they rest on. A row whose pair the plan allotted no calls is `not_planned`.
    """

    def compared(c: Claim) -> dict:
        if c.over == "tau":  # a run's slope of the metric on tau
            means = tau_conc.groupby("tau")[c.metric].mean()
            slopes = _run_slopes(tau_conc, "tau", c.metric)
            cmp = compare(slopes.slope, slopes.seed, direction=c.side, threshold=c.threshold, settings=s)
            shown = ", ".join(f"tau {t:g}: {v:.3f}" for t, v in means.items())
            return {"unit": c.unit, **cmp.row(), "evidence": evidence(c, means=shown)}
        levels = pair_levels(steps, c.arm, c.baseline, c.metric, pair_weights)
        fields = {
            "a": levels["a"],
            "b": levels["b"],
            "read": read_note(levels) if c.metric in ERRORS and pair_weights is not None else "",
            "own_read": own_note(df, c) if c.metric in ERRORS and pair_weights is not None else "",
            "a_own": _mean(df, c.arm, f"{c.metric}_own"),
            "b_own": _mean(df, c.baseline, f"{c.metric}_own"),
            "a_tokens": _mean(df, c.arm, "tokens_per_step"),
            "b_tokens": _mean(df, c.baseline, "tokens_per_step"),
        }
        threshold = c.threshold
        if c.margin == "tokens":  # relative, of the baseline's tokens/step
            fields["margin_pct"] = 100 * s.margins.tokens_rel
            threshold = s.margins.tokens_rel * fields["b_tokens"]
        row = compare_arms(steps, c.arm, c.baseline, c.metric, c.side, threshold, s, pair_weights)
        if c.planned and pair_weights is not None and planned_calls(pair_weights, c.arm, c.baseline, c.metric) == 0:
            row = not_planned(row, power_of(c, planned))
        return {**row, "evidence": evidence(c, **fields)}

    return SPECS[outputs.CLAIMS_CTMC].check(build(claim_specs.CTMC, compared, planned=planned))
