"""Paper 2's published numbers ("Filesystem-Based Memory for LLM Agents", summary in seeds/001_0dbdf53710cb0946.txt),
printed beside ours in the fsmem study tables and in `claims_fsmem`. The numbers live in `report/data/paper2.yaml`
(each with where the summary states it); this module names them for the code, in capitals.

Only numbers the summary states, each with where it states them (the summary's section and page). Values are kept
as printed: a percentage as its number of percent (86.1 is 86.1%), cents as cents, dollars as dollars; the name
says the unit. A range the summary prints as "a-b" is a (low, high) pair in the printed order. Model names follow
our config (gpt-5.4-nano, gpt-5.4-mini, gpt-5.4); the summary calls the ladder "nano, mini and gpt-5.4", and names
gpt-5.4-mini as the main model of every role. The benchmark conversations are LoCoMo conv-50 and one REALTALK chat
(C.2). Where the summary does not say which benchmark or variant a number belongs to, the comment says so, and a
table that prints it beside our rows says so in its note.

The `*_row` functions at the end give, for a row of one of our study tables, paper 2's value of each of its
columns that the summary reports (empty when it reports none): the study stages print them as `<column>_paper`.
"""

from __future__ import annotations

from tailmem.report.data_files import load

_data = load("paper2.yaml")  # each name below is its key in capitals; the file says where the summary states it
MODELS = _data["models"]
BENCHMARKS = _data["benchmarks"]
CHUNK = _data["chunk"]
TOKEN_CAPS = _data["token_caps"]
VALIDATION_SCAN_TURNS = _data["validation_scan_turns"]
COMPACTION = _data["compaction"]
ROUNDS = _data["rounds"]
REORGANIZE_PASSES = _data["reorganize_passes"]
TOOLS = _data["tools"]
PRICE_PER_M_TOKENS = _data["price_per_m_tokens"]
RQ1_FILES_CONVERSATIONAL = _data["rq1_files_conversational"]
RQ1_FILES_PROCEDURAL = _data["rq1_files_procedural"]
LOCOMO_EXAMPLE_STORE = _data["locomo_example_store"]
PERSONAMEM_FOLDERED_STORE = _data["personamem_foldered_store"]
SKILL_STORE_GPT54 = _data["skill_store_gpt54"]
RQ2_PERSONAMEM_CENTS_PER_QUERY = _data["rq2_personamem_cents_per_query"]
PERSONAMEM_32K_CORRECT_PCT = _data["personamem_32k_correct_pct"]
PERSONAMEM_32K_UPGRADE = _data["personamem_32k_upgrade"]
PERSONAMEM_32K_MISSED_GOLD_FACTS = _data["personamem_32k_missed_gold_facts"]
PERSONAMEM_32K_GROUNDING = _data["personamem_32k_grounding"]
PERSONAMEM_32K_ATTRIBUTION = _data["personamem_32k_attribution"]
RQ3_BUILDER_CORRECT_PCT = _data["rq3_builder_correct_pct"]
RQ3_SEARCHER_CORRECT_PCT_ABOUT = _data["rq3_searcher_correct_pct_about"]
RQ3_SKILLS_GPT54_GAIN_POINTS = _data["rq3_skills_gpt54_gain_points"]
RQ4_STORE_OVER_INPUT = _data["rq4_store_over_input"]
ALFWORLD_CHAIN = _data["alfworld_chain"]
ALFWORLD_ACCUMULATION_GAIN_POINTS = _data["alfworld_accumulation_gain_points"]
ALFWORLD_REVERSED_NANO_PCT = _data["alfworld_reversed_nano_pct"]
ALFWORLD_RETRIEVAL_DOLLARS_140 = _data["alfworld_retrieval_dollars_140"]
ALFWORLD_STORE_GROWTH = _data["alfworld_store_growth"]
ALFWORLD_EARLY_FILES_UNTOUCHED = _data["alfworld_early_files_untouched"]
ALFWORLD_CURATION_ROUNDS = _data["alfworld_curation_rounds"]
GROWTH_ATLAS_STATES = _data["growth_atlas_states"]
RQ5_PERSONAMEM_128K_FILES = _data["rq5_personamem_128k_files"]
RQ5_CORRECT_PCT = _data["rq5_correct_pct"]
RQ5_SKILLS = _data["rq5_skills"]
RQ5_BUILD_EFFORT = {
    (r["benchmark"], r["harness"]): {k: v for k, v in r.items() if k not in ("benchmark", "harness")}
    for r in _data["rq5_build_effort"]
}  # keyed by (benchmark, harness)
RERUN_COMPOSITE_SHIFT_POINTS = _data["rerun_composite_shift_points"]
RERUN_BUILD_FILES = _data["rerun_build_files"]
ALFWORLD_GS_LEAD_MINI_POINTS = _data["alfworld_gs_lead_mini_points"]
ALFWORLD_EPISODE_LOG_LEAD_MINI_POINTS = _data["alfworld_episode_log_lead_mini_points"]
ALFWORLD_GPT41_FAMILY_PCT = _data["alfworld_gpt41_family_pct"]
ALFWORLD_WEAK_HEAT_MAX_PCT = _data["alfworld_weak_heat_max_pct"]
ALFWORLD_PLACEMENT_PCT = _data["alfworld_placement_pct"]
ALFWORLD_COST = _data["alfworld_cost"]

