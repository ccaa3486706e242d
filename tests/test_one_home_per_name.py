"""Issue 30, "paths and names repeat": the rule that `out=` overrides a stage's folder is written once
(`paths.out_dir`), and the main harness's name is spelled once (`fsmem.harnesses`); every other module reads them.

Both are checked on the parsed source (Python's own `ast`), so a comment or a docstring mentioning them is fine."""

import ast
import re
from pathlib import Path

import tailmem
from tailmem.fsmem import harnesses

PACKAGE = Path(tailmem.__file__).parent


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(), filename=str(path))


def _reads_cfg_out(node: ast.AST) -> bool:
    """`cfg.out` or `cfg.get("out")` (any config variable name)."""
    if isinstance(node, ast.Attribute) and node.attr == "out":
        return True
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "out"
    )


def test_out_folder_rule_lives_in_paths_only():
    """Before: `Path(cfg.out) if cfg.get("out") else ...` spelled in 18 places although `paths` had the helper."""
    spelled = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if name != "paths.py"
        for node in ast.walk(tree)
        if isinstance(node, ast.IfExp) and _reads_cfg_out(node.test)
    ]
    assert spelled == [], f"use tailmem.paths.out_dir(cfg, default) instead of spelling the rule: {spelled}"


# Modules where the word means something else: a Matplotlib alignment or location, a Markdown column alignment.
OTHER_MEANING = {
    "report/plots.py",
    "studies/longmemeval/figures.py",
    "site/markdown.py",
    "studies/audit_log/audit_write.py",
}  # text alignment, not the harness


def test_main_harness_name_is_spelled_once():
    """Before: the harness name "center" was a literal in 13 places; now `harness_names.CENTER` (re-exported by `harnesses`) is its one home."""
    spelled = [
        f"{name}:{node.lineno}"
        for name, tree in _modules()
        if name != "fsmem/harness_names.py" and name not in OTHER_MEANING
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value == harnesses.CENTER
    ]
    assert spelled == [], f"read the name from tailmem.fsmem.harnesses (CENTER / MAIN_HARNESS): {spelled}"
    assert harnesses.CENTER in harnesses.HARNESSES and harnesses.MAIN_HARNESS in harnesses.HARNESSES


# One name, one meaning; one meaning, one name. Checked on the file tree, so a new module that brings a confusion
# back fails here with the names to choose between.

SCHEMA_FOLDER = "settings"  # settings/<group>.py: a config group's schema, and nothing else is named "settings"


def _stems(pattern: str) -> list[Path]:
    return sorted(p.relative_to(PACKAGE) for p in PACKAGE.rglob(pattern) if "__pycache__" not in p.parts)


def test_settings_names_a_group_schema_only():
    """Before: `llm/settings.py` beside `settings/llm.py` (and the same pair for stats, calibration and rollout):
    one stem for the schema and for the accessor that reads it, so "the llm settings" named two modules. A group's
    accessor is `<package>/group.py`; `settings/<group>.py` is its schema."""
    elsewhere = [p.as_posix() for p in _stems("settings.py") if p.parts[0] != SCHEMA_FOLDER]
    assert elsewhere == [], f"a module named settings.py outside settings/ (name it for what it holds): {elsewhere}"
    schemas = {p.stem for p in _stems(f"{SCHEMA_FOLDER}/*.py")}
    mirrored = [f"{x}/settings.py" for x in schemas if (PACKAGE / x / "settings.py").exists()]
    assert mirrored == [], f"shares a stem with its schema settings/<x>.py: {mirrored}"


def test_no_two_modules_of_a_folder_one_letter_apart():
    """Before: `memory/arm.py` (the arm-name grammar) beside `memory/arms.py` (the controllers' settings): a
    singular and a plural that hold different things read as the same module."""
    pairs = [
        f"{folder.relative_to(PACKAGE).as_posix()}/{{{stem}, {stem}s}}"
        for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]
        for stem in sorted({p.stem for p in folder.glob("*.py")})
        if (folder / f"{stem}s.py").exists()
    ]
    assert pairs == [], f"modules one letter apart: {pairs}"


def test_each_paper_s_values_name_their_paper():
    """Before: `report/paper_values.py` (paper 1) beside `report/paper2_values.py`: the unnumbered one read as
    every paper's numbers. Each module of a paper's published values carries the paper's number."""
    values = [p.name for p in _stems("report/paper*_values.py")]
    assert len(values) >= 2, values  # paper 1 and paper 2 each have one
    assert all(re.fullmatch(r"paper\d+_values\.py", v) for v in values), values


