"""Paper 2's published numbers ("Filesystem-Based Memory for LLM Agents", summary in seeds/001_0dbdf53710cb0946.txt),
printed beside ours in the fsmem study tables and in `claims_fsmem`.

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

MODELS = ("gpt-5.4-nano", "gpt-5.4-mini", "gpt-5.4")  # the management / search ladder, weakest first

# -- benchmarks and data (§3 p. 7; C.2 p. 48; D.2 p. 52) ------------------------------------------------------------
BENCHMARKS = {
    "locomo": {"questions": 158, "test_set_questions": 204},  # §3, C.2: 158 non-adversarial of conv-50's 204
    "realtalk": {"questions": 85, "messaging_days": 21},  # §3, C.2: one conversation, 85 questions over 21 days
    "personamem_32k": {"conversations": 3, "questions": 32},  # C.2
    "personamem_128k": {"conversations": 1, "questions": 42, "prefix_messages": 784, "sessions": 20,
                        "prefix_tokens_about": 113_000},  # C.2: "about 113k tokens"
    "alfworld": {"tasks": 140, "goal_families": 6, "memory_variants": 5},  # §3 pp. 8-9, C.6
}
# D.2: 4 of 158 golds materially defective, by question number (1-based in conv-50's qa list); shipped as the gold
# overlay data/gold_overlays/locomo/d2-v1.yaml, which Table 13 (table13_locomo_filtered) drops
LOCOMO_DEFECTIVE_GOLDS = (20, 64, 112, 138)
LOCOMO_FILTERED_GAIN_POINTS_ABOUT = 1.0  # D.2: dropping them raises every non-closed-book variant "by roughly a point"

# -- configuration (C.1 pp. 47-48; A.2 p. 28; C.4 pp. 49-50) --------------------------------------------------------
CHUNK = {"max_turns": 8, "max_chars": 3000}  # C.1: build chunks of at most eight turns or 3,000 characters
TOKEN_CAPS = {"search": 8192, "judge": 8192, "curation": 32768, "restructuring": 100_000}  # C.1
VALIDATION_SCAN_TURNS = 2885  # C.1: truncation zero across the 2,885-turn validation scan
COMPACTION = {"prompt_tokens": 96_000, "recent_turns": 3}  # C.1: compact above 96k, keep the 3 latest turns
ROUNDS = {  # C.1: round caps, and the deepest episodes observed
    "build_cap": 60, "search_curated_cap": 40, "search_other_cap": 20, "closed_book": 1,
    "deepest_build": 36, "deepest_search": 24,
}
REORGANIZE_PASSES = 5  # A.2: the reorganizer rewrites the store for up to five passes
TOOLS = {"management_write": 7, "search_read_only": 4, "chunk_retrieval_top_k": 3}  # C.4 p. 49 (Table 12), p. 50
PRICE_PER_M_TOKENS = {"uncached_input": 0.75, "cached_input": 0.075, "output": 4.50}  # C.5: gpt-5.4-mini, dollars

# -- RQ1: what stores agents build (§4.1 pp. 10-12; B pp. 45-47) ----------------------------------------------------
# §4.1: files per builder across the model ladder. The summary does not name the conversational benchmark.
RQ1_FILES_CONVERSATIONAL = {"gpt-5.4-nano": 122, "gpt-5.4-mini": 2, "gpt-5.4": 105}
RQ1_FILES_PROCEDURAL = {"gpt-5.4-nano": 114, "gpt-5.4-mini": 45, "gpt-5.4": 16}  # §4.1; B p. 46-47 (114, 45, 16)
# B pp. 45-46: the example LoCoMo store (built by a management agent) in three speaker-and-thread files.
LOCOMO_EXAMPLE_STORE = {"files": 3, "sections": 116, "cross_refs": 151}
PERSONAMEM_FOLDERED_STORE = {"topic_dirs": 10, "session_files": 20}  # B p. 46
SKILL_STORE_GPT54 = {"files": 16, "dirs": 0, "skills": 5, "notes": 11, "kilobytes": 101}  # B pp. 46-47

# -- RQ2: memory shape and retrieval (§4.2 pp. 13-14; D.1 pp. 51-52) ------------------------------------------------
RQ2_PERSONAMEM_CENTS_PER_QUERY = {"reorganized": (1.4, 1.6), "verbatim": (4.0, 3.9)}  # §4.2, ranges as printed
# D.1: PersonaMem 32k correctness (%) on identical questions; the management upgrade mini -> gpt-5.4
PERSONAMEM_32K_CORRECT_PCT = {"verbatim": 78.1, "foldered": 62.5, "agent_curated": 37.5,
                              "agent_curated_gpt-5.4_builder": 56.3}
PERSONAMEM_32K_UPGRADE = {"correct_after": 18, "correct_before": 12, "questions": 32,  # D.1: 18/32 vs 12/32
                          "gains": 9, "losses": 3, "sign_test_p_one_sided": 0.073}  # D.1: paired, one-sided
PERSONAMEM_32K_MISSED_GOLD_FACTS = 13  # D.1: all thirteen gold-critical facts missed by curation remain present
PERSONAMEM_32K_GROUNDING = (0.94, 0.98)  # D.1: grounding scores
PERSONAMEM_32K_ATTRIBUTION = (0.97, 1.0)  # D.1: attribution scores

# -- RQ3: backbone model capability (§4.3 pp. 15-17) ----------------------------------------------------------------
RQ3_BUILDER_CORRECT_PCT = {"gpt-5.4-nano": 73.8, "gpt-5.4-mini": 66.7, "gpt-5.4": 71.4}  # conversational, per builder
# §4.3: search correctness "rose from about 62% to 71% to 79%" up the searcher ladder
RQ3_SEARCHER_CORRECT_PCT_ABOUT = {"gpt-5.4-nano": 62.0, "gpt-5.4-mini": 71.0, "gpt-5.4": 79.0}
RQ3_SKILLS_GPT54_GAIN_POINTS = 13.0  # §4.3: in skills, gpt-5.4 management adds 13 points over the lower models

# -- RQ4: sustainability as memory grows (§4.4 pp. 17-20; D.7 p. 55) ------------------------------------------------
RQ4_STORE_OVER_INPUT = (1.35, 0.25)  # §4.4: final size from 35% above the input to one quarter of it
ALFWORLD_CHAIN = {  # §4.4 p. 18: the 140-task chain, mini-tier Episode log
    "tasks": 140, "window_tasks": 35, "first_window_pct": 51.4, "last_window_pct": 91.4,
    "invalid_actions_before_pct": 40.0, "invalid_actions_after_pct": 24.0,  # weakest execution tier
}
ALFWORLD_ACCUMULATION_GAIN_POINTS = {"weak_execution": 7.1, "strong_execution": 1.4}  # §4.4 pp. 18-19, Episode log
ALFWORLD_REVERSED_NANO_PCT = (63.0, 89.0)  # §4.4 p. 19: reversed accumulation, nano from 63% to 89%
ALFWORLD_RETRIEVAL_DOLLARS_140 = {"curated_skills_mem": 2.97, "episode_log": 7.88}  # §4.4 p. 19; D.6 p. 55
ALFWORLD_STORE_GROWTH = {  # §4.4 p. 19
    "gpt-5.4_files_by_task_35": 14, "gpt-5.4_final_files": 16,
    "mini_episode_log_files": 140, "mini_episode_log_kilobytes": 270,
}
ALFWORLD_EARLY_FILES_UNTOUCHED = {"gpt-5.4": (1, 14), "gpt-5.4-nano": (22, 35)}  # §4.4 p. 20: (untouched, early)
ALFWORLD_CURATION_ROUNDS = (6, 12)  # D.7: the six-to-twelve-round growth of curation effort (Figure 11)
GROWTH_ATLAS_STATES = {"validated": 560, "mismatches": 0}  # D.7: Figure 9's hierarchy over 560 validated states

# -- RQ5: harness effects (§4.5 pp. 20-22; Tables 9, 10; D.3 pp. 52-53) ---------------------------------------------
# §4.5, Table 10: Shell shards PersonaMem 128k into 147 files, the file-tool sets consolidate it into one or two
RQ5_PERSONAMEM_128K_FILES = {"shell": 147, "file_tools": (1, 2)}
RQ5_CORRECT_PCT = {"locomo": (86.1, 86.7), "personamem_128k": (61.9, 66.7)}  # Table 9, §4.5: across tool sets
RQ5_SKILLS = {"shell_mini_chain_pct": 82.9, "shell_over_center_bm25_points": 11.0, "shell_over_center_points": 9.0,
              "shell_mini_store_files": 36, "center_mini_store_files": 45}  # §4.5 p. 22
# D.3: build effort per input chunk of the curated LoCoMo and PersonaMem builds, per harness
RQ5_BUILD_EFFORT = {
    ("locomo", "center_bm25"): {"store_files": 29, "rounds_per_chunk": 15.1, "tool_calls_per_chunk": 25.4},
    ("locomo", "shell"): {"store_files": 39, "rounds_per_chunk": 14.8, "tool_calls_per_chunk": 20.0},
    ("personamem", "center_bm25"): {"store_files": 1, "rounds_per_chunk": 9.6},
    ("personamem", "shell"): {"rounds_per_chunk": 11.6},
}
RERUN_COMPOSITE_SHIFT_POINTS = (4.0, -2.7, 0.6, 2.8)  # D.3: weighted search-score shift across paired re-run cells
RERUN_BUILD_FILES = (2, 29)  # D.3: one wording-only correction changed a repeated build from 2 files to 29

# -- ALFWorld skill setting: goal families, cost and compute (D.5 p. 54; D.6 p. 55) ---------------------------------
# D.5: Curated skills+mem (GS) over the Episode log at gpt-4.1-mini, in five of six goal families
ALFWORLD_GS_LEAD_MINI_POINTS = {"two_object": 20.8, "cool": 20.0, "heat": 18.8, "examine": 15.4, "placement": 2.8}
ALFWORLD_EPISODE_LOG_LEAD_MINI_POINTS = {"clean": 7.4}  # D.5: the one family the Episode log keeps
# D.5: at gpt-4.1; "GS leads heat (87.5 versus 37.5)", the 37.5 being the arm it leads (the summary's comparison
# in that sentence is the Episode log)
ALFWORLD_GPT41_FAMILY_PCT = {"episode_log_clean": 85.2, "episode_log_cool": 84.0, "gs_heat": 87.5,
                             "heat_led": 37.5}
ALFWORLD_WEAK_HEAT_MAX_PCT = 37.5  # D.5: heat never exceeds 37.5 for the weak execution agent
ALFWORLD_PLACEMENT_PCT = (94.3, 100.0)  # D.5: simple placement, every variant at both tiers
ALFWORLD_COST = {  # D.6 p. 55
    "gs_cents_per_solved_mini": 5.7, "episode_log_cents_per_solved_mini": 6.1,
    "curation_dollars_per_cell": (7.0, 11.0),
    "gs_rounds_mini": 23.6, "episode_log_rounds_mini": 32.0,
    "gs_uncached_input_tokens_mini": 13_500, "gs_cached_input_tokens_mini": 135_000,
    "no_cache_overstatement_x": (16.0, 23.0), "caching_savings_captured_pct": (94.4, 96.3),
    "compute_over_minimum_x": (1.7, 2.05),
    "gs_first_turn_tokens_mini": 620, "episode_log_first_turn_tokens_mini": 2684,
    "gs_intrinsic_advantage_pct_about": 29.0, "episode_log_tokens_per_task_gpt41": 6937,
}


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
    return {"n": BENCHMARKS[benchmark]["questions"]} if benchmark in ("locomo", "realtalk") else {}


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
    names = {"store_files": "store files", "rounds_per_chunk": "build rounds/chunk",
             "tool_calls_per_chunk": "build tool calls/chunk"}
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
