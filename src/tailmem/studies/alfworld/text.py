"""The ALFWorld tables' titles, notes and paper cells, filled from `studies/alfworld/data/alfworld.yaml`.

The words live in the data file; this module only decides which sentences apply (a scripted executor, games left
out, several chain seeds) and fills the templates. Pure: arguments in, strings out.
"""

from __future__ import annotations

from tailmem.report import paper2_values as paper2
from tailmem.report.data_files import section
from tailmem.report.table_spec import specs
from tailmem.roles import PROGRAMMATIC
from tailmem.settings.stats import StatsGroup

FILE = "alfworld/alfworld.yaml"  # the tables' words and the paper's numbers (this study's data folder)
WORDS: dict = section(FILE, "words")
SPECS = specs(FILE)
VARIANT_WORDS: dict[str, str] = WORDS["variants"]
PROTOCOL_WORDS: dict[str, str] = WORDS["protocols"]
MEMORY_TABLES = ("memory", "memory_family", "skills", "skills_family")
SKILL_SIDE_TABLES = ("skills_store", "skills_erosion", "skills_effort", "skills_effort_trend", "skills_family_running")


def _words(**fields) -> dict:
    return WORDS | fields


def titles(subset: str, names=MEMORY_TABLES) -> dict[str, str]:
    """Table stem suffix -> title."""
    return {n: SPECS[n].title_text(**_words(subset=subset)) for n in names}


def skill_side_titles(subset: str) -> dict[str, str]:
    """Skill-side table stem suffix -> title."""
    return titles(subset, SKILL_SIDE_TABLES)


def claims_title(subset: str) -> str:
    return SPECS["claims"].title_text(**_words(subset=subset))


def arm_words(arms: dict) -> dict[str, str]:
    """Arm name -> what it is, from `alfworld.arms` ({name, budget, ...} per arm): which memory controller and its
    budget of memory tokens per step; an arm without a budget holds every remembered location and object."""
    out = {}
    for arm, spec in arms.items():
        name = WORDS["memory_names"].get(spec.get("name"), spec.get("name", arm))
        budget = spec.get("budget")
        out[arm] = (
            WORDS["arm_budget"].format(name=name, budget=budget)
            if budget is not None
            else WORDS["arm_unbounded"].format(name=name)
        )
    return out


def arm_sentence(arms: dict[str, str]) -> str:
    return "Arms: " + "; ".join(f"`{a}` = {w}" for a, w in arms.items()) + "." if arms else ""


def _scripted(executor: str, curator: str = "") -> bool:
    """Whether a role is played by a scripted (programmatic) agent, whose numbers are not the papers'."""
    return PROGRAMMATIC in executor or PROGRAMMATIC in curator


def notes(
    executor: str,
    curator: str,
    retriever: str,
    max_steps: int,
    encoding: str,
    excluded: int = 0,
    arms: dict[str, str] | None = None,
) -> dict[str, str]:
    """Table stem suffix -> the note under its title; `excluded` = listed games never played (games.EXCLUDED);
    `arms` = `arm_words` of the configured `alfworld.arms`."""
    fields = _words(
        executor=executor,
        curator=curator,
        retriever=retriever,
        max_steps=max_steps,
        encoding=encoding,
        left_out=WORDS["left_out"].format(excluded=excluded) if excluded else "",
        arms_text=arm_sentence(arms or {}),
        scripted=WORDS["scripted_executor"] if _scripted(executor) else "",
        variant_list="; ".join(f"`{v}` = {w}" for v, w in VARIANT_WORDS.items()),
        protocol_list="; ".join(f"`{p}` = {w}" for p, w in PROTOCOL_WORDS.items()),
    )
    return {n: SPECS[n].note_text(**fields) for n in MEMORY_TABLES}


def skill_side_notes(executor: str, curator: str, settings: StatsGroup) -> dict[str, str]:
    """Skill-side table stem suffix -> the note under its title."""
    low, high = paper2.ALFWORLD_CURATION_ROUNDS
    fields = _words(
        who=WORDS["who"].format(executor=executor, curator=curator),
        scripted=WORDS["scripted_skill_side"] if _scripted(executor, curator) else "",
        confidence_pct=100 * settings.confidence,
        rounds_low=low,
        rounds_high=high,
    )
    return {n: SPECS[n].note_text(**fields) for n in SKILL_SIDE_TABLES}


def claims_note(
    executor: str, settings: StatsGroup, order_margin: float, min_tie_games: int = 1, seeds: int = 1
) -> str:
    levels = WORDS["claims_seed_levels"].format(seeds=seeds) if seeds > 1 else WORDS["claims_one_seed"]
    return SPECS["claims"].note_text(
        **_words(
            executor=executor,
            confidence_pct=100 * settings.confidence,
            resamples=settings.resamples,
            seed=settings.seed,
            levels=levels,
            alpha=settings.alpha,
            min_units=settings.min_units,
            order_margin=order_margin,
            min_tie_games=min_tie_games,
            level=WORDS["claims_scripted"] if _scripted(executor) else WORDS["claims_model"],
        )
    )


# The `paper` cell of a claims row (report.paper2_values' numbers in the data file's sentences).
PAPER_CHAIN = WORDS["paper_chain"].format(**paper2.ALFWORLD_CHAIN)
PAPER_REVERSED = WORDS["paper_reversed"].format(
    low=paper2.ALFWORLD_REVERSED_NANO_PCT[0], high=paper2.ALFWORLD_REVERSED_NANO_PCT[1]
)
PAPER_GS = WORDS["paper_gs"].format(
    leads=", ".join(f"{k} {v:g}" for k, v in paper2.ALFWORLD_GS_LEAD_MINI_POINTS.items())
)
PAPER_NONE = WORDS["paper_none"]


def paper_vs_control(protocol: str, variant: str) -> str:
    """Paper 2's number for a store variant against no store under `protocol`, when its summary gives one."""
    if protocol == "reversed_chain":
        return PAPER_REVERSED
    if variant == "episode_log":
        return PAPER_CHAIN
    if variant == "guidance_synthesis":
        return PAPER_GS
    return PAPER_NONE
