"""Results follow their config and code (issue 12, finding 1): editing a default in `configs/` or a module reruns
exactly the jobs that depend on it, a comment-only edit reruns nothing, and a no-op rerun schedules 0 jobs.

The slow tests read the session's finished smoke run (tests/smoke_run.py: Snakemake has stored each job's params),
edit a copy of `configs/`, and read which jobs a dry run of that run schedules, by rule.
"""

import collections
import json
import re
import shutil

import pytest

import smoke_run
from tailmem import registry, source_closure
from tailmem.workflow import Dag

# The rules of the random-walk study and the controller study (the smoke scale's programmatic part).
RANDOM_WALK_AND_CONTROL = {
    "graphworld",
    "rollout",
    "audit",
    "tables_random_walk",
    "figures_random_walk",
    "control",
    "control_report",
}


def _scheduled(smoke, repo_root, data_dir, configs) -> collections.Counter:
    """Jobs a dry run of the shared smoke run would run with `configs` as the config folder, counted by rule (from
    Snakemake's job-stats table)."""
    out = smoke_run.snakemake(
        smoke.workdir, repo_root, data_dir, "-n", "--quiet", "rules", environ={"TAILMEM_CONFIGS": str(configs)}
    )
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout + out.stderr
    if "Nothing to be done" in text:
        return collections.Counter()
    counts = collections.Counter()
    for line in text.splitlines():
        m = re.fullmatch(r"\s*([A-Za-z_][\w]*)\s+(\d+)\s*", line)
        if m and m.group(1) not in ("total", "job", "count"):
            counts[m.group(1)] = int(m.group(2))
    assert counts, text[-3000:]
    return counts


@pytest.fixture(scope="module")
def configs(tmp_path_factory, repo_root):
    """A copy of configs/ that a test edits (and restores); the shared smoke run was made with configs/ itself."""
    copy = tmp_path_factory.mktemp("rerun") / "configs"
    shutil.copytree(repo_root / "configs", copy)
    return copy


def _scheduled_after_edit(smoke, repo_root, data_dir, configs, relpath, old, new):
    """The jobs a dry run schedules with one config file edited (the file is restored afterwards)."""
    path = configs / relpath
    text = path.read_text()
    assert old in text, f"{path}: {old!r} not found"
    path.write_text(text.replace(old, new, 1))
    try:
        return _scheduled(smoke, repo_root, data_dir, configs)
    finally:
        path.write_text(text)


@pytest.mark.slow
def test_noop_rerun_schedules_nothing(smoke, repo_root, data_dir, configs):
    """The same config read from another folder: nothing to do."""
    assert _scheduled(smoke, repo_root, data_dir, configs) == collections.Counter()


@pytest.mark.slow
def test_comment_only_edit_reruns_nothing(smoke, repo_root, data_dir, configs):
    jobs = _scheduled_after_edit(
        smoke,
        repo_root,
        data_dir,
        configs,
        "memory/graph_memory.yaml",
        "budget: 156",
        "budget: 156   # a comment changes no number",
    )
    assert jobs == collections.Counter()


@pytest.mark.slow
def test_memory_default_edit_reruns_the_controller_study_and_its_report_only(smoke, repo_root, data_dir, configs):
    jobs = _scheduled_after_edit(
        smoke, repo_root, data_dir, configs, "memory/graph_memory.yaml", "budget: 156", "budget: 140"
    )
    # Of the random-walk and controller rules, only the controller study and its report rerun ...
    assert {r for r in jobs if r in RANDOM_WALK_AND_CONTROL} == {"control", "control_report"}, jobs
    # ... and of the rest of the DAG nothing that reads no memory setting (worlds, rollouts, audits, tables,
    # filesystem memory, LongMemEval), in either slice
    unrelated = ("graphworld", "rollout", "audit", "tables_", "figures_", "fsmem", "longmemeval")
    assert not [r for r in jobs if r.removeprefix("model_").startswith(unrelated)], jobs
    # Graph Memory's arms (2 encodings) and the CTMC arms matched to them rerun; the baselines do not.
    assert 2 <= jobs["control"] < smoke.rules()["control"], jobs


@pytest.mark.slow
def test_steps_edit_reruns_rollouts_and_what_follows_but_no_world(smoke, repo_root, data_dir, configs):
    jobs = _scheduled_after_edit(smoke, repo_root, data_dir, configs, "scale/smoke.yaml", "  steps: 40", "  steps: 30")
    assert "graphworld" not in jobs
    assert {"rollout", "audit", "control", "tables_random_walk", "control_report"} <= set(jobs), jobs


def test_a_scale_edit_changes_the_rollout_digest_not_the_world_digest():
    base = Dag("smoke")
    edited = Dag("smoke", ["rollout.steps=20"])
    world_args = ("graph=modular", "graph.n=30", "seed=0")
    run_args = (*world_args, "policy=random_walk", "retrieval=recency")
    assert (
        base.job("graphworld", world_args, "modular").config == edited.job("graphworld", world_args, "modular").config
    )
    assert base.job("rollout", run_args, "modular").config != edited.job("rollout", run_args, "modular").config


