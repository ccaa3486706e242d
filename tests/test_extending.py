"""The recipes of docs/extending.md, followed for a toy memory controller and a toy tool harness.

A controller is a class registered in `memory.controllers.CONTROLLERS` plus `configs/memory/<name>.yaml`
(2 files), even with a setting no other controller has: the class's fields are the memory group's schema
(tailmem.settings.memory), so the new key is typed and range-checked with no settings file edited; it then joins
Table 4's arms and the DAG without any other edit. A harness is a module with its tools
plus one `Spec` in `fsmem.harnesses.HARNESSES` (2 files); its name then passes the config check, matches the
rules, joins the RQ5 study and runs through the build and answer stages. Here the registry entries are made at
run time (and the harness module is written to a temporary folder), which is what the recipes' edits amount to.
"""

import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field

import pytest

from tailmem import cli
from tailmem.memory import controllers
from tailmem.memory.render import greedy_items
from tailmem.records.control import ControlSummary
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild


@dataclass
class OldestFirst(controllers.Controller):
    """Toy controller: the `k` items first stored after the first `skip`, whatever the query (a deliberately poor
    retrieval rule). `skip` is a setting no shipped controller has; its range is the field's metadata."""

    k: int = 3
    skip: int = field(default=0, metadata={"min": 0})
    name = "toy_oldest"

    def build(self, store, query, counter):
        chosen = [store.items[i] for i in list(store.items)[self.skip : self.skip + self.k]]
        return greedy_items(chosen, self.encoding, counter, self.budget, self.name)


@pytest.fixture
def toy_configs(tmp_path, repo_root, monkeypatch):
    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    (configs / "memory" / "toy_oldest.yaml").write_text(
        "# Toy: the k items first stored after the first skip.\nname: toy_oldest\nlabel: Toy Oldest\nencoding: compact\n"
        "k: 3\nskip: 1\nbudget: 160\n"
    )
    monkeypatch.setenv("TAILMEM_CONFIGS", str(configs))
    monkeypatch.setitem(controllers.CONTROLLERS, "toy_oldest", OldestFirst)
    return configs


def _stage(*args) -> None:
    assert cli.main(list(args)) == 0, args


def test_a_toy_controller_s_new_setting_is_typed_and_checked_with_no_settings_edit(toy_configs):
    from tailmem.errors import ConfigError
    from tailmem.workflow import compose_config

    assert compose_config("smoke", ["memory=toy_oldest"]).memory.skip == 1
    with pytest.raises(ConfigError, match=r"^memory\.skip=-1: expected an integer >= 0$"):
        compose_config("smoke", ["memory=toy_oldest", "memory.skip=-1"])
    with pytest.raises(ConfigError, match=r"^memory\.skip='x': expected an integer"):
        compose_config("smoke", ["memory=toy_oldest", "memory.skip=x"])
    with pytest.raises(ConfigError, match=r"^memory\.skip: not a setting of controller 'graph_memory'"):
        compose_config("smoke", ["+memory.skip=1"])  # the default controller has no such setting


def test_a_toy_controller_joins_table_4_and_runs_through_the_control_stage(toy_configs, tmp_path):
    from tailmem.control import arms
    from tailmem.workflow import Dag

    assert "toy_oldest-compact" in arms.table4_arms()
    assert arms.overrides("toy_oldest-compact") == ["memory=toy_oldest", "memory.encoding=compact"]
    results = tmp_path / "results"
    run = ["scale=smoke", "graph=modular", "graph.n=30", "seed=0", f"results_dir={results}"]
    policy = ["policy=semantic", "retrieval=recency"]
    _stage("graphworld", *run)
    _stage("rollout", *run, *policy)
    _stage("control", *run, *policy, "memory=toy_oldest", "control.arm=toy_oldest-compact")
    summary = ControlSummary.read(next(results.rglob("toy_oldest-compact/summary.json")))
    assert summary.arm == "toy_oldest-compact" and summary.steps > 0
    # The DAG gives the new arm its own job, with a digest of its own config file.
    dag = Dag("smoke", [f"results_dir={results}"])
    job = dag.job("control", ("graph=modular", "graph.n=30", "seed=0", *policy, "memory=toy_oldest"), "modular")
    other = dag.job("control", ("graph=modular", "graph.n=30", "seed=0", *policy, "memory=recency_cache"), "modular")
    assert job.config != other.config
    skip2 = dag.job(
        "control", ("graph=modular", "graph.n=30", "seed=0", *policy, "memory=toy_oldest", "memory.skip=2"), "modular"
    )
    assert skip2.config != job.config  # the new setting is part of the job's config digest


