"""Issue 12, finding 2 (thin provenance) and the "report/ a pure layer" deliverable.

meta.json must name the code (commit, dirty flag, diff hash), the config (digest of the stage's groups), the
packages (pins and installed versions), the agent per role and the sha256 of every data file read; every table's
Markdown carries the same in a footer; report/ reads no config and imports no stage.
Each fact is checked against an independent source: git run here, hashlib on the file, packaging's parser.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from hydra import compose, initialize_config_dir

from tailmem import provenance
from tailmem.configs import config_dir
from tailmem.digests import config_digest
from tailmem.errors import DataError
from tailmem.registry import STAGES
from tailmem.report.table_io import write_table
from tailmem.settings.stage_settings import for_stage

SRC = Path(provenance.__file__).resolve().parent


def compose_cfg(*overrides: str):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(config_name="config", overrides=list(overrides))


def stage_settings(name: str, *overrides: str):
    """What stage `name` receives when run with `overrides`: its settings, which the provenance reads."""
    entry = STAGES[name]
    return for_stage(compose_cfg(f"stage={name}", *overrides), entry.name, entry.groups, entry.arms)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture()
def fresh_caches():
    provenance.code_state.cache_clear()
    yield
    provenance.code_state.cache_clear()


def test_meta_json_names_code_config_packages_agents_data(tmp_path, data_dir, fresh_caches):
    """Finding 2: meta.json had only tailmem_version 0.1.0, Python and host."""
    cfg = stage_settings("fsmem_build", f"data_dir={data_dir}")
    data = data_dir / "locomo" / "locomo10.json"
    provenance.save_provenance(tmp_path, cfg, data_files=[data], agent="x")
    meta = json.loads((tmp_path / "meta.json").read_text())

    code = meta["code"]
    root = provenance.REPO_ROOT
    assert code["commit"] == git(root, "rev-parse", "HEAD").strip()
    dirty = bool(git(root, "status", "--porcelain"))
    assert code["dirty"] is dirty
    assert (len(code["diff_sha256"]) == 64) if dirty else code["diff_sha256"] is None

    assert meta["config_groups"] == list(STAGES["fsmem_build"].groups)
    assert meta["config_digest"] == STAGES["fsmem_build"].config_digest(cfg.composed)

    assert meta["data"] == {
        "locomo/locomo10.json": {"sha256": hashlib.sha256(data.read_bytes()).hexdigest(), "bytes": data.stat().st_size}
    }

    from packaging.requirements import Requirement

    reqs = [Requirement(r) for r in importlib.metadata.requires("tailmem")]
    assert set(meta["packages"]) == {r.name for r in reqs}
    for r in reqs:
        rec = meta["packages"][r.name]
        assert rec["pinned"] == next(iter(r.specifier)).version
        try:
            assert rec["installed"] == importlib.metadata.version(r.name)
        except importlib.metadata.PackageNotFoundError:
            assert rec["installed"] is None
    assert meta["packages"]["numpy"]["extra"] is None and meta["packages"]["pytest"]["extra"] == "dev"

    offline = yaml.safe_load((config_dir() / "llm" / "offline.yaml").read_text())["roles"]
    assert meta["agents"] == {
        role: {"backend": "programmatic", "agent": spec["agent"], "preset": "offline", "structured_outputs": None}
        for role, spec in offline.items()
    }
    assert meta["agent"] == "x" and meta["stage"] == "fsmem_build"


def test_config_digest_follows_the_stage_groups_only():
    """The digest changes with a value of a group the stage reads, not with one it does not read."""
    entry = STAGES["fsmem_build"]

    def record(*overrides):
        return provenance.config_record(stage_settings(entry.name, *overrides))

    groups, digest = record()
    assert groups == list(entry.groups) and digest == entry.config_digest(compose_cfg("stage=fsmem_build"))
    assert record("fsmem.chunk.max_turns=7")[1] != digest
    assert record("graph.degree=9")[1] == digest
    # a stage that records a narrower set of groups: those groups' digest, without the stage's memory arms
    s = stage_settings(entry.name)
    assert provenance.config_record(s, ["fsmem"]) == (["fsmem"], config_digest(s.composed, ["fsmem"]))


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    (root / "a.py").write_text("x = 1\n")
    git(root, "add", "a.py")
    git(root, "commit", "-q", "-m", "one")
    return root


def test_dirty_tree_gives_a_diff_hash_that_follows_the_diff(tmp_path, fresh_caches):
    root = _repo(tmp_path)
    clean = provenance.code_state(root)
    assert clean["commit"] == git(root, "rev-parse", "HEAD").strip() and clean["dirty"] is False
    assert clean["diff_sha256"] is None

    def state():
        provenance.code_state.cache_clear()
        return provenance.code_state(root)

    (root / "a.py").write_text("x = 2\n")
    first = state()
    diff = subprocess.run(["git", "-C", str(root), "diff", "HEAD", "--binary"], capture_output=True, check=True).stdout
    assert first["dirty"] is True and first["diff_sha256"] == hashlib.sha256(diff).hexdigest()
    (root / "a.py").write_text("x = 3\n")
    second = state()
    assert second["dirty"] is True and second["diff_sha256"] != first["diff_sha256"]
    (root / "new.py").write_text("y = 1\n")  # an untracked file is a change too
    third = state()
    assert third["diff_sha256"] != second["diff_sha256"] and third["untracked_files"] == 1
    (root / "new.py").write_text("y = 2\n")
    assert state()["diff_sha256"] != third["diff_sha256"]
    (root / "new.py").unlink()
    (root / "a.py").write_text("x = 1\n")
    assert state() == clean


def test_outside_a_git_checkout_commit_is_null_and_says_why(tmp_path, fresh_caches):
    state = provenance.code_state(tmp_path)
    assert state["commit"] is None and state["dirty"] is None and "not a git checkout" in state["reason"]
    sub = _repo(tmp_path) / "pkg"  # a folder inside someone else's checkout is not the tailmem checkout
    sub.mkdir()
    assert "not a git checkout" in provenance.code_state(sub)["reason"]


def test_git_and_packages_are_computed_once_per_process(monkeypatch, fresh_caches):
    provenance.code_state()
    provenance.package_versions()

    def boom(*a, **k):
        raise AssertionError("git ran again")

    monkeypatch.setattr(subprocess, "Popen", boom)
    monkeypatch.setattr(subprocess, "run", boom)
    monkeypatch.setattr(importlib.metadata, "requires", boom)
    provenance.code_state()
    provenance.package_versions()


def test_data_sha256_is_cached_by_path_size_and_mtime(tmp_path):
    f = tmp_path / "d.json"
    f.write_text("[1]")
    assert provenance.file_sha256(f) == hashlib.sha256(b"[1]").hexdigest()
    f.write_text("[1, 2]")  # new size: rehashed, not served from the cache
    assert provenance.file_sha256(f) == hashlib.sha256(b"[1, 2]").hexdigest()
    with pytest.raises(DataError, match="nope.json"):
        provenance.file_sha256(tmp_path / "nope.json")
    with pytest.raises(DataError, match="folder"):
        provenance.file_sha256(tmp_path)


def test_table_footer_under_the_markdown_not_in_the_csv(tmp_path, fresh_caches):
    cfg = stage_settings("tables")
    footer = provenance.table_footer(cfg)
    commit = git(provenance.REPO_ROOT, "rev-parse", "HEAD").strip()
    assert f"commit `{commit[:12]}`" in footer
    assert STAGES["tables"].config_digest(cfg.composed) in footer
    played, idle = agents_part(footer)  # the random walk and the semantic proxy walked: the judge judged nothing
    assert "policy programmatic-semantic" in played and "judge" not in played and "judge" in idle.split(", ")
    assert ("dirty, diff sha256" in footer) is bool(git(provenance.REPO_ROOT, "status", "--porcelain"))
    df = pd.DataFrame({"a": [1.0, 2.0], "a_sd": [0.1, 0.2]})
    write_table(tmp_path, "t", df, "T", "note", footer)
    md = (tmp_path / "t.md").read_text()
    assert md.rstrip().endswith(footer) and md.index("note") < md.index("| a ") < md.index(footer)
    assert "1.000 ± 0.100" in md
    assert "Provenance" not in (tmp_path / "t.csv").read_text()
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "t.csv"), df)


def test_table_footer_names_package_versions_and_each_data_file_with_its_sha256(tmp_path, fresh_caches):
    """Issue 12: every table's footer carries the package versions and the sha256 of each data file read."""
    data = tmp_path / "data" / "bench.json"
    data.parent.mkdir()
    data.write_bytes(b'{"q": 1}')
    cfg = stage_settings("tables", f"data_dir={data.parent}")
    footer = provenance.table_footer(cfg, data_files=[data])
    assert f"bench.json sha256 `{hashlib.sha256(data.read_bytes()).hexdigest()[:12]}`" in footer
    assert "installed at their pin" in footer and "versions digest" in footer
    assert "data: no benchmark file read" in provenance.table_footer(cfg, data_files=[])
    assert "meta.json" in provenance.table_footer(cfg)  # not listed: the footer says where they are
    drift = {
        "numpy": {"pinned": "2.0.0", "installed": "2.1.0", "extra": None},
        "pandas": {"pinned": "2.2.0", "installed": "2.2.0", "extra": None},
        "llama-cpp-python": {"pinned": "0.3.36", "installed": None, "extra": "local"},
    }
    line = provenance.packages_line(drift)
    assert line.startswith("packages: 1 of 2 installed at their pin") and "numpy 2.1.0 (pinned 2.0.0)" in line
    same = {k: dict(v) for k, v in drift.items()}
    same["numpy"]["installed"] = "2.0.0"
    assert provenance.packages_line(same).split("`")[1] != line.split("`")[1]  # the digest follows the versions


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and (getattr(n.func, "id", None) == name or getattr(n.func, "attr", None) == name)
    ]