def test_the_dag_digest_equals_the_digest_the_stage_computes_from_its_own_config():
    """What Snakemake tracks and what meta.json records are one number."""
    from tailmem.workflow import compose_config

    args = (
        "graph=modular",
        "graph.n=30",
        "seed=0",
        "policy=semantic",
        "retrieval=recency",
        "memory=ctmc",
        "memory.tau=1.0",
        "control.arm=ctmc-compact-tau1-rank",
    )
    job = Dag("smoke").job("control", args, "modular")
    cfg = compose_config("smoke", [*args, "control.world=/somewhere/else", "out=/x"])
    assert job.config == registry.STAGES["control"].config_digest(cfg)


def test_code_digest_follows_imports_and_ignores_comments(tmp_path, monkeypatch):
    """ctmc.py is in the control stage's closure and not the world's; a comment does not change a digest."""
    closure = {p.name for p in source_closure.import_closure("tailmem.studies.controller.control")}
    assert "ctmc.py" in closure
    assert "ctmc.py" not in {p.name for p in source_closure.import_closure("tailmem.studies.random_walk.graphworld")}
    src = source_closure.PACKAGE_ROOT / "memory" / "ctmc.py"
    text = src.read_text()
    with_comment = tmp_path / "a.py"
    with_comment.write_text(text + "\n# a comment\n")
    changed = tmp_path / "b.py"
    changed.write_text(text + "\nEXTRA = 1\n")
    assert source_closure.file_digest(with_comment) == source_closure.file_digest(src)
    assert source_closure.file_digest(changed) != source_closure.file_digest(src)


def test_a_reworded_docstring_reruns_nothing(tmp_path):
    """Finding: removing issue numbers from docstrings changed 33 of 35 stage code digests (the digest was of the
    whole syntax tree, docstrings included) and ALFWorld's episode key (raw bytes), so every job would rerun and
    every cached episode replay. A docstring is not code; a string that is code still counts."""
    plain = "def f(x):\n    return x + 1\n\nclass C:\n    pass\n"
    documented = '"""Module."""\n\ndef f(x):\n    """Why f."""\n    return x + 1\n\nclass C:\n    """Only a doc."""\n'
    as_value = 'def f(x):\n    "why"\n    return x + 1\n\nclass C:\n    pass\n\nNOTE = "a table note"\n'
    files = {}
    for name, text in (("plain", plain), ("documented", documented), ("as_value", as_value)):
        files[name] = tmp_path / f"{name}.py"
        files[name].write_text(text)
    digest = {k: source_closure.file_digest(v) for k, v in files.items()}
    assert digest["documented"] == digest["plain"]
    assert digest["as_value"] != digest["plain"]  # the module-level string is a value, not a docstring


def _scan_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TAILMEM_CACHE_DIR", str(tmp_path / "cache"))
    return source_closure._ScanCache()


def test_the_scan_cache_gives_the_syntax_tree_digest_of_the_standard_library(tmp_path, monkeypatch):
    """Cold, and warm in a second process's cache, a module's digest is sha256 of the stdlib's own `ast.dump` of
    its tree without docstrings."""
    import ast
    import hashlib

    src = source_closure.PACKAGE_ROOT / "memory" / "ctmc.py"
    tree = ast.parse(src.read_text())
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, kinds) and ast.get_docstring(node) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    expected = hashlib.sha256(ast.dump(tree).encode()).hexdigest()
    cold = _scan_cache(tmp_path, monkeypatch)
    assert cold.scan(src)["ast"] == expected
    cold.save()
    assert cold.path().is_file()

    warm = source_closure._ScanCache()
    monkeypatch.setattr(source_closure, "_scan", lambda tree: pytest.fail("parsed although the cache has the file"))
    assert warm.scan(src)["ast"] == expected
    named = {
        n.module
        for n in ast.walk(ast.parse(src.read_text()))
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("tailmem")
    }
    assert named and named <= set(warm.scan(src)["imports"])


def test_an_edited_module_is_never_served_from_the_scan_cache(tmp_path, monkeypatch):
    """The cache is keyed by the file's bytes: after an edit the digest and the imports follow the new text, even
    with the old entry on disk."""
    cache = _scan_cache(tmp_path, monkeypatch)
    mod = tmp_path / "m.py"
    mod.write_text("import tailmem.paths\nX = 1\n")
    before = cache.scan(mod)
    cache.save()
    mod.write_text("import tailmem.artifacts\nX = 2\n")
    after = source_closure._ScanCache().scan(mod)
    assert after["ast"] != before["ast"]
    assert "tailmem.artifacts" in after["imports"] and "tailmem.paths" not in after["imports"]


def test_a_corrupt_scan_cache_is_only_a_slower_start(tmp_path, monkeypatch):
    cache = _scan_cache(tmp_path, monkeypatch)
    cache.path().parent.mkdir(parents=True)
    cache.path().write_text("{not json")
    src = source_closure.PACKAGE_ROOT / "paths.py"
    assert cache.scan(src) == source_closure._scan(__import__("ast").parse(src.read_text()))
    cache.save()
    assert json.loads(cache.path().read_text())  # rewritten whole
