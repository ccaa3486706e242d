"""Named experimental arms of the controller study: which arms each table and claim compares.

An arm name is readable and canonical, so it can be a folder name and a Snakemake wildcard:
`<controller>-<encoding>` for the baselines and Graph Memory, `ctmc-<encoding>-tau<tau>-<order>` for CTMC,
with `-matched` when CTMC's budget is Graph Memory's measured tokens on the same replay (the grammar, parsed and
written in one place, with the Hydra overrides each name stands for: tailmem.memory.arm_names).

Which arms spend which budget: Table 5 and Figure 7 set CTMC beside Graph Memory at each one's own nominal
budget (`memory.budget` in configs/memory/ctmc.yaml and graph_memory.yaml), so their tokens per step are measured
outputs and CTMC may spend more or fewer than Graph Memory. Only Table 6, the allocation ablation, and the tau
sweep of Figure 6 pin CTMC to Graph Memory's measured tokens (`-matched`), so allocations differ at one spend.
"""

from __future__ import annotations

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