def test_every_stage_table_gets_a_footer():
    """Each write_table call in a stage hands in a footer (6th argument or footer=)."""
    missing = []
    for path in sorted((SRC / "stages").glob("*.py")):
        tree = ast.parse(path.read_text())
        for call in _calls(tree, "write_table"):
            if len(call.args) < 6 and not any(k.arg == "footer" for k in call.keywords):
                missing.append(f"{path.name}:{call.lineno}")
    assert not missing, f"write_table without a provenance footer at {missing}"


def test_fsmem_stages_record_data_and_footer_end_to_end(tmp_path, data_dir, fresh_caches):
    """A real stage run: build and answer record the LoCoMo file's sha256; the table's Markdown ends in the footer."""
    from tailmem.studies.fsmem import locomo

    over = [
        f"results_dir={tmp_path}",
        f"data_dir={data_dir}",
        "fsmem.variant=verbatim",
        "fsmem.max_questions=2",
        "fsmem.variants=[verbatim]",
    ]
    locomo.build(compose_cfg("stage=fsmem_build", *over))
    locomo.answer(compose_cfg("stage=fsmem_answer", *over))
    cfg = stage_settings("fsmem_table", *over)
    locomo.table(cfg)
    base = tmp_path / "fsmem/locomo/conv-50/programmatic/verbatim"
    want = hashlib.sha256((data_dir / "locomo/locomo10.json").read_bytes()).hexdigest()
    for meta in (base / "meta.json", base / "answers/center/programmatic/meta.json"):
        assert json.loads(meta.read_text())["data"]["locomo/locomo10.json"]["sha256"] == want
    md = (tmp_path / "tables/locomo_conv-50.md").read_text()
    assert md.rstrip().endswith(provenance.table_footer(cfg))


