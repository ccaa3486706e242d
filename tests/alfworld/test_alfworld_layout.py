"""Issue 12: where ALFWorld cells live and what builds them.

- The model (or programmatic agent) of each role a cell depends on is part of its folder (finding 5).
- The memory arms come from configs/memory/ through tailmem.memory.catalogue, not restated inline (finding 4).
- report/alfworld_tables is a pure layer: frames in, tables and figures out (finding 4).
"""

import ast
import string
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from omegaconf import OmegaConf

import smoke_run
from tailmem import paths
from tailmem.errors import ConfigError
from tailmem.llm.group import shipped_tree
from tailmem.studies.alfworld.play import layout

REPO = Path(__file__).resolve().parents[2]


def _cfg(tmp_path, **roles):
    """A config with the three ALFWorld roles: programmatic, or the model named in `roles`; every other llm key is
    the shipped offline group's (tailmem.llm.group.shipped_tree)."""
    llm = shipped_tree(
        name="t",
        cache_path=str(tmp_path / "c.sqlite"),
        prices={},
        base_url="http://127.0.0.1:9",
        roles={
            r: ({"backend": "openai", "model": roles[r]} if r in roles else {"backend": "programmatic"})
            for r in layout.ROLES
        },
    )
    alf = OmegaConf.load(REPO / "configs" / "alfworld" / "default.yaml")
    return OmegaConf.create(
        {"results_dir": str(tmp_path / "results"), "data_dir": str(tmp_path), "llm": llm, "alfworld": alf}
    )


def test_segment_makes_a_model_name_one_folder():
    assert layout.segment("openai/gpt-5.4-mini:2026") == "openai_gpt-5.4-mini_2026"
    assert layout.segment("programmatic-executor") == "programmatic-executor"
    assert "/" not in layout.segment("a/../b") and layout.segment("a/../b") != ".."
    with pytest.raises(ConfigError, match="folder name"):
        layout.segment("..")


def test_agent_segments_name_each_role(tmp_path):
    assert layout.agent_segments(_cfg(tmp_path)) == {
        "executor": "programmatic-executor",
        "builder": "programmatic-builder",
        "searcher": "programmatic-searcher",
    }
    seg = layout.agent_segments(_cfg(tmp_path, executor="org/model-a", searcher="model-b"))
    assert seg == {"executor": "org_model-a", "builder": "programmatic-builder", "searcher": "model-b"}


def test_cells_run_with_different_models_get_different_folders(tmp_path):
    """Finding 5: a cell is the same folder only when every role it depends on had the same agent."""
    a, b = _cfg(tmp_path, executor="model-a"), _cfg(tmp_path, executor="model-b")
    assert layout.memory_dir(a, "smoke", "ctmc") != layout.memory_dir(b, "smoke", "ctmc")
    assert "model-a" in layout.memory_dir(a, "smoke", "ctmc").parts
    assert layout.skills_dir(a, "smoke", "full_chain", "no_store") != layout.skills_dir(
        b, "smoke", "full_chain", "no_store"
    )
    c = _cfg(tmp_path, executor="model-a", builder="model-c")  # a curator change moves skill cells, not memory
    assert layout.memory_dir(a, "smoke", "ctmc") == layout.memory_dir(c, "smoke", "ctmc")
    assert layout.skills_dir(a, "smoke", "full_chain", "no_store") != layout.skills_dir(
        c, "smoke", "full_chain", "no_store"
    )
    d = _cfg(tmp_path, executor="model-a", searcher="model-d")  # so does a retriever change
    assert layout.skills_dir(a, "smoke", "full_chain", "no_store") != layout.skills_dir(
        d, "smoke", "full_chain", "no_store"
    )
    skill = layout.skills_dir(_cfg(tmp_path), "smoke", "full_chain", "no_store").parts
    assert {"programmatic-executor", "programmatic-builder", "programmatic-searcher"} <= set(skill)


def test_each_chain_seed_is_a_cell_of_its_own(tmp_path):
    """Issue 15: chain seeds are the claims' outer level, so each seed's chain has its own folder."""
    cfg = _cfg(tmp_path)
    zero, one = (layout.skills_dir(cfg, "smoke", "full_chain", "episode_log", s) for s in (0, 1))
    assert zero.name == "seed0" and one.name == "seed1" and zero.parent == one.parent
    assert layout.skills_dir(cfg, "smoke", "full_chain", "episode_log") == zero


def test_alfworld_templates_have_a_wildcard_pattern_for_every_field():
    """Snakemake's default wildcard pattern `.+` crosses folders: every field of a cell's path needs its own."""
    from tailmem.workflow import wildcard_patterns

    patterns = wildcard_patterns()
    for template in (paths.ALFWORLD_GAMES, paths.ALFWORLD_MEMORY, paths.ALFWORLD_SKILLS):
        fields = {f for _, f, _, _ in string.Formatter().parse(template) if f} - {"results"}
        assert fields <= set(patterns), (template, fields - set(patterns))
    assert {"executor"} < {f for _, f, _, _ in string.Formatter().parse(paths.ALFWORLD_MEMORY) if f}
    assert set(layout.ROLES) < {f for _, f, _, _ in string.Formatter().parse(paths.ALFWORLD_SKILLS) if f}


def test_cell_folders_follow_the_templates_of_tailmem_paths(tmp_path):
    cfg = _cfg(tmp_path)
    want = paths.ALFWORLD_MEMORY.format(
        results=cfg.results_dir, subset="smoke", arm="ctmc", **layout.agent_segments(cfg)
    )
    assert str(layout.memory_dir(cfg, "smoke", "ctmc")) == want


