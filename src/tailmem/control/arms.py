"""Named experimental arms of the controller study, and the Hydra overrides each stands for.

An arm name is readable and canonical, so it can be a folder name and a Snakemake wildcard:
`<controller>-<encoding>` for the baselines and Graph Memory, `ctmc-<encoding>-tau<tau>-<order>` for CTMC,
with `-matched` when CTMC's budget is Graph Memory's measured tokens on the same replay (the grammar, parsed and
written in one place: tailmem.memory.arm_names).

Which arms spend which budget: Table 5 and Figure 7 set CTMC beside Graph Memory at each one's own nominal
budget (`memory.budget` in configs/memory/ctmc.yaml and graph_memory.yaml), so their tokens per step are measured
outputs and CTMC may spend more or fewer than Graph Memory. Only Table 6, the allocation ablation, and the tau
sweep of Figure 6 pin CTMC to Graph Memory's measured tokens (`-matched`), so allocations differ at one spend.
"""

from __future__ import annotations

from tailmem.errors import ConfigError
from tailmem.memory import budget
from tailmem.memory.arm_names import ENCODINGS, ArmName

PAPER_BASELINES = (
    "full_history",
    "sliding_window",
    "flat_retrieval",
    "frequency_cache",
    "recency_cache",
    "hierarchical_summary",
    "graph_memory",
)  # paper 1 Table 4's rows, in its order


def baselines() -> list[str]:
    """Table 4's controllers: the paper's, in its order, then every other `configs/memory/` option that is not
    CTMC (so a new controller joins the table by its config file alone)."""
    from tailmem.memory.catalogue import catalogue

    extra = sorted(n for n in catalogue() if n not in PAPER_BASELINES and n != "ctmc")
    return [*PAPER_BASELINES, *extra]


def baseline(name: str, encoding: str = "compact") -> str:
    return str(ArmName(name, encoding))


def ctmc(encoding: str = "compact", tau: float = 1.0, order: str = "rank", matched: bool = True) -> str:
    return str(ArmName("ctmc", encoding, float(tau), order, matched))


def overrides(arm: str) -> list[str]:
    """Hydra overrides for an arm name (tailmem.memory.arm_names's grammar); a bad name raises ConfigError naming it."""
    a = ArmName.parse(arm)
    if a.ratio is not None or a.no_evidence:
        raise ConfigError(f"arm {arm!r}: r<ratio> and no_evidence are LongMemEval's parts, not the graph world's")
    out = [f"memory={a.controller}"]
    if a.encoding is not None:
        out.append(f"memory.encoding={a.encoding}")
    if a.tau is not None:
        out.append(f"memory.tau={a.tau}")
    if a.order is not None:
        out.append(f"memory.order={a.order}")
    if a.matched:
        out.append(f"memory.{budget.KEY}={budget.MATCHED}")  # resolved by tailmem.memory.budget.resolve
    return out


def arm_problem(arm: str) -> str | None:
    """What is wrong with the arm name `control.arm` (None: nothing), as the arm parser says what it expected: the
    `control` group's check, run where the composed config is checked whole (tailmem.validation), since the parser
    reads the controllers, which sit above the settings."""
    try:
        overrides(arm)
    except ConfigError as exc:
        text = str(exc)
        return text[text.index("expected ") :] if "expected " in text else text
    return None


def matched_reference(arm: str) -> str | None:
    """The Graph Memory arm whose measured memory tokens a `-matched` CTMC arm spends, else None."""
    a = ArmName.parse(arm)
    return baseline("graph_memory", a.encoding) if a.matched else None


def table4_arms() -> list[str]:
    return [baseline(b) for b in baselines()]


def nominal_ctmc(encoding: str = "compact") -> str:
    """The CTMC arm of Table 5 and Figure 7: tau = 1, rank order, its own nominal budget (not matched)."""
    return ctmc(encoding, matched=False)


def table5_arms() -> list[str]:
    """Graph Memory and CTMC per encoding, each at its configured nominal budget."""
    return [a for enc in ENCODINGS for a in (baseline("graph_memory", enc), nominal_ctmc(enc))]


def table6_arms() -> list[str]:
    """At one matched budget (Graph Memory's measured tokens, compact): CTMC tau = 1, uniform tau = 0, shuffled and reversed ranks."""
    return [ctmc(tau=1.0), ctmc(tau=0.0), ctmc(tau=1.0, order="shuffled"), ctmc(tau=1.0, order="reversed")]


def tau_arms(taus) -> list[str]:
    return [ctmc(tau=t) for t in taus]
