"""The design check's row of a study planned without a twin: its paired claim checked from the config alone.

The controller study's claim pairs are planned from their model-free twin (`tailmem.control.design`). The other
model-played studies (the filesystem-memory study, LongMemEval, ALFWorld, the LLM policy's tails) have no twin: each
plans its independent units (questions, games, runs), and its power, units for `power.target` and core-seconds
come from a stated effect and SD per unit (`power.stated_effects.<study>`) and the per-call seconds of each role
(`power.call_seconds`). Each study builds its own row from its own config groups (its `design_rows` module), so
a study's setting reruns that study's row alone; the design check's table gathers the rows.
"""

from __future__ import annotations

import math

from tailmem.errors import ConfigError
from tailmem.power import paired as pw
from tailmem.settings.power import ROLES_TIMED


def stated_row(
    stated, units: int | None, seconds, alpha: float, target: float, min_units: int, steps: int, unplayed=()
) -> dict:
    """A study's planned power, units for `target` and cost from its stated effect and per-unit SD (`stated`:
    power.stated_effects.<study>) and the per-call `seconds` of each role; `steps` counts a policy role's calls
    per unit when the config leaves them null (the rollout's steps per run); the roles in `unplayed` (a judge
    the study's config turns off) cost nothing."""
    calls = {
        role: (steps if n is None else float(n)) for role, n in stated.calls_per_unit.items() if role not in unplayed
    }
    per_unit = sum(calls.values())
    seconds_per_unit = sum(n * getattr(seconds, role) for role, n in calls.items())
    planned = pw.decided(stated.effect, stated.sd, units, alpha) if units else float("nan")
    return {
        "stated_effect": float(stated.effect),
        "stated_sd": float(stated.sd),
        "planned_units": units,
        "calls_per_unit": per_unit,
        "planned_calls": per_unit * units if units is not None else float("nan"),
        "planned_power": planned,
        "units_for_80": pw.units_for(stated.effect, stated.sd, alpha, target=target, least=min_units),
        "calls_for_80": None,
        "core_seconds": seconds_per_unit * units if units is not None else float("nan"),
    }


def _planned(
    power, study: str, units: int | None, min_units: int, alpha: float, steps: int | None, unplayed=()
) -> dict:
    """`stated_row` of `study`'s stated effect (`power`: the power group); `steps`: a unit's steps, which a role
    without a call count (the policy) is called at once each; `unplayed`: roles the study does not call."""
    stated = power.stated_effects[study]
    if any(n is None for n in stated.calls_per_unit.values()) and steps is None:
        raise ConfigError(
            f"power.stated_effects.{study}.calls_per_unit: a null count (a call a step) needs the unit's steps; "
            f"the {study} study's design row gives none, so set each role's calls per unit"
        )
    return stated_row(stated, units, power.call_seconds, alpha, float(power.target), min_units, steps or 0, unplayed)


def claim_row(
    power,
    study: str,
    claim: str,
    unit: str,
    units: int | None,
    min_units: int,
    alpha: float,
    steps: int | None = None,
    unplayed: tuple[str, ...] = (),
) -> dict:
    """The design check's row of `study`'s paired claim (`claim`: the row's words) over `units` independent units
    (`unit`: questions, games, runs; None: the whole benchmark, enough units and no power or cost given): the
    units against `stats.min_units` and the smallest p their exact test reaches, and the power, units for
    `power.target` and core-seconds at its stated effect (`stated_row`; `unplayed`: roles not called)."""
    # a yes/no outcome (correct, won) is decided by the units where the arms part only: the exact paired test's
    # smallest p is 2^-k over k discordant units, so enough units is not enough when the arms rarely part
    discordant = next(k for k in range(1, 64) if 0.5**k <= alpha)
    n = int(units) if units is not None else None
    ok = n is None or (n >= min_units and pw.smallest_p(n) <= alpha)
    plan = (
        f"decidable if at least {discordant} {unit} part the arms (yes/no outcomes; a score such as F1: any)"
        if ok
        else f"undecidable by design: {n} {unit} planned, stats.min_units {min_units}"
    )
    p = pw.smallest_p(n if n is not None else 10**6)
    more = _planned(power, study, n, min_units, alpha, steps, unplayed)
    if ok and n is not None:
        need = more["units_for_80"]
        target = float(power.target)
        plan += f"; planned power {more['planned_power']:.0%} at the stated effect" + (
            f", {target:.0%} at {need:,} {unit}" if need else f", {target:.0%} at no number of {unit}"
        )
    return {"claim": claim, "scope": unit, "runs": n, "min_units": min_units, "smallest_p": p, "plan": plan} | more


def unplayed_row(
    power, study: str, claim: str, unit: str, why: str, min_units: int, alpha: float, steps: int | None = None
) -> dict:
    """The row of a study this scale does not play: no units, and `why` (where its claims are decided instead),
    with the units its stated effect needs."""
    row = {"claim": claim, "scope": unit, "runs": 0, "min_units": min_units, "smallest_p": 1.0, "plan": why}
    return row | _planned(power, study, 0, min_units, alpha, steps)


def planned_power(row: dict) -> dict[str, float]:
    """A study's planned power as its claims table prints it beside the verdicts its plan covers: the row's words
    -> power, empty when the row has none (a study the scale does not play, a whole benchmark)."""
    p = float(row["planned_power"])
    return {row["claim"]: p} if math.isfinite(p) else {}


def note(power) -> str:
    """What the stated rows of the design check's table are, for its note."""
    stated = "; ".join(f"{k}: {v.source}" for k, v in power.stated_effects.items())
    rate = power.call_seconds
    return (
        "The last rows check the other studies' paired claims from the config alone: the questions, games "
        "or runs each plans (an empty count: the whole benchmark), and their power, units for 80% and "
        f"core-seconds at a stated effect and SD per unit (`power.stated_effects`: {stated}) and "
        f"`power.call_seconds` ({', '.join(f'{k} {getattr(rate, k):g} s' for k in ROLES_TIMED[1:])})."
    )
