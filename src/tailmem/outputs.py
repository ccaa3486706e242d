"""The stem of every table and figure the DAG writes, defined once.

Why a module of its own: the .smk files declare these files as rule outputs and the stages write them; both read
the names here, so a renamed table cannot leave a rule waiting for a file no stage writes. It imports nothing, so
a stage importing it keeps its code digest (tailmem.digests) independent of the DAG's own modules.
Each table stem is written as `<stem>.csv` and `<stem>.md` (tailmem.paths.TABLE), each figure as .png and .pdf.
"""

# Paper 1, random walk (studies/random_walk/report.py, studies/random_walk/plot.py)
TABLE2_SIGMA_TOP10 = "table2_random_walk_sigma_top10"
TABLE7_CONCENTRATION = "table7_random_walk_concentration"
TABLE8_RETRIEVAL_DESIGNS = "table8_retrieval_designs"
TABLE3_RANDOM_WALK = "table3_tail_audit_random_walk"
CLAIMS_RANDOM_WALK = "claims_random_walk"
RANDOM_WALK_TABLES = (
    TABLE2_SIGMA_TOP10,
    TABLE7_CONCENTRATION,
    TABLE8_RETRIEVAL_DESIGNS,
    TABLE3_RANDOM_WALK,
    CLAIMS_RANDOM_WALK,
)
TABLE7_CALIBRATION = (
    "table7_calibration"  # which random-walk protocol reproduces Tables 7, 2, 8 (studies/calibration/calibrate.py)
)
CALIBRATION_TABLES = (TABLE7_CALIBRATION,)
FIG3_CCDF = "fig3_ccdf_random_walk"
FIG5_CONCENTRATION = "fig5_concentration_random_walk"
RANDOM_WALK_FIGURES = (FIG3_CCDF, FIG5_CONCENTRATION)

# Paper 1, controller study (studies/controller/report.py); the figures' data also as <figure stem>_data tables
TABLE3_POLICY = "table3_tail_audit_policy"
TABLE4_BASELINES = "table4_memory_baselines"
TABLE5_GRAPH_VS_CTMC = "table5_graph_memory_vs_ctmc"
TABLE6_ABLATION = "table6_allocation_ablation"
CLAIMS_CTMC = "claims_ctmc"
# before any model call, can each study's paired claims be decided (stage design_table gathers every study's rows)
DESIGN_CHECK = "design_check"
MODEL_ROLES = "model_roles"  # a model slice: probe figures per role (studies/model_roles/probe.py)
MODEL_CLAIMS = "model_claims"  # a model slice: every claims row with the roles it rests on (same stage)
JUDGE_SENSITIVITY = (
    "judge_sensitivity"  # the same answers under several judges, agreement (studies/judge_sensitivity/sensitivity.py)
)
JUDGE_VERDICTS = f"{JUDGE_SENSITIVITY}.verdicts.parquet"  # its per-answer verdicts, read by the claims stages
CONTROL_TABLES = (TABLE3_POLICY, TABLE4_BASELINES, TABLE5_GRAPH_VS_CTMC, TABLE6_ABLATION, CLAIMS_CTMC)
FIG4_TAIL_AUDIT = "fig4_tail_audit_policy"
FIG6_TAU = "fig6_tau_concentration"
FIG7_REDUCTION = "fig7_ctmc_token_reduction"
CONTROL_FIGURES = (FIG4_TAIL_AUDIT, FIG6_TAU, FIG7_REDUCTION)

# Paper 1, LongMemEval (studies/longmemeval/run.py, report.py)
LONGMEMEVAL_BY_TYPE = "longmemeval_by_type"
LONGMEMEVAL_SUMMARY = "longmemeval_summary"
LONGMEMEVAL_CTMC_VS_GRAPH = "longmemeval_ctmc_vs_graph"
LONGMEMEVAL_REDUCTION = "longmemeval_reduction"  # the measured reduction: largest non-inferior CTMC budget
CLAIMS_LONGMEMEVAL = "claims_longmemeval"
LONGMEMEVAL_TABLES = (
    LONGMEMEVAL_BY_TYPE,
    LONGMEMEVAL_SUMMARY,
    LONGMEMEVAL_CTMC_VS_GRAPH,
    LONGMEMEVAL_REDUCTION,
    CLAIMS_LONGMEMEVAL,
)
LONGMEMEVAL_FIGURE = "fig8_longmemeval"


def conversation_table(benchmark: str, conversation: str) -> str:
    """Paper 2's main table for one conversation of a benchmark, e.g. locomo_conv-50 (studies/fsmem/locomo.py)."""
    return f"{benchmark}_{conversation}"


# Paper 2, the filesystem-memory study: study stage -> its table (studies/fsmem/report.py)
FSMEM_STUDY_TABLES = {
    "fsmem_shape": "fsmem_rq1_store_shape",
    "fsmem_retrieval": "fsmem_rq2_retrieval",
    "fsmem_strength": "fsmem_rq3_strength",
    "fsmem_harness": "fsmem_rq5_harness",
    "fsmem_hierarchy": "fsmem_hierarchy",
    "fsmem_costs": "fsmem_costs",
    "fsmem_replicates": "fsmem_store_replicates",  # spread of store shape and F1 across replicate builds
    "fsmem_claims": "claims_fsmem",  # paper 2's claims with paired intervals (studies/fsmem/claims_stage.py)
}
FSMEM_GROWTH = "fsmem_rq4_growth"  # table and figure; the atlas beside it as <stem>_atlas.csv
FSMEM_ACCESS = "fsmem_access_audit"  # the CCDF points as fsmem_access_ccdf.csv
FSMEM_ACCESS_CCDF = "fsmem_access_ccdf"  # figures fsmem_access_ccdf_file, fsmem_access_ccdf_section
FSMEM_ACCESS_UNITS = ("file", "section")
FSMEM_PERSONAMEM = "fsmem_personamem"
TABLE13_LOCOMO_FILTERED = "table13_locomo_filtered"  # paper 2 Table 13: D.2's defective golds dropped


# ALFWorld, per subset (studies/alfworld/report.py)
ALFWORLD_TABLES = ("memory", "memory_family", "skills", "skills_family")
ALFWORLD_FIGURES = ("memory", "skills_growth")
# Paper 2's skill-side analyses: the store each task was given, its taxonomy against growth, the curation
# effort per task and its trend (Figure 11), running success by goal family against no store (Figure 12)
ALFWORLD_SKILL_TABLES = (
    "skills_store",
    "skills_erosion",
    "skills_effort",
    "skills_effort_trend",
    "skills_family_running",
)
ALFWORLD_SKILL_FIGURES = ("skills_effort", "skills_family_running")
CLAIMS_ALFWORLD = "claims_alfworld"  # paired comparisons at the game unit, one table per subset


def claims_alfworld(subset: str) -> str:
    """The ALFWorld claims table of a subset, e.g. claims_alfworld_valid_seen."""
    return f"{CLAIMS_ALFWORLD}_{subset}"


def alfworld_output(subset: str, name: str) -> str:
    """An ALFWorld table or figure stem, e.g. alfworld_valid_seen_memory."""
    return f"alfworld_{subset}_{name}"