# A study module that plays one part has one name in every study (the majority's), so a reader who knows one study
# finds the same part in another. The other spellings are the names studies gave the same part before.
STUDY_PARTS = {
    "rules.smk": ("study.smk", "locomo.smk", "graphworld.smk", "rollout.smk", "audit.smk", "tables.smk"),
    "figures.py": ("figure.py",),  # pure drawing: frames in, figures out
    "report.py": ("study_tables.py", "stages.py"),  # the report stages: artifacts in, tables/figures/claims written
}
# A stage module is named for the stage's work (control.py, rollout.py, calibrate.py, audit.py), not "stage".
GENERIC_STAGE_NAMES = ("stage.py", "stages.py")


def _study_folders() -> list[Path]:
    return sorted(p for p in (PACKAGE / "studies").iterdir() if (p / "__init__.py").exists())


def test_study_modules_that_play_one_part_share_its_name():
    """Before: LongMemEval's `figure.py` and `stages.py`, fsmem's `study_tables.py` and `study.smk`, random_walk's
    four rule files: the same part under a name each study chose."""
    odd = [
        f"{study.name}/{f.name} (the part every study names {part})"
        for study in _study_folders()
        for f in sorted(study.iterdir())
        for part, others in STUDY_PARTS.items()
        if f.name in others
    ]
    odd += [
        f"{study.name}/{f.name}"
        for study in _study_folders()
        for f in study.glob("*.py")
        if f.name in GENERIC_STAGE_NAMES
    ]
    assert odd == [], f"rename to the part's shared name: {odd}"
    rule_files = {study.name: sorted(f.name for f in study.glob("*.smk")) for study in _study_folders()}
    assert all(files in ([], ["rules.smk"]) for files in rule_files.values()), rule_files


def test_a_study_s_report_stage_lives_in_its_report_module():
    """The registry says which function each stage runs: every `<study>_report` stage runs from the study's
    `report.py` (before: LongMemEval's from `stages.py`, beside its answer stage)."""
    from tailmem.registry import STAGES

    reports = {name: s.module for name, s in STAGES.items() if name.endswith("_report")}
    assert len(reports) >= 3, reports  # control_report, longmemeval_report, alfworld_report at least
    elsewhere = {
        name: m for name, m in reports.items() if not (m.startswith("tailmem.studies.") and m.endswith(".report"))
    }
    assert elsewhere == {}, f"a study's report stage outside its report.py: {elsewhere}"


# -- a stage, the settings folder, the library's packages -------------------------------------------------------
# settings/ holds one schema per config group and the three modules that make a config typed: the checks, the whole
# schema, and what a stage function receives.
SETTINGS_FRAMEWORK = {"__init__", "checks", "schema", "stage_settings"}


def test_a_settings_module_is_a_config_group_s_schema():
    """Before: `settings/stage_settings.py` held what a stage function receives, while `stage` is the config key naming the
    stage to run (a string, no group): "the stage settings" named the key and the typed view. Every other module of
    settings/ is named for a config group the schema types with a dataclass (or an open group)."""
    import dataclasses

    from tailmem.settings.schema import Settings, group_dataclasses

    groups = set(group_dataclasses()) | {"graph", "memory"}
    assert groups <= {f.name for f in dataclasses.fields(Settings)}
    odd = sorted(p.stem for p in _stems(f"{SCHEMA_FOLDER}/*.py") if p.stem not in groups | SETTINGS_FRAMEWORK)
    assert odd == [], f"settings/<x>.py where x is no config group: {odd}"


def test_a_stage_is_one_module():
    """Before: `stage.py` (the typed entry of a stage function) beside `stage_groups.py` (the `Stage` record, its
    declaration, the group tuples and both digests): two modules for "a stage", neither saying which. Now
    `stage.py` is a stage (its record, its declaration, its typed entry) and `digests.py` says when its artifact is
    current; no other module is named `stage` or `stage_*`."""
    staged = sorted(p.as_posix() for p in _stems("*.py") if p.stem == "stage" or p.stem.startswith("stage_"))
    assert staged == ["settings/stage_settings.py", "stage.py"], staged


def test_no_library_module_is_named_study():
    """Before: `fsmem/study.py`, the fsmem study's run list (read by that study, the judges, the model-roles probe
    and the DAG), sat in the library named "study", beside `studies/fsmem/`. A study is a folder of studies/; what
    the library holds for one is named for what it is (`fsmem/run_list.py`)."""
    named = [p.as_posix() for p in _stems("*.py") if p.stem in ("study", "studies") and p.parts[0] != "studies"]
    assert named == [], named


def _library_packages() -> set[str]:
    import tomllib

    contracts = tomllib.loads((PACKAGE.parents[1] / "pyproject.toml").read_text())["tool"]["importlinter"]
    library = next(c for c in contracts["contracts"] if c["id"] == "library-below-pipeline")["source_modules"]
    return {m.split(".", 1)[1] for m in library if (PACKAGE / m.split(".", 1)[1] / "__init__.py").exists()}