# Step 1 of the harness recipe: a module with the tools and the two openers (here written to a temporary folder).
TOY_HARNESS = textwrap.dedent('''
    """Toy harness: Center's read tools plus a `search` that ranks files by how many query words they hold."""
    import re

    from tailmem.fsmem.harnesses import Spec
    from tailmem.fsmem.tools.base import Harness, Tool, params
    from tailmem.fsmem.tools.management import management
    from tailmem.fsmem.tools.reading import reading_tools

    CALLS = []  # every query the toy search answered


    def word_search(store):
        def search(query, k=5):
            CALLS.append(query)
            words = set(re.findall(r"[a-z]{4,}", query.lower()))
            hits = sorted(((sum(w in store.read(p).lower() for w in words), p) for p in store.files()), reverse=True)
            return "\\n".join(f"{p} ({n} words)" for n, p in hits[:k] if n) or "no file matches"

        return Tool("search", "Files holding the most words of the query.",
                    params({"query": ("string", "words to look for")}, {"k": ("integer", "at most k files")}), search)


    def open_search(store, fs):
        h = Harness("toy_wordcount")
        for t in reading_tools(store):
            h.add(t)
        h.add(word_search(store))
        return h


    def open_build(store, fs):
        h = management(store)
        h.name = "toy_wordcount"
        return h


    SPEC = Spec("toy_wordcount", "Toy", "the management tools", "Center's tools + word-count search",
                open_build, open_search)
''')


@pytest.fixture
def toy_harness(tmp_path, monkeypatch):
    """The toy module imported from a temporary folder, and (step 2) its entry in the registry."""
    from tailmem.fsmem import harnesses

    folder = tmp_path / "toy_module"
    folder.mkdir()
    (folder / "toy_wordcount.py").write_text(TOY_HARNESS)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "toy_wordcount", raising=False)
    import toy_wordcount

    monkeypatch.setitem(harnesses.HARNESSES, "toy_wordcount", toy_wordcount.SPEC)
    return toy_wordcount, folder


def test_a_toy_harness_builds_and_answers_through_the_stages(toy_harness, tmp_path, data_dir):
    from tailmem import paths
    from tailmem.fsmem import study
    from tailmem.workflow import compose_config, wildcard_patterns

    toy, _ = toy_harness
    results = tmp_path / "results"
    run = [
        "scale=smoke",
        f"results_dir={results}",
        f"data_dir={data_dir}",
        "fsmem.benchmark=locomo",
        "fsmem.conversation=conv-50",
        "fsmem.variant=verbatim",
        "fsmem.max_questions=3",
    ]
    # The name passes the config check, matches the rules' wildcards and joins the RQ5 study.
    cfg = compose_config("smoke", [f"data_dir={data_dir}", "fsmem.harness=toy_wordcount"])
    assert re.fullmatch(wildcard_patterns()["harness"], "toy_wordcount")
    assert re.fullmatch(wildcard_patterns()["bharness"], "toy_wordcount")
    assert "toy_wordcount" in {r.harness for r in study.harness_runs(cfg)}
    _stage("fsmem_build", *run, "fsmem.build_harness=toy_wordcount")
    _stage("fsmem_answer", *run, "fsmem.harness=toy_wordcount")
    store = paths.variant_dir(results, "locomo", "conv-50", "verbatim", paths.PROGRAMMATIC)
    assert FsmemBuild.read(store / paths.BUILD_FILE).build_harness == "toy_wordcount"
    answers = FsmemAnswers.read(paths.answers_dir(store, "toy_wordcount") / paths.ANSWERS_FILE)
    assert answers.harness == "toy_wordcount" and len(answers.rows) == 3
    assert len(toy.CALLS) == 3  # the searcher used the toy's own search once per question
    assert all(any(call[0] == "search" for call in row["search_trace"]) for row in answers.rows)


@pytest.mark.slow
def test_the_dag_schedules_a_toy_harness_in_the_rq5_study(toy_harness, tmp_path, repo_root, data_dir):
    """Snakemake itself (a dry run of the RQ5 table) finds rules for the toy's store and answers: the failure the
    recipe removes is `MissingRuleException` at DAG time when one of several name lists was not updated."""
    _, folder = toy_harness
    argv = [
        "snakemake",
        "--snakefile",
        str(repo_root / "Snakefile"),
        "--directory",
        str(tmp_path),
        "--cores",
        "1",
        "--dry-run",
        "--config",
        "scale=smoke",
        f'overrides=["data_dir={data_dir}"]',
        "--",
        "fsmem_rq5_harness",
    ]
    script = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); import toy_wordcount; "
        "from tailmem.fsmem.harnesses import HARNESSES; HARNESSES['toy_wordcount'] = toy_wordcount.SPEC; "
        f"from snakemake.cli import main; sys.argv = {argv!r}; main()"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=repo_root)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout + done.stderr
    for rule in ("fsmem_harness_store", "fsmem_harness_answers"):
        assert re.search(rf"rule {rule}:(?:(?!\nrule ).)*toy_wordcount", out, re.S), rule