# --- report/ is a pure layer --------------------------------------------------------------------------------

FORBIDDEN_MODULES = (
    "tailmem.stage",
    "tailmem.site_stage",
    "tailmem.cli",
    "tailmem.provenance",
    "tailmem.configs",
    "tailmem.workflow",
    "tailmem.registry",
    "tailmem.digests",
    "tailmem.runner",
    "tailmem.graph_runs",
    "hydra",
    "omegaconf",
    "yaml",
)
FORBIDDEN_NAMES = {"cfg", "config_dir", "save_provenance", "DictConfig", "OmegaConf", "compose"}


def impurities(path: Path) -> list[str]:
    """What in `path` reads config, writes provenance or reaches up into stages / the CLI."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        mods = []
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            mods = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        found += [f"imports {m}" for m in mods if any(m == f or m.startswith(f + ".") for f in FORBIDDEN_MODULES)]
        if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            found.append(f"uses {node.id} (line {node.lineno})")
        if isinstance(node, ast.arg) and node.arg in FORBIDDEN_NAMES:
            found.append(f"takes {node.arg} (line {node.lineno})")
    return found


REPORT = sorted((SRC / "report").glob("*.py")) + sorted(
    p for kind in ("tables", "figures", "figure", "text", "claims") for p in (SRC / "studies").glob(f"*/{kind}.py")
)


@pytest.mark.parametrize("path", REPORT, ids=lambda p: p.relative_to(SRC).as_posix())
def test_report_modules_are_pure(path):
    """report/ turns frames into tables and figures: it reads no config, writes no provenance, imports no stage.
    Its one YAML reader is report/data_files.py, which reads the papers' numbers and the tables' words that ship
    with the package (report/data/), never a run's config."""
    allowed = {"imports yaml"} if path.name == "data_files.py" else set()
    assert [f for f in impurities(path) if f not in allowed] == []