def _study_kit() -> set[str]:
    """The modules the studies share below the pipeline (the `studies-below-pipeline` contract's, but the studies)."""
    import tomllib

    contracts = tomllib.loads((PACKAGE.parents[1] / "pyproject.toml").read_text())["tool"]["importlinter"]
    kit = next(c for c in contracts["contracts"] if c["id"] == "studies-below-pipeline")["source_modules"]
    return {m.split(".", 1)[1] for m in kit} - {"studies"}


# Library packages that still share a study's name, and why they stay below the studies under it.
NAMED_LIKE_A_STUDY = {
    "fsmem": "the filesystem memory (store, tools, harnesses, agents) the fsmem, ALFWorld, judge-sensitivity and "
    "model-roles studies share; renaming it touches a test file another engineer owns",
}


def test_no_library_package_is_named_like_a_study():
    """Before: `tailmem.longmemeval` beside `studies/longmemeval/`, `tailmem.calibration` beside
    `studies/calibration/`, the judge panel `tailmem.judges` beside the judge-sensitivity study `studies/judges/` (and
    the same for fsmem and ALFWorld): "the LongMemEval code" named two
    folders. A library package is named for what it is; one only a study uses lives in the study."""
    studies = {p.name for p in _study_folders()}
    assert sorted(_library_packages() & studies) == sorted(NAMED_LIKE_A_STUDY)


def test_only_the_controller_study_reads_the_controller_library():
    """Before (3e9c467): the fsmem, LongMemEval, ALFWorld and random-walk studies planned their design rows through
    `tailmem.control.stated` and `tailmem.control.power`, so four studies read the controller study's library (its
    arms, replay and predictors) for a planned power none of them is about. Planned power is its own package
    (`tailmem.power`); `tailmem.control` is read by the controller study and the run lists alone."""
    import grimp

    graph = grimp.build_graph("tailmem", include_external_packages=False, cache_dir=None)
    inside = {"tailmem.control"} | graph.find_descendants("tailmem.control")
    importers = {i for m in inside for i in graph.find_modules_that_directly_import(m)} - inside
    studies = {i.split(".")[2] for i in importers if i.startswith("tailmem.studies.")}
    others = {i for i in importers if not i.startswith("tailmem.studies.")}
    assert studies == {"controller"}, studies
    assert others == {"tailmem.graph_runs"}, others


def test_a_library_package_one_study_alone_imports_lives_in_it():
    """Before: `tailmem.accesslog` (read only by the external-log audit) and `tailmem.calibration` (read only by the
    calibration study) sat in the library, and so did `tailmem.alfworld` (the ALFWorld environment and its agents,
    now `studies/alfworld/play/`). A package that one study alone imports moves into that study. A second user is a library
    package or a module of the kit the studies share (`tailmem.graph_runs`, the run lists, names the controller
    study's arms from `tailmem.control`): moving such a package into one study would make every study that reads
    the kit depend on that one (the studies-independent contract). The pipeline above (cli, registry) is no user."""
    import grimp

    graph = grimp.build_graph("tailmem", include_external_packages=False, cache_dir=None)
    alone = {}
    for package in sorted(_library_packages()):
        inside = {f"tailmem.{package}"} | graph.find_descendants(f"tailmem.{package}")
        importers = {i for m in inside for i in graph.find_modules_that_directly_import(m)} - inside
        studies = {i.split(".")[2] for i in importers if i.startswith("tailmem.studies.")}
        library = {i for i in importers if i.split(".")[1] in _library_packages() | {"settings"} | _study_kit()}
        if len(studies) == 1 and not library:
            alone[package] = studies.pop()
    assert alone == {}, alone


def test_the_tail_audit_has_one_library_name_and_one_study():
    """Before: `audit/` (the tail statistics), `accesslog/` (the external logs' readers), `studies/audit_log/` and
    `cli_audit_log.py` (its command): four top-level names for two things. Now `audit/` is the tail statistics the
    `audit` group configures, and the external-log audit (its readers, stage and command) is `studies/audit_log/`."""
    top = sorted(p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists())
    assert [n for n in top if "audit" in n or "accesslog" in n] == ["audit"]
    assert (PACKAGE / "studies" / "audit_log" / "command.py").exists()


def test_a_class_named_budget_is_the_endpoint_spending_cap():
    """Issue 50, finding 4: "budget" meant memory tokens, a plan's predictor seconds and an endpoint's spending
    cap, and two unrelated classes were named `Budget` (the spending guard and the design check's plan). A bare
    `Budget` is now the endpoint's cap alone (its guard and its settings); the others name what they budget."""
    bare = {
        path for path, tree in _modules() for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Budget"
    }
    assert bare == {"llm/budget.py", "settings/llm.py"}
    qualified = {
        n.name
        for _, tree in _modules()
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef) and n.name.endswith("Budget")
    }
    assert {"MemoryBudget", "PlanBudget"} <= qualified