# D.2 (p. 52) stays here: the LoCoMo gold audit (tailmem.metrics.gold_overlay) owns these two and the analysis that
# uses them.
# D.2: 4 of 158 golds materially defective, by question number (1-based in conv-50's qa list); shipped as the gold
# overlay data/gold_overlays/locomo/d2-v1.yaml, which Table 13 (table13_locomo_filtered) drops
LOCOMO_DEFECTIVE_GOLDS = (20, 64, 112, 138)
LOCOMO_FILTERED_GAIN_POINTS_ABOUT = 1.0  # D.2: dropping them raises every non-closed-book variant "by roughly a point"


# -- paper 2's value for a row of our study tables, keyed as the tables key their rows ------------------------------
def shape_row(benchmark: str, variant: str) -> dict[str, float]:
    """RQ1 table (fsmem_rq1_store_shape): appendix B's example LoCoMo store, built by a management agent."""
    if (benchmark, variant) != ("locomo", "agent_curated"):
        return {}
    ex = LOCOMO_EXAMPLE_STORE
    return {"files": ex["files"], "sections": ex["sections"], "cross-refs": ex["cross_refs"]}


def hierarchy_row(benchmark: str, variant: str) -> dict[str, float]:
    """Hierarchy panel (fsmem_hierarchy): the same example store's file and cross-reference counts."""
    if (benchmark, variant) != ("locomo", "agent_curated"):
        return {}
    return {"files": LOCOMO_EXAMPLE_STORE["files"], "references": LOCOMO_EXAMPLE_STORE["cross_refs"]}


def retrieval_row(benchmark: str, variant: str) -> dict[str, float]:
    """RQ2 table (fsmem_rq2_retrieval): the number of questions paper 2 scores on the benchmark (one conversation)."""
    return {"n": BENCHMARKS[benchmark]["questions"]} if benchmark in BENCHMARKS else {}


def strength_row(builder: str, searcher: str) -> dict[str, float]:
    """RQ3 table (fsmem_rq3_strength): §4.1's files per builder and §4.3's correctness ladders as fractions, the
    builder's and the searcher's; the summary names the benchmark of neither."""
    out: dict[str, float] = {}
    if builder in RQ1_FILES_CONVERSATIONAL:
        out["store files"] = RQ1_FILES_CONVERSATIONAL[builder]
        out["builder judge correct"] = fraction(RQ3_BUILDER_CORRECT_PCT[builder])
    if searcher in RQ3_SEARCHER_CORRECT_PCT_ABOUT:
        out["searcher judge correct"] = fraction(RQ3_SEARCHER_CORRECT_PCT_ABOUT[searcher])
    return out


def harness_row(benchmark: str, variant: str, harness: str) -> dict[str, float]:
    """RQ5 table (fsmem_rq5_harness), curated stores: Table 9's LoCoMo correctness range across tool sets (as
    fractions, any harness) and D.3's build effort and store size per harness."""
    if variant != "agent_curated":
        return {}
    out: dict[str, float] = {}
    if benchmark in RQ5_CORRECT_PCT:
        low, high = RQ5_CORRECT_PCT[benchmark]
        out |= {"judge correct low": fraction(low), "judge correct high": fraction(high)}
    effort = RQ5_BUILD_EFFORT.get((benchmark, harness), {})
    names = {
        "store_files": "store files",
        "rounds_per_chunk": "build rounds/chunk",
        "tool_calls_per_chunk": "build tool calls/chunk",
    }
    return out | {names[k]: v for k, v in effort.items()}


def fraction(percent: float) -> float:
    """A printed percentage as the fraction our tables use (86.1 -> 0.861)."""
    return float(percent) / 100.0


def numbers() -> list[tuple[str, float]]:
    """Every number of this module as (dotted name, value): the tests check each is a finite number."""
    out: list[tuple[str, float]] = []

    def walk(name: str, value) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(f"{name}.{'/'.join(k) if isinstance(k, tuple) else k}", v)
        elif isinstance(value, (tuple, list)):
            for i, v in enumerate(value):
                walk(f"{name}[{i}]", v)
        else:
            out.append((name, value))

    for name, value in globals().items():
        if name.isupper() and name != "MODELS":
            walk(name, value)
    return out
