"""A tail audit's `audit.json` (stage `audit`): the concentration, tail fit and bootstrap goodness of fit of one
trace's access counts. The random-walk tables (Tables 2, 7, 8), the controller report and Figure 3 read it. An
external access log's audit (rule `audit_log_one`) writes its own audit.json and counts, the last two records."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar

from tailmem.records.arrays import ArrayRecord
from tailmem.records.base import Record


@dataclass(frozen=True)
class Concentration:
    """`audit.concentration.concentration`: how concentrated one count vector is (paper 1 Tables 2, 7, 8)."""

    gini: float
    top_share: float  # fraction (0..1) of all accesses that go to the top `top_fraction` of items
    sigma_top10: float  # std of the top items' counts in units of the mean count (see sigma_top)
    max_median: float
    median_basis: str  # "all": median over all items; "nonzero": all-item median was 0, so nonzero items only
    skew: float  # Fisher-Pearson moment skewness (scipy default, biased); nan if all counts are equal
    top_fraction: float
    n_top: int  # how many items make up the "top" group

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TailBlock:
    """`audit.tailfit.TailFit.to_dict`: the tail fit, its parameters and the likelihood-ratio tests (null where a
    degenerate or too small tail has no number)."""

    status: str
    reason: str
    xmin: float | None
    alpha: float | None
    n_tail: int
    ks_D: float | None
    xmin_valid: bool
    alpha_at_cap: bool
    tpl_alpha_at_cap: bool
    tpl: dict  # {"alpha", "lambda"}
    lognormal: dict  # {"mu", "sigma"}
    R_tpl_ln: float | None
    p_tpl_ln: float | None
    R_pl_ln: float | None
    p_pl_ln: float | None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Gof:
    """The bootstrap goodness of fit; p and passes are null when there is no test (no tail, or B = 0)."""

    p: float | None
    B: int
    threshold: float
    passes: bool | None


@dataclass(frozen=True)
class CountsBlock:
    n_items: int
    total: int
    nonzero: int


@dataclass(frozen=True)
class Audit(Record):
    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "tail audit audit.json"
    rule: ClassVar[str] = "audit"  # the Snakemake rule that writes it
    null_non_finite: ClassVar[bool] = True  # JSON has no NaN or infinity

    concentration: Concentration
    tail: TailBlock
    gof: Gof
    counts: CountsBlock


@dataclass(frozen=True)
class AccessLogAudit(Record):
    """An external access log's `audit.json` (rule `audit_log_one`, or `python -m tailmem audit-log`): the internal
    audit's blocks as plain data (null concentration and a short tail block for a log without a read), the tail's
    `why_no_fit`, the most read items and what the log was. The site's access-log pages read it."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "access-log audit.json"
    rule: ClassVar[str] = "audit_log_one"  # the Snakemake rule that writes it
    null_non_finite: ClassVar[bool] = True

    concentration: dict | None  # Concentration's fields; None: the log has no reads
    tail: dict  # TailBlock's fields and why_no_fit
    gof: dict
    counts: dict  # CountsBlock's fields
    top_items: list[dict]  # {item, reads}, most read first
    log: dict  # name, path, format, sha256, what the log holds, notes


@dataclass(frozen=True, eq=False)
class AccessLogCounts(ArrayRecord):
    """An external access log's `trace.npz`: reads per item (`counts`) and the items' names (`items`)."""

    format_version: ClassVar[int] = 1
    kind: ClassVar[str] = "access-log trace.npz"
    rule: ClassVar[str] = "audit_log_one"
    names: ClassVar[tuple[str, ...]] = ("counts", "items")