def test_the_purity_scan_catches_what_it_should(tmp_path):
    """The scan is not vacuous: each forbidden pattern is found in a module written to contain it."""
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from tailmem.stage import x\nimport tailmem.cli\nfrom omegaconf import OmegaConf\n"
        "def f(cfg):\n    return cfg.scale\n"
    )
    found = impurities(bad)
    assert {"imports tailmem.stage", "imports tailmem.cli", "imports omegaconf"} <= set(found)
    assert any(f.startswith("takes cfg") for f in found) and any(f.startswith("uses cfg") for f in found)


def test_library_code_finds_configs_without_the_cli():
    from tailmem import runner

    assert runner.config_dir is config_dir and (config_dir() / "config.yaml").exists()


# -- who played: a table's agents line names the roles its rows rest on ------------------------------------------
# The default scale's model slice configures the embedded model for every role (llm=embedded), but its controller
# study walks the semantic proxy (scale.control.policy: semantic): Table 3's rows are the proxy's, and no policy step
# was played by the model. Every table's footer said "policy qwen2.5-coder-1.5b-instruct-q4_k_m" all the same.
MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def agents_part(footer: str) -> tuple[str, str]:
    """(the agents that played, the roles configured but not played) of a footer's agents line."""
    line = footer.split("agents (llm=", 1)[1].split("; packages:", 1)[0]
    played, _, rest = line.partition("; configured, not played: ")
    return played, rest


def test_the_slices_table3_names_the_proxy_not_a_model_policy(fresh_caches):
    """A slice whose tails come from the proxy (a model slice with scale.control.tail_policy semantic) names the
    proxy; one where the model plays the policy beside it (default_model: the controller study walks the proxy, the
    tail rows the model) names both."""
    proxy = stage_settings("control_report", "scale=overnight_model", "scale.control.tail_policy=semantic")
    played, idle = agents_part(provenance.table_footer(proxy))
    assert played.startswith("embedded): ")
    assert "policy programmatic-semantic" in played and f"policy {MODEL}" not in played
    assert f"predictor {MODEL} (instruct)" in played
    assert idle.split(", ") == ["builder", "searcher", "executor", "judge"]
    played, _ = agents_part(provenance.table_footer(stage_settings("control_report", "scale=default_model")))
    assert f"policy {MODEL} (instruct) and programmatic-semantic" in played


def test_a_model_policy_is_named_where_the_model_walked(fresh_caches):
    """paper_model: Table 3's rows are the model policy's (tail_policy llm), the controller arms replay the proxy."""
    played, _ = agents_part(provenance.table_footer(stage_settings("control_report", "scale=paper_model")))
    assert f"policy {MODEL} (instruct) and programmatic-semantic" in played
    rollout = stage_settings("rollout", "scale=smoke_model", "policy=llm")
    assert f"policy {MODEL} (instruct)" in agents_part(provenance.table_footer(rollout))[0]


def test_each_study_names_its_own_roles(fresh_caches):
    played, idle = agents_part(provenance.table_footer(stage_settings("fsmem_answer", "scale=default_model")))
    assert [p.split()[0] for p in played.split(": ", 1)[1].split(", ")] == ["builder", "searcher", "judge"]
    assert idle.split(", ") == ["policy", "predictor", "executor"]
    calibration = agents_part(provenance.table_footer(stage_settings("calibration", "scale=default_model")))
    assert calibration[0] == "embedded): none played"  # random walks only
    probe = provenance.table_footer(
        stage_settings("model_roles", "scale=default_model"), ("llm", "fsmem", "model_roles")
    )
    assert agents_part(probe)[1] == "policy"  # the role probe measures every role but the policy
