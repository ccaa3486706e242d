"""Claims as data: one `Claim` record per row of a claims table, and the one builder every claims table uses.

A study's claims are a tuple of `Claim`s (its `claim_specs.py`, `tailmem.studies.<study>.claim_specs`): the claim's
words, the arms it compares, the metric, the side of the threshold it names, a fixed threshold or the stats margin
it reads, the unit, and the paper's value with where the paper gives it. A claim made of other claims (an ordering
of four arms, a tie of every pair) lists their keys in `parts` and has no comparison of its own.

The records live in Python rather than in a report data file because they name arms through the functions that
spell them (`tailmem.control.arms`) and paper values through the one module that reads them
(`tailmem.report.paper1_values`): a misspelt arm or a paper number moved in paper1.yaml fails at import, not as an
empty row. Evidence templates are filled by the study's comparison function (`str.format` fields it names); the
words and the paper columns are what the tables print.

How units are formed differs per study (steps within states within runs, seeds, questions within conversations),
so each study keeps its own comparison function, `compare(claim) -> dict`: the row's columns after `claim` (the
shared ones of `tailmem.stats.compare.COLUMNS` among them). What every table shares is assembled here once:
the `claim` column, the columns a claim fixes (`Claim.columns`), the combined rows' verdict and reason
(`tailmem.stats.verdict.combine`, `combine_reason`), so that a combined claim reads the same in every table, and
beside each verdict the power the design check planned the row for (`planned_power`).

Why a planned power beside a verdict: a verdict alone does not say whether the calls spent could have decided the
claim. A row planned at 80% power that comes out INCONCLUSIVE is news (the effect is smaller than planned, or the
plan's spreads were wrong); one planned at 10% is not. A claim names the design check's row that plans it
(`Claim.planned`: the `claim` column of the design_check table, or a controller claim pair's label) and the study
passes the powers it read (`planned`); a row no plan covers (a model-free metric, a combined row, a scale that
plans nothing) leaves the cell blank. `planned_vs_decided` checks a scale against its plan: of the rows planned
at the target power, the share decided.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from tailmem.stats.compare import COLUMNS
from tailmem.stats.verdict import DIRECTIONS, HELD, NOT_HELD, combine, combine_reason

ALL_PARTS = "all parts"  # the `side` of a combined row
EVERY_ROW_BEFORE = "*"  # a combined claim's part: every row before it (a tie of however many pairs a run holds)
PLANNED_POWER = "planned_power"  # the column beside `verdict`: the power the design check planned the row for
# a row whose arm the run did not play: no plan covers it, whatever the study's plan says of its claim (so it does
# not count against the plan in `planned_vs_decided`)
NOT_PLAYED = {PLANNED_POWER: float("nan")}


@dataclass(frozen=True)
class Claim:
    """One claims row as data. `arm` - `baseline` of `metric` is the compared difference; `side` is the side of
    the threshold the claim names (`tailmem.stats.verdict.DIRECTIONS`), `threshold` an absolute one, or `margin`
    the name of the stats margin the study scales into one (a relative margin needs the reference arm's level).
    `over` names what a trend is taken over (tau, graph size) for a claim about a slope rather than a pair of arms.
    `evidence` is a `str.format` template the study fills with what it measured (a combined row: the text as is);
    `paper` is the paper's value as the table prints it, `page` where the paper gives it. `key` names the row for
    a combined claim's `parts`; `columns` holds the study's own columns the claim fixes (scope, dataset).
    `planned` names the design check's row whose planned power stands beside this row's verdict (empty: none)."""

    words: str
    arm: str = ""
    baseline: str = ""
    metric: str = ""
    side: str = "greater"
    threshold: float = 0.0
    margin: str = ""
    over: str = ""
    unit: str = ""
    evidence: str = ""
    paper: str = ""
    page: str = ""
    key: str = ""
    parts: tuple[str, ...] = ()
    columns: Mapping[str, object] = field(default_factory=dict)
    planned: str = ""

    def __post_init__(self):
        if self.side not in DIRECTIONS:
            raise ValueError(f"claim {self.words!r}: side {self.side!r}, expected one of {DIRECTIONS}")
        if self.parts and (self.arm or self.metric):
            raise ValueError(f"claim {self.words!r}: a combined claim compares nothing itself")

    @property
    def combined(self) -> bool:
        return bool(self.parts)

    def at(self, **columns) -> Claim:
        """The same claim with more fixed columns (a scope, a dataset): one spec read at several places."""
        return replace(self, columns={**self.columns, **columns})

    def filled(self, **fields) -> Claim:
        """The claim with its words and arms filled from `fields` (a policy, a margin the run chose): they name
        what the config decides, while the evidence stays a template for what is measured."""
        return replace(
            self,
            words=self.words.format_map(fields),
            arm=self.arm.format_map(fields),
            baseline=self.baseline.format_map(fields),
        )


def with_power(columns: Sequence[str]) -> list[str]:
    """`columns` with `PLANNED_POWER` right after `verdict` (at the end when there is no verdict): the order of a
    claims table's columns."""
    out = [c for c in columns if c != PLANNED_POWER]
    at = out.index("verdict") + 1 if "verdict" in out else len(out)
    return [*out[:at], PLANNED_POWER, *out[at:]]


SHARED = tuple(with_power(COLUMNS))  # the shared claims columns, the planned power beside the verdict


def power_of(claim: Claim, planned: Mapping[str, float] | None) -> float:
    """The planned power of `claim`'s row: `planned[claim.planned]`; NaN (a blank cell) when the claim names no
    plan or the plan holds none for it."""
    value = (planned or {}).get(claim.planned) if claim.planned else None
    return float("nan") if value is None else float(value)


def beside_verdict(row: dict, power: float) -> dict:
    """`row` with `PLANNED_POWER` = `power` right after its verdict."""
    return {k: row[k] if k != PLANNED_POWER else power for k in with_power([*row, PLANNED_POWER])}


def rows(
    spec: Iterable[Claim],
    compare: Callable[[Claim], dict],
    combined: Callable[[Claim], dict] | None = None,
    planned: Mapping[str, float] | None = None,
):
    """The rows of `spec`, in its order: a compared claim is `claim`, its fixed columns, then `compare(claim)`; a
    combined claim is `claim`, its fixed columns, `combined(claim)` when given (the study's columns of a row with
    no comparison of its own), then unit "", side "all parts", the verdict and reason of its parts (by key, among
    the rows before it; `EVERY_ROW_BEFORE`: all of them) and its evidence (the study's, else the claim's). Every
    row has `planned_power` beside its verdict (`power_of`: `planned` maps the design check's rows to their
    planned power), unless the study's columns give it (`NOT_PLAYED`: an arm the run did not play)."""
    out: list[dict] = []
    verdicts: dict[str, str] = {}
    for c in spec:
        row = {"claim": c.words, **c.columns}
        if c.combined:
            missing = [k for k in c.parts if k not in verdicts and k != EVERY_ROW_BEFORE]
            if missing:
                raise KeyError(f"claim {c.words!r}: parts {missing} are not rows before it (keys {sorted(verdicts)})")
            parts = [r["verdict"] for r in out] if EVERY_ROW_BEFORE in c.parts else [verdicts[k] for k in c.parts]
            row |= combined(c) if combined else {}
            text = row.pop("evidence", c.evidence)
            row |= {"unit": "", "side": ALL_PARTS, "verdict": combine(parts), "reason": combine_reason(parts)}
            row["evidence"] = text
        else:
            row |= compare(c)
        if c.key:
            verdicts[c.key] = row["verdict"]
        out.append(beside_verdict(row, row.get(PLANNED_POWER, power_of(c, planned))))
    return out


def build(
    spec: Iterable[Claim],
    compare: Callable[[Claim], dict],
    combined: Callable[[Claim], dict] | None = None,
    columns: Sequence[str] | None = None,
    planned: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """The claims frame of `spec` (`rows`, `planned` as there); `columns` fixes the frame's columns, else they are
    the rows' keys in order of first appearance."""
    return pd.DataFrame(rows(spec, compare, combined, planned), columns=None if columns is None else list(columns))


def evidence(claim: Claim, **fields) -> str:
    """The claim's evidence template filled with what the study measured, then the paper's value when it has one."""
    text = claim.evidence.format_map(fields)
    return f"{text}; {claim.paper}" if claim.paper else text


def design_powers(table: pd.DataFrame) -> dict[str, float]:
    """The design check's planned power per row (its `claim` column -> `planned_power`; rows without one left
    out): what a study's claims read through `Claim.planned`."""
    if "claim" not in table or PLANNED_POWER not in table:
        raise ValueError(f"design check table: columns {list(table.columns)}, expected 'claim' and {PLANNED_POWER!r}")
    known = table[pd.to_numeric(table[PLANNED_POWER], errors="coerce").notna()]
    return dict(zip(known["claim"].astype(str), known[PLANNED_POWER].astype(float)))


def planned_vs_decided(tables: Mapping[str, pd.DataFrame], target: float = 0.8) -> pd.DataFrame:
    """The rows of the claims `tables` (name -> frame) planned at `target` power or more, with their verdict and
    whether it is decided (HELD or NOT HELD): how a scale's verdicts kept its plan's promise."""
    out = []
    for name, frame in tables.items():
        if PLANNED_POWER not in frame:
            continue
        power = pd.to_numeric(frame[PLANNED_POWER], errors="coerce")
        for i in frame.index[power >= target]:
            verdict = str(frame.at[i, "verdict"])
            out.append(
                {
                    "table": name,
                    "claim": frame.at[i, "claim"],
                    PLANNED_POWER: float(power[i]),
                    "verdict": verdict,
                    "decided": verdict in (HELD, NOT_HELD),
                }
            )
    return pd.DataFrame(out, columns=["table", "claim", PLANNED_POWER, "verdict", "decided"])


def decided_share(planned: pd.DataFrame) -> float:
    """The share of `planned_vs_decided`'s rows that are decided; NaN when no row was planned at the target."""
    return float(planned["decided"].mean()) if len(planned) else float("nan")