def test_alfworld_arms_are_configs_memory_with_overrides(tmp_path):
    from tailmem.studies.alfworld.episodes import arm_settings

    cfg = _cfg(tmp_path)
    ctmc_yaml = yaml.safe_load((REPO / "configs" / "memory" / "ctmc.yaml").read_text())
    ctmc = arm_settings(cfg, "ctmc")
    assert ctmc == {**ctmc_yaml, "budget": 64, "rank_by": "query"}
    assert arm_settings(cfg, "full")["budget"] is None and arm_settings(cfg, "full")["name"] == "graph_memory"
    # the inline arms state only what ALFWorld changes: no key equal to the configs/memory default
    for arm, spec in OmegaConf.to_container(cfg.alfworld.arms).items():
        base = yaml.safe_load((REPO / "configs" / "memory" / f"{spec['name']}.yaml").read_text())
        same = [k for k, v in spec.items() if k != "name" and base.get(k) == v]
        assert not same, f"alfworld.arms.{arm} restates {same} from configs/memory/{spec['name']}.yaml"
    cfg.alfworld.arms.ctmc.taus = 2.0
    with pytest.raises(ConfigError, match="taus"):
        arm_settings(cfg, "ctmc")


STAGE_MODULES = {f"tailmem.studies.alfworld.{m}" for m in ("games", "episodes", "report")}


@pytest.mark.parametrize(
    "module", ["studies/alfworld/tables", "studies/alfworld/text", "studies/alfworld/figures", "report/table_spec"]
)
def test_report_module_reads_no_config_and_writes_no_provenance(module):
    src = (REPO / "src" / "tailmem" / f"{module}.py").read_text()
    imported = {n.module for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Import) for a in n.names}
    assert not {
        m
        for m in imported
        if m
        and (
            m == "tailmem.stage"
            or m in STAGE_MODULES  # the study's stages: a table module never runs one
            or (m.startswith("tailmem.studies.") and not m.startswith("tailmem.studies.alfworld"))
            or m in ("tailmem.provenance", "omegaconf", "hydra", "tailmem.artifacts")
        )
    }, imported
    assert "cfg" not in src and "write_" not in src


def test_memory_table_from_a_frame():
    from tailmem.audit.concentration import concentration
    from tailmem.studies.alfworld.tables import memory_tables

    def ep(arm, loaded, success, steps, mem, acc):
        return {
            "arm": arm,
            "family": "pick_and_place_simple",
            "loaded": loaded,
            "success": success,
            "steps": steps,
            "invalid": 1,
            "memory_tokens": mem,
            "context_tokens": 2 * mem,
            "accesses": acc,
        }

    eps = pd.DataFrame(
        [
            ep("a", True, True, 4, 40, {"x": 3, "y": 1}),
            ep("a", True, False, 6, 20, {"z": 5}),
            ep("a", False, False, 0, 0, {}),
            ep("b", True, True, 2, 10, {"x": 0}),
        ]
    )
    table, fam, counts = memory_tables(eps)
    a = table.set_index("arm").loc["a"]
    assert (a.games, a.ran, a.success_pct) == (3, 2, 50.0)
    assert a.memory_tokens_per_step == pytest.approx(60 / 10) and a.invalid_pct == pytest.approx(100 * 2 / 10)
    assert a.gini == pytest.approx(concentration(np.array([3.0, 1.0, 5.0])).gini)
    assert list(table.arm) == ["a", "b"] and sorted(counts["a"]) == [1, 3, 5]
    assert fam.set_index("family").loc["put", "b"] == 100.0
    with pytest.raises(KeyError, match="accesses"):
        memory_tables(eps.drop(columns="accesses"))


def test_table_notes_say_how_many_listed_games_were_excluded():
    from tailmem.studies.alfworld.text import notes

    with_excluded = notes("x", "b", "s", 50, "o200k_base", excluded=4)
    assert "4 listed game(s) excluded" in with_excluded["memory"] and "4 listed" in with_excluded["skills"]
    assert "excluded" not in notes("x", "b", "s", 50, "o200k_base")["memory"]


def _dry_run_outputs(tmp_path, repo_root, data_dir, *overrides) -> str:
    """The dry run of `alfworld_smoke` (no job runs): its printed plan, which names every output."""
    over = [f"data_dir={data_dir}", *overrides]
    cmd = smoke_run.command(repo_root, tmp_path, "--dry-run", overrides=over, cores=1, targets=["alfworld_smoke"])
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=repo_root)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    return run.stdout + run.stderr


@pytest.mark.slow
def test_dag_puts_cells_of_another_executor_model_in_their_own_folders(tmp_path, repo_root, data_dir):
    """Finding 5 through the workflow: the rules enumerate the cells from the configured agents, so a DAG with
    another executor model plans its own folders and log files (one dry run, about 15 s)."""
    model = _dry_run_outputs(tmp_path, repo_root, data_dir, "llm=openai", "llm.roles.executor.model=org/model-a")
    assert "alfworld/memory/smoke/org_model-a/ctmc/episodes.json" in model
    assert "alfworld/skills/smoke/org_model-a/gpt-5.4-mini/gpt-5.4-mini/full_chain/no_store/seed0/chain.json" in model
    assert "logs/alfworld_memory/smoke_org_model-a_ctmc.log" in model
    assert "programmatic-executor" not in model
