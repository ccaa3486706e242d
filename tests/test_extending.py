"""The recipes of docs/extending.md, followed for a toy memory controller, tool harness, benchmark and graph family.

A controller is a class registered in `memory.controllers.CONTROLLERS` plus `configs/memory/<name>.yaml`
(2 files), even with a setting no other controller has: the class's fields are the memory group's schema
(tailmem.memory.group), so the new key is typed and range-checked with no settings file edited; it then joins
Table 4's arms and the DAG without any other edit. A harness is a module with its tools
plus one `Spec` in `fsmem.harnesses.HARNESSES` (2 files); its name then passes the config check, matches the
rules, joins the RQ5 study and runs through the build and answer stages. Here the registry entries are made at
run time (and the harness module is written to a temporary folder), which is what the recipes' edits amount to.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

from fs_testkit import conv50_overrides
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


def _dry_run_with(folder, module, register, repo_root, workdir, data_dir, sets, targets, env=None):
    """`snakemake --dry-run` of `targets` on the smoke scale, in a process that first imports the toy `module`
    from `folder` and runs `register` (the recipe's registry edit, made at run time)."""
    overrides = [f"data_dir={data_dir}", *sets]
    argv = ["snakemake", "--snakefile", str(repo_root / "Snakefile"), "--directory", str(workdir), "--cores", "1"]
    argv += ["--dry-run", "--config", "scale=smoke", f"overrides={json.dumps(overrides)}", "--", *targets]
    script = (
        f"import sys; sys.path.insert(0, {str(folder)!r}); import {module}; {register}; "
        f"from snakemake.cli import main; sys.argv = {argv!r}; main()"
    )
    env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=repo_root, env=env)


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
    from tailmem.memory import arm_names
    from tailmem.workflow import Dag

    assert "toy_oldest-compact" in arms.table4_arms()
    assert arm_names.graph_overrides("toy_oldest-compact") == ["memory=toy_oldest", "memory.encoding=compact"]
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
    from tailmem.fsmem import run_list
    from tailmem.workflow import compose_config, wildcard_patterns

    toy, _ = toy_harness
    results = tmp_path / "results"
    run = conv50_overrides(results, data_dir, 3)
    # The name passes the config check, matches the rules' wildcards and joins the RQ5 study.
    cfg = compose_config("smoke", [f"data_dir={data_dir}", "fsmem.harness=toy_wordcount"])
    assert re.fullmatch(wildcard_patterns()["harness"], "toy_wordcount")
    assert re.fullmatch(wildcard_patterns()["bharness"], "toy_wordcount")
    assert "toy_wordcount" in {r.harness for r in run_list.harness_runs(cfg)}
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
    register = "from tailmem.fsmem.harnesses import HARNESSES; HARNESSES['toy_wordcount'] = toy_wordcount.SPEC"
    done = _dry_run_with(folder, "toy_wordcount", register, repo_root, tmp_path, data_dir, [], ["fsmem_rq5_harness"])
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout + done.stderr
    for rule in ("fsmem_harness_store", "fsmem_harness_answers"):
        assert re.search(rf"rule {rule}:(?:(?!\nrule ).)*toy_wordcount", out, re.S), rule


# Step 1 of the benchmark recipe: a data module with its loader, ids, categories and its `BENCHMARK` entry.
TOY_BENCHMARK = textwrap.dedent('''
    """Toy benchmark: every conversation of a data folder in one `chats.json`, {id: {speakers, sessions, qa}}."""
    from pathlib import Path

    from tailmem.data import read_json, records
    from tailmem.data.locomo import QA, Benchmark, Conversation, Session, Turn

    CATEGORIES = {1: "recall", 2: "when"}


    def chats_file(folder, conv_id):
        return Path(folder) / "chats.json"


    def _chats(folder):
        path = chats_file(folder, "")
        return path, records.mapping(read_json(path, "toy chats not found"), str(path))


    def ids(folder):
        return list(_chats(folder)[1])


    def load(folder, conv_id):
        path, chats = _chats(folder)
        where = f"{path}: chat {conv_id!r}"
        chat = records.mapping(chats.get(conv_id), where)
        sessions = []
        for i, turns in enumerate(records.items(chat, "sessions", where), 1):
            at = f"{where}: session {i}"
            sessions.append(Session(i, f"10:00 on {i} May, 2023", tuple(
                Turn(f"D{i}:{j}", records.text(records.mapping(t, at), "speaker", at), records.text(t, "text", at))
                for j, t in enumerate(turns, 1)
            )))
        qa = tuple(
            QA(records.text(q, "question", where), records.text(q, "answer", where),
               records.integer(q, "category", where, CATEGORIES), records.strings(q, "evidence", where))
            for q in records.items(chat, "qa", where)
        )
        speakers = records.items(chat, "speakers", where)
        return Conversation(conv_id, (speakers[0], speakers[1]), tuple(sessions), qa)


    BENCHMARK = Benchmark("toy_chats", "Toy chats", load, chats_file, ids, CATEGORIES)
''')

TOY_CHATS = {
    "c1": {
        "speakers": ["Ana", "Ben"],
        "sessions": [
            [
                {"speaker": "Ana", "text": "I adopted a grey cat named Pixel last week."},
                {"speaker": "Ben", "text": "Lovely! I am learning the cello at the moment."},
            ],
            [
                {"speaker": "Ana", "text": "Pixel broke my favourite blue vase this morning."},
                {"speaker": "Ben", "text": "I played my first cello concert on Sunday."},
            ],
        ],
        "qa": [
            {"question": "What is the name of Ana's cat?", "answer": "Pixel", "category": 1, "evidence": ["D1:1"]},
            {"question": "Which instrument does Ben play?", "answer": "cello", "category": 1, "evidence": ["D1:2"]},
            {
                "question": "When did Ben play his first concert?",
                "answer": "Sunday",
                "category": 2,
                "evidence": ["D2:2"],
            },
        ],
    }
}


@pytest.fixture
def toy_benchmark(tmp_path, repo_root, monkeypatch):
    """The toy data module imported from a temporary folder, (step 2) its entry in the registry and (step 3) its
    block and study entries in a copy of configs/fsmem/default.yaml."""
    from tailmem.fsmem import benchmarks

    folder, data = tmp_path / "toy_module", tmp_path / "toy_data"
    folder.mkdir()
    data.mkdir()
    (folder / "toy_chats.py").write_text(TOY_BENCHMARK)
    (data / "chats.json").write_text(json.dumps(TOY_CHATS))
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, "toy_chats", raising=False)
    import toy_chats

    monkeypatch.setitem(benchmarks.BENCHMARKS, "toy_chats", toy_chats.BENCHMARK)
    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    default = configs / "fsmem" / "default.yaml"
    text = default.read_text()
    for old, new in (
        ("\nbenchmarks: {}", f"\nbenchmarks:\n  toy_chats: {{data: {data}, conversations: null, categories: [1, 2]}}"),
        ("  benchmarks: [locomo, realtalk]", "  benchmarks: [locomo, realtalk, toy_chats]"),
        ("  harness_benchmarks: [locomo, realtalk]", "  harness_benchmarks: [locomo, realtalk, toy_chats]"),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    default.write_text(text)
    monkeypatch.setenv("TAILMEM_CONFIGS", str(configs))
    return toy_chats, folder, configs


def test_a_toy_benchmark_is_registered_checked_and_read_through_the_registry(toy_benchmark, data_dir, monkeypatch):
    from tailmem.errors import ConfigError
    from tailmem.fsmem import benchmarks, run_list
    from tailmem.workflow import compose_config, wildcard_patterns

    assert "toy_chats" in benchmarks.BENCHMARKS and re.fullmatch(wildcard_patterns()["bench"], "toy_chats")
    cfg = compose_config("smoke", [f"data_dir={data_dir}"])
    assert "toy_chats" in cfg.fsmem.study.benchmarks  # the config check accepts the name and its block
    fs = cfg.fsmem
    assert benchmarks.conversation_ids(fs, "toy_chats") == ["c1"]  # `conversations: null` = every id of the data
    assert benchmarks.categories(fs, "toy_chats") == (1, 2)
    assert benchmarks.category_names("toy_chats") == {1: "recall", 2: "when"}
    conv = benchmarks.conversation(fs, "toy_chats", "c1")
    assert [len(s.turns) for s in conv.sessions] == [2, 2] and len(conv.qa) == 3
    assert {(r.benchmark, r.conversation) for r in run_list.main_runs(cfg)} >= {("toy_chats", "c1")}
    rq5 = compose_config("smoke", [f"data_dir={data_dir}", "fsmem.study.harness_benchmarks=[toy_chats]"])
    assert {(r.benchmark, r.conversation) for r in run_list.harness_runs(rq5)} == {
        ("toy_chats", "c1")
    }  # smoke: realtalk
    with pytest.raises(ConfigError, match=r"fsmem\.benchmarks\.toy_chats\.categories=\[1, 3\]: .*expected one of"):
        compose_config("smoke", [f"data_dir={data_dir}", "fsmem.benchmarks.toy_chats.categories=[1,3]"])
    monkeypatch.delenv("TAILMEM_CONFIGS")  # the shipped configs: the toy is registered but has no block
    with pytest.raises(ConfigError, match=r"fsmem\.benchmarks\.toy_chats: no block for benchmark 'toy_chats'"):
        compose_config("smoke", [f"data_dir={data_dir}", "fsmem.study.benchmarks=[locomo,toy_chats]"])


@pytest.mark.slow
def test_a_toy_benchmark_builds_answers_and_gives_a_table_through_the_stages(toy_benchmark, tmp_path, data_dir):
    import pandas as pd

    from tailmem import outputs, paths

    results = tmp_path / "results"
    run = [
        "scale=smoke",
        f"results_dir={results}",
        f"data_dir={data_dir}",
        "fsmem.benchmark=toy_chats",
        "fsmem.conversation=c1",
        "fsmem.variants=[closed_book,verbatim]",
    ]
    for variant in ("closed_book", "verbatim"):
        _stage("fsmem_build", *run, f"fsmem.variant={variant}")
        _stage("fsmem_answer", *run, f"fsmem.variant={variant}")
    _stage("fsmem_table", *run)
    store = paths.variant_dir(results, "toy_chats", "c1", "verbatim", paths.PROGRAMMATIC)
    assert FsmemBuild.read(store / paths.BUILD_FILE).benchmark == "toy_chats"
    answers = FsmemAnswers.read(paths.answers_dir(store, "center") / paths.ANSWERS_FILE)
    assert [r["category"] for r in answers.rows] == [1, 1, 2]
    table = pd.read_csv(results / "tables" / f"{outputs.conversation_table('toy_chats', 'c1')}.csv")
    assert list(table["variant"]) == ["closed_book", "verbatim"] and set(table["n"]) == {3}
    assert {"F1 1 recall", "F1 2 when"} <= set(table.columns)


@pytest.mark.slow
def test_the_dag_schedules_a_toy_benchmark_in_the_studies(toy_benchmark, tmp_path, repo_root, data_dir):
    """A dry run of the RQ2 and RQ5 tables finds rules for the toy's stores and answers (the `bench` wildcard,
    the study runs and the config check all read the registry)."""
    _, folder, configs = toy_benchmark
    register = "from tailmem.fsmem.benchmarks import BENCHMARKS; BENCHMARKS['toy_chats'] = toy_chats.BENCHMARK"
    sets = ["fsmem.study.harness_benchmarks=[toy_chats]"]
    targets = ["fsmem_rq2_retrieval", "fsmem_rq5_harness"]
    env = {"TAILMEM_CONFIGS": str(configs)}
    done = _dry_run_with(folder, "toy_chats", register, repo_root, tmp_path, data_dir, sets, targets, env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout + done.stderr
    for rule in ("fsmem_store", "fsmem_answers", "fsmem_harness_store", "fsmem_harness_answers"):
        assert re.search(rf"rule {rule}:(?:(?!\nrule ).)*/toy_chats/c1/", out, re.S), rule


def test_every_registered_benchmark_loads_its_first_conversation_and_names_its_categories(data_dir):
    """Conformance of the registry: each entry reads the shared data through its block, and its categories (the
    tables' columns) have names; the categories a run asks are ones it may ask."""
    from tailmem.fsmem import benchmarks
    from tailmem.fsmem.benchmarks import allowed_categories as allowed
    from tailmem.workflow import compose_config

    fs = compose_config("smoke", [f"data_dir={data_dir}"]).fsmem
    assert list(benchmarks.BENCHMARKS) == ["locomo", "realtalk"]
    for name, entry in benchmarks.BENCHMARKS.items():
        assert entry.name == name and entry.label
        first = benchmarks.conversation_ids(fs, name)[0]
        assert benchmarks.conversation_file(fs, name, first).is_file()
        conv = benchmarks.conversation(fs, name, first)
        assert conv.sample_id == first and conv.sessions and conv.qa, name
        names = benchmarks.category_names(name)
        assert names and all(isinstance(k, int) and isinstance(v, str) and v for k, v in names.items()), name
        assert set(benchmarks.categories(fs, name)) <= set(allowed(name)), name
        assert {q.category for q in conv.qa} <= set(allowed(name)), name


# -- a graph family: `_check_<name>` and `_draw_<name>` plus one `Family` in FAMILIES, and configs/graph/<name>.yaml


def _check_toy_ring(n: int, params: dict) -> None:
    from tailmem.errors import ConfigError

    k = params["k"]
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k < n // 2:
        raise ConfigError(f"graph.k={k!r}: expected an integer in [1, {n // 2}) (neighbours on each side)")


def _draw_toy_ring(n: int, params: dict, seed: int):
    """A ring lattice: each state linked to its `k` nearest states on each side (connected, no randomness)."""
    import networkx as nx

    from tailmem.graphworld.families import Draw

    return Draw(nx.circulant_graph(n, range(1, params["k"] + 1)), None, {"toy": "ring lattice"})


@pytest.fixture
def toy_family(tmp_path, repo_root, monkeypatch):
    from tailmem.graphworld import families

    configs = tmp_path / "configs"
    shutil.copytree(repo_root / "configs", configs)
    (configs / "graph" / "toy_ring.yaml").write_text(
        "# Toy ring lattice: each state linked to its k nearest states on each side.\nfamily: toy_ring\nn: 40\nk: 2\n"
    )
    monkeypatch.setenv("TAILMEM_CONFIGS", str(configs))
    entry = families.Family("toy_ring", ("k",), _check_toy_ring, _draw_toy_ring)
    monkeypatch.setitem(families.FAMILIES, "toy_ring", entry)
    return configs


def test_a_toy_graph_family_is_checked_and_walked_through_the_stages(toy_family, tmp_path):
    """The family recipe's two files: its key is range-checked by name, and the graphworld and rollout stages
    draw and walk its world with no other edit."""
    from tailmem.graphworld.group import check
    from tailmem.graphworld.world import World
    from tailmem.workflow import compose_config

    assert compose_config("smoke", ["graph=toy_ring"]).graph.k == 2
    assert check({"family": "toy_ring", "n": 40, "k": 0}, stage=True) == [
        "graph.k=0: expected an integer in [1, 20) (neighbours on each side)"
    ]
    results = tmp_path / "results"
    run = ["scale=smoke", "graph=toy_ring", "graph.n=40", "seed=0", f"results_dir={results}"]
    assert cli.main(["graphworld", *run, "graph.k=0"]) == 1 and not results.exists()  # refused before any work
    _stage("graphworld", *run)
    world = World.load(next(results.rglob("world.json")))
    assert (world.family, world.n, world.n_edges) == ("toy_ring", 40, 80)  # 40 states x 2 neighbours per side
    _stage("rollout", *run, "policy=random_walk", "retrieval=recency")
    assert next(results.rglob("trace.npz")).stat().st_size > 0


# -- a study: its own folder plus two registrations ----------------------------------------------------------------
# The recipe of docs/extending.md, "A study", followed in a copy of the repository: a toy study that counts the
# degrees of every smoke world. Its folder holds its stage declaration and plan (`__init__.py`), its share of the
# DAG (`plan.py`), its stage (`census.py`) and its rules (`rules.smk`); the registrations are one line in
# `tailmem.registry.STUDIES` and one `include:` in the Snakefile.
TOY_STUDY = {
    "__init__.py": '''
        """Toy study: each world's degree census (its states, their mean and largest degree)."""

        from tailmem.stage import Stage, declare

        STAGES = declare(Stage("toy_census", "tailmem.studies.toy_census.census:run", ("scale",)))
        PLAN = "tailmem.studies.toy_census.plan:ToyCensusPlan"
    ''',
    "plan.py": '''
        """The toy study's share of the DAG: every world of the scale in, one table out."""

        from functools import cached_property

        from tailmem import paths
        from tailmem.plan import StudyPlan


        class ToyCensusPlan(StudyPlan):
            @cached_property
            def targets(self):
                return self.table("toy_census")

            @cached_property
            def worlds(self):
                s = self.cfg.scale
                return [
                    f"{paths.GRAPHWORLD.format(results=self.results, family=f, n=n, seed=seed)}/{paths.WORLD_FILE}"
                    for f in s.families
                    for n in s.sizes
                    for seed in s.seeds
                ]
    ''',
    "census.py": '''
        """Stage toy_census: the degree census of every world of the scale."""

        from pathlib import Path

        import pandas as pd

        from tailmem import paths
        from tailmem.graphworld.world import World
        from tailmem.provenance import table_footer
        from tailmem.report.table_io import write_table
        from tailmem.stage import typed_stage


        @typed_stage("toy_census")
        def run(cfg):
            s, rows = cfg.scale, []
            for family in s.families:
                for n in s.sizes:
                    for seed in s.seeds:
                        keys = dict(results=cfg.results_dir, family=family, n=n, seed=seed)
                        world = World.load(Path(paths.GRAPHWORLD.format(**keys)) / paths.WORLD_FILE)
                        degrees = [world.degree(state) for state in range(world.n)]
                        rows.append(dict(family=family, n=world.n, seed=seed, mean_degree=sum(degrees) / world.n,
                                         max_degree=max(degrees)))
            out = paths.out_dir(cfg, paths.tables_dir(cfg))
            note = "Each world's states and their degrees, read from its world.json."
            write_table(out, "toy_census", pd.DataFrame(rows), "Toy degree census", note, table_footer(cfg))
    ''',
    "rules.smk": """
        # The toy study: one table over every world of the scale.
        from tailmem.dag import plan_of

        TOY_CENSUS = plan_of(config, workflow.basedir, "toy_census")  # toy_census/plan.py


        rule toy_census:
            input:
                TOY_CENSUS.worlds,
            output:
                TOY_CENSUS.targets,
            params:
                **TOY_CENSUS.stage_params("toy_census"),
                out=TOY_CENSUS.out_folder,
            log:
                TOY_CENSUS.log_of("toy_census"),
            conda:
                TOY_CENSUS.conda_env
            shell:
                "{params.cmd} out={params.out} > {log} 2>&1"
    """,
}


def _repo_copy(repo_root, tmp_path) -> Path:
    """What a run needs of the repository (code, configs, rules, the examples the audit-log study reads), copied
    under git so a recipe's edits can be counted."""
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("src", "configs", "workflows", "examples"):
        shutil.copytree(repo_root / name, repo / name, ignore=ignore)
    for name in ("Snakefile", "environment.yml", "pyproject.toml"):
        shutil.copy(repo_root / name, repo / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "copy"], check=True)
    return repo


def _touched(repo: Path) -> set[str]:
    """The files a recipe added or changed in the copy."""
    out = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "-uall"], capture_output=True, text=True)
    return {line[3:] for line in out.stdout.splitlines()}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _register_study(registry: Path, name: str) -> None:
    """A study's two registrations in tailmem.registry: its import and its place at the end of STUDIES (after any
    study an earlier recipe added there)."""
    text = registry.read_text()
    for opening in ("from tailmem.studies import (\n", "STUDIES = (\n"):
        end = text.index("\n)", text.index(opening))
        text = f"{text[:end]}\n    {name},{text[end:]}"
    registry.write_text(text)


def _snakemake(repo: Path, data_dir, *args, overrides=()) -> subprocess.CompletedProcess:
    # The jobs go through the copy's own warm server (tailmem.warmstart keys it by the checkout): the stack is imported
    # once, not once per job; the recipes' run took 48.8 s of CPU with every job cold, 27.4 s warm (server included).
    env = {**os.environ, "PYTHONPATH": str(repo / "src"), "TAILMEM_DATA_DIR": str(data_dir)}
    config = ["scale=smoke", f"overrides={json.dumps(list(overrides))}"]
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "--config", *config],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def add_toy_study(repo: Path) -> None:
    """The study recipe: the folder, then its name in the registry and its rules in the Snakefile."""
    folder = repo / "src" / "tailmem" / "studies" / "toy_census"
    folder.mkdir()
    for name, text in TOY_STUDY.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"))
    _register_study(repo / "src" / "tailmem" / "registry.py", "toy_census")
    _edit(
        repo / "Snakefile",
        'include: "workflows/site.smk"',
        'include: "workflows/site.smk"\ninclude: "src/tailmem/studies/toy_census/rules.smk"',
    )


def _commit(repo: Path, message: str) -> None:
    """Commit a recipe's edits in the copy, so that the next recipe's edits are counted on their own."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", message], check=True)


# -- a stage in a study that exists: a function, its record, its rule -----------------------------------------------
TOY_STAGE = '''
    """Stage toy_degrees: one world's degree sequence, beside its world.json."""

    import json
    from pathlib import Path

    from tailmem import paths
    from tailmem.graphworld.world import World
    from tailmem.stage import typed_stage


    @typed_stage("toy_degrees")
    def run(cfg):
        world = World.load(Path(cfg.input) / paths.WORLD_FILE)
        out = paths.out_dir(cfg, paths.graphworld_dir(cfg))
        (out / "degrees.json").write_text(json.dumps([world.degree(s) for s in range(world.n)]))
'''
TOY_STAGE_RULE = """

rule toy_degrees:
    input:
        RANDOM_WALK.world_file,
    output:
        RANDOM_WALK.world_file.replace("world.json", "degrees.json"),
    params:
        **RANDOM_WALK.stage_params("toy_degrees", lambda wc: [f"graph={wc.family}", f"graph.n={wc.n}", f"seed={wc.seed}"],
                                   family=RANDOM_WALK.family),
    log:
        RANDOM_WALK.log_of("toy_degrees", "family", "n", "seed"),
    conda:
        RANDOM_WALK.conda_env
    shell:
        "{params.cmd} input=$(dirname {input}) out=$(dirname {output}) > {log} 2>&1"
"""


def add_toy_stage(repo: Path) -> None:
    """The stage recipe (docs/extending.md, "A stage"): a stage module in the study's folder, its `Stage` in the
    package's STAGES and its rule in the study's rule file."""
    study = repo / "src" / "tailmem" / "studies" / "random_walk"
    (study / "degrees.py").write_text(textwrap.dedent(TOY_STAGE).lstrip("\n"))
    _edit(
        study / "__init__.py",
        '    Stage("graphworld",',
        '    Stage("toy_degrees", "tailmem.studies.random_walk.degrees:run", ("graph", "seed")),\n    Stage("graphworld",',
    )
    (study / "rules.smk").write_text((study / "rules.smk").read_text() + TOY_STAGE_RULE)


# -- a table of a stage that exists: its stem, its spec, its function, one line in the stage -------------------------
TOY_TABLE_SPEC = """
  toy_gini_range:
    source: the size runs' audits, one row per family (targets.size_runs)
    columns: [family, sizes, gini_min, gini_max, gini_range]
    title: "Toy: how far Gini moves across graph sizes"
    note: >-
      The spread of the mean Gini over the sizes run, per family. {produced} {explain[gini]} {unlike}
"""
TOY_TABLE_FUNCTION = '''


def toy_gini_range(df: pd.DataFrame) -> pd.DataFrame:
    """Per family, the smallest and largest mean Gini over the sizes run, and their difference."""
    means = df.groupby(["family", "n"], sort=False).gini.mean().reset_index()
    rows = [
        {"family": fam, "sizes": len(sub), "gini_min": sub.gini.min(), "gini_max": sub.gini.max(),
         "gini_range": sub.gini.max() - sub.gini.min()}
        for fam, sub in means.groupby("family", sort=False)
    ]
    return SPECS["toy_gini_range"].check(pd.DataFrame(rows))
'''


def add_toy_table(repo: Path) -> None:
    """The table recipe (docs/extending.md, "A table"): the stem in `outputs`, its spec in the study's data file,
    the function that makes its frame and the line of the stage that writes it."""
    src = repo / "src" / "tailmem"
    _edit(src / "outputs.py", "    CLAIMS_RANDOM_WALK,\n)", '    CLAIMS_RANDOM_WALK,\n    "toy_gini_range",\n)')
    _edit(src / "report" / "data" / "random_walk.yaml", "\ntables:\n", "\ntables:" + TOY_TABLE_SPEC)
    tables = src / "studies" / "random_walk" / "tables.py"
    tables.write_text(tables.read_text() + TOY_TABLE_FUNCTION)
    _edit(
        src / "studies" / "random_walk" / "report.py",
        "        outputs.TABLE2_SIGMA_TOP10: rw.table2(sizes),\n",
        '        outputs.TABLE2_SIGMA_TOP10: rw.table2(sizes),\n        "toy_gini_range": rw.toy_gini_range(sizes),\n',
    )


@dataclass
class Recipes:
    """The copy of the repository the study, stage, table and benchmark-study recipes were followed in, one after
    another, and its data folder (the shared benchmark files, linked, and the toy benchmark's quiz file)."""

    repo: Path
    touched: dict[str, set[str]]  # recipe -> the files its edits added or changed (each committed before the next)
    dry: subprocess.CompletedProcess  # a dry run of `all` with all four
    run: subprocess.CompletedProcess  # one Snakemake run of what the four added, on 4 worlds
    world: str  # the world the toy stage ran on


@pytest.fixture(scope="module")
def recipes(repo_root, tmp_path_factory, data_dir) -> Recipes:
    """One copy of the repository for the four recipes that edit the package, one dry run and one run of what they
    added (a copy, a dry run and a run of its own cost the benchmark study 16.7 s more, on a loaded machine): the
    recipes touch disjoint files, and the worlds they read are shared."""
    tmp = tmp_path_factory.mktemp("recipes")
    data = tmp / "data"
    data.mkdir()
    for entry in Path(data_dir).iterdir():
        (data / entry.name).symlink_to(entry)
    quiz = data / "toy_quiz" / "quiz.json"
    quiz.parent.mkdir()
    quiz.write_text(json.dumps(TOY_QUIZ))
    repo = _repo_copy(repo_root, tmp)
    touched = {}
    for name, follow in (
        ("study", add_toy_study),
        ("stage", add_toy_stage),
        ("table", add_toy_table),
        ("benchmark study", lambda r: add_toy_benchmark_study(r, quiz)),
    ):
        follow(repo)
        touched[name] = _touched(repo)
        _commit(repo, f"the {name} recipe")
    dry = _snakemake(repo, data, "-n", "--quiet", "rules")
    # 4 worlds keep the run short: the toy study's census reads them all, the tables their audits, the toy stage one
    scale = ["scale.families=[modular,uniform]", "scale.sizes=[30,60]", "scale.retrieval_families=[modular]"]
    world = "results/smoke/graphworld/modular/n30/seed0"
    targets = ("toy_census", "tables_random_walk", f"{world}/degrees.json", "toy_quiz")
    run = _snakemake(repo, data, "--cores", "2", *targets, overrides=scale)
    return Recipes(repo, touched, dry, run, world)


@pytest.mark.slow
def test_a_toy_study_is_its_folder_plus_two_registrations(recipes, repo_root):
    """The toy study joins `all` and runs: Snakemake builds the worlds it reads and its table, from its own rules
    and plan; the import contracts hold with it; and the recipe touched its folder plus two files, as the recipe's
    row in docs/extending.md lists and counts them."""
    touched = recipes.touched["study"]
    count, in_folder, listed = _recipe_files(_recipe_row(repo_root, "study"), {"study": "toy_census"})
    folder = {t for t in touched if t.startswith("src/tailmem/studies/toy_census/")}
    assert touched - folder == listed == {"src/tailmem/registry.py", "Snakefile"}
    assert len(folder) == in_folder == 4 and len(touched) == count == 6

    assert recipes.dry.returncode == 0, recipes.dry.stderr[-3000:]
    assert re.search(r"\btoy_census\b", recipes.dry.stdout + recipes.dry.stderr)  # `all` asks for the toy's table
    assert recipes.run.returncode == 0, recipes.run.stderr[-3000:]
    table = pd.read_csv(recipes.repo / "results" / "smoke" / "tables" / "toy_census.csv")
    assert sorted(zip(table.family, table.n)) == [("modular", 30), ("modular", 60), ("uniform", 30), ("uniform", 60)]
    assert (table.max_degree >= table.mean_degree).all() and (table.mean_degree >= 1).all()
    repo = recipes.repo
    lint = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--config", str(repo / "pyproject.toml"), "--no-cache"],
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo / "src")},
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout[-3000:]


@pytest.mark.slow
def test_a_toy_stage_is_a_function_its_record_and_its_rule(recipes):
    """docs/extending.md, "A stage": a stage module in the study's folder, its `Stage` in the package's STAGES and
    its rule in the study's rule file (3 files); Snakemake then runs it on a world it builds first."""
    assert recipes.touched["stage"] == {
        f"src/tailmem/studies/random_walk/{f}" for f in ("degrees.py", "__init__.py", "rules.smk")
    }
    assert recipes.run.returncode == 0, recipes.run.stderr[-3000:]
    world = recipes.repo / recipes.world
    degrees = json.loads((world / "degrees.json").read_text())
    record = json.loads((world / "world.json").read_text())
    assert len(degrees) == 30 and sum(degrees) == len(record["targets"])  # each edge is an action at both ends


@pytest.mark.slow
def test_a_toy_table_is_a_stem_a_spec_a_function_and_a_line(recipes):
    """docs/extending.md, "A table": the stem in `outputs`, its spec in the study's data file, the function that
    makes its frame and the line of the stage that writes it (4 files). The study's rule then declares it, and its
    numbers are the audits' own."""
    assert len(recipes.touched["table"]) == 4
    assert recipes.run.returncode == 0, recipes.run.stderr[-3000:]
    tables = recipes.repo / "results" / "smoke" / "tables"
    table = pd.read_csv(tables / "toy_gini_range.csv").set_index("family")
    assert "Toy: how far Gini moves" in (tables / "toy_gini_range.md").read_text()
    for family in ("modular", "uniform"):
        ginis = [
            json.loads(p.read_text())["concentration"]["gini"]
            for p in (recipes.repo / "results" / "smoke" / "audit" / "random_walk").glob(
                f"*/recency/{family}/n*/seed0/audit.json"
            )
        ]
        assert len(ginis) == 2 and table.loc[family, "gini_range"] == pytest.approx(max(ginis) - min(ginis))


# -- the recipes' counts, as docs/extending.md's table states them ----------------------------------------------------
def _recipe_row(repo_root: Path, label: str) -> str:
    """docs/extending.md's table row for `label` (the "Adding a ..." cell)."""
    text = (repo_root / "docs" / "extending.md").read_text()
    row = re.search(rf"^\| {re.escape(label)}\s*\|.*$", text, re.M)
    assert row, f"docs/extending.md: no table row for {label!r}"
    return row.group(0)


def _recipe_files(row: str, names: dict[str, str]) -> tuple[int, int, set[str]]:
    """What a row promises: its count, the files in the study's folder, and every other file it lists (each
    `<placeholder>` filled from `names`); a trailing `(+ ...)` lists optional files a toy does not touch."""
    _, _, count, where, _ = (cell.strip() for cell in row.split("|"))
    where = where.split(" (+", 1)[0]
    folder = re.search(r"`src/tailmem/studies/<study>/` \((\d+) files", where)
    listed = set()
    for path in re.findall(r"`([^`]+)`", where):
        if path == "Snakefile" or ("/" in path and not path.endswith("/")):
            for key, value in names.items():
                path = path.replace(f"<{key}>", value)
            listed.add(path)
    return int(count), int(folder.group(1)) if folder else 0, listed


# -- a benchmark study: a study that reads a data file of its own, with its own settings -----------------------------
# The toy reads one JSON file under the data folder (`toy_quiz/quiz.json`) through its loader in the data layer,
# pinned in the data manifest; its config group says where the file is and how many questions a run reads.
TOY_QUIZ = {
    "questions": [
        {"id": "q1", "question": "Where does Ana live?", "answer": "in Lisbon", "category": "place"},
        {"id": "q2", "question": "What is Ben's job?", "answer": "he repairs old clocks", "category": "fact"},
        {"id": "q3", "question": "Where did they meet?", "answer": "at the harbour market", "category": "place"},
        {"id": "q4", "question": "Which year did Ana move?", "answer": 2019, "category": "fact"},
        {"id": "q5", "question": "Who owns the boat?", "answer": "Ben's sister Clara", "category": "fact"},
    ]
}
TOY_QUIZ_FILES = {
    "src/tailmem/data/toy_quiz.py": '''
        """The toy quiz benchmark: questions with an answer and a category, in one JSON file."""

        from __future__ import annotations

        from dataclasses import dataclass

        from tailmem.data import read_json, records


        @dataclass(frozen=True)
        class Question:
            id: str
            question: str
            answer: str
            category: str


        def load(path) -> tuple[Question, ...]:
            """Every question of the quiz file, checked field by field (a bad one names the file and the field)."""
            quiz = records.mapping(read_json(path, "toy quiz not found (toy_quiz.file)"), str(path))
            out = []
            for i, q in enumerate(records.items(quiz, "questions", str(path))):
                where = f"{path}: question {i}"
                q = records.mapping(q, where)
                out.append(
                    Question(
                        records.text(q, "id", where),
                        records.text(q, "question", where),
                        records.text(q, "answer", where, numbers=True),
                        records.text(q, "category", where),
                    )
                )
            return tuple(out)
    ''',
    "src/tailmem/settings/toy_quiz.py": '''
        """The `toy_quiz` group: the quiz file and how many of its questions a run reads."""

        from __future__ import annotations

        from dataclasses import dataclass
        from typing import Optional

        from omegaconf import MISSING

        from tailmem.settings.checks import Problems


        @dataclass
        class ToyQuizGroup:
            file: str = MISSING
            max_questions: Optional[int] = MISSING

            def __post_init__(self) -> None:
                p = Problems("toy_quiz")
                p.integer("max_questions", self.max_questions, lo=1, null=True)
                p.raise_any()
    ''',
    "configs/toy_quiz/default.yaml": """
        # The toy quiz (tests/test_extending.py): one JSON file of questions under the data folder.
        file: ${data_dir}/toy_quiz/quiz.json
        max_questions: null       # null = every question
    """,
    "src/tailmem/studies/toy_quiz/__init__.py": '''
        """The toy quiz study: how many of the quiz's questions fall in each category, and how long their answers are."""

        from tailmem.stage import Stage, declare

        STAGES = declare(Stage("toy_quiz", "tailmem.studies.toy_quiz.categories:run", ("toy_quiz",)))
        PLAN = "tailmem.studies.toy_quiz.plan:ToyQuizPlan"
    ''',
    "src/tailmem/studies/toy_quiz/plan.py": '''
        """The toy quiz study's share of the DAG: the quiz file in, one table out."""

        from functools import cached_property

        from tailmem.plan import StudyPlan


        class ToyQuizPlan(StudyPlan):
            needs_data = True

            @cached_property
            def targets(self):
                return self.table("toy_quiz")

            @property
            def quiz_file(self) -> str:
                return str(self.cfg.toy_quiz.file)
    ''',
    "src/tailmem/studies/toy_quiz/categories.py": '''
        """Stage toy_quiz: the questions and the mean answer length of each category of the quiz."""

        import pandas as pd

        from tailmem import paths
        from tailmem.data import toy_quiz
        from tailmem.provenance import table_footer
        from tailmem.report.table_io import write_table
        from tailmem.stage import typed_stage


        @typed_stage("toy_quiz")
        def run(cfg):
            quiz = cfg.toy_quiz
            questions = toy_quiz.load(quiz.file)[: quiz.max_questions]
            frame = pd.DataFrame([dict(category=q.category, words=len(q.answer.split())) for q in questions])
            table = frame.groupby("category", sort=True).words.agg(questions="size", answer_words="mean").reset_index()
            out = paths.out_dir(cfg, paths.tables_dir(cfg))
            note = "Each category's questions in the quiz file, and the mean words of their answers."
            footer = table_footer(cfg, data_files=[quiz.file])
            write_table(out, "toy_quiz", table, "Toy quiz by category", note, footer)
    ''',
    "src/tailmem/studies/toy_quiz/rules.smk": """
        # The toy quiz study: the quiz file in, one table out.
        from tailmem.dag import plan_of

        TOY_QUIZ = plan_of(config, workflow.basedir, "toy_quiz")  # toy_quiz/plan.py


        rule toy_quiz:
            input:
                TOY_QUIZ.quiz_file,
            output:
                TOY_QUIZ.targets,
            params:
                **TOY_QUIZ.stage_params("toy_quiz"),
                out=TOY_QUIZ.out_folder,
            log:
                TOY_QUIZ.log_of("toy_quiz"),
            conda:
                TOY_QUIZ.conda_env
            shell:
                "{params.cmd} out={params.out} > {log} 2>&1"
    """,
}


def add_toy_benchmark_study(repo: Path, quiz: Path) -> None:
    """docs/extending.md, "A benchmark study": the study's folder and its two registrations, its loader in the data
    layer and its file's pin in the manifest, its settings group and its place in the config."""
    for name, text in TOY_QUIZ_FILES.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(textwrap.dedent(text).lstrip("\n"))
    src = repo / "src" / "tailmem"
    _register_study(src / "registry.py", "toy_quiz")
    _edit(
        repo / "Snakefile",
        'include: "workflows/site.smk"',
        'include: "workflows/site.smk"\ninclude: "src/tailmem/studies/toy_quiz/rules.smk"',
    )
    from tailmem.data.manifest import file_sha256

    pin = (
        f'    Entry("toy_quiz/quiz.json", "{file_sha256(quiz)}", {quiz.stat().st_size}, "Toy quiz", "CC0", '
        '"written by tests/test_extending.py"),\n)\n\n\ndef file_sha256'
    )
    _edit(src / "data" / "manifest.py", "\n)\n\n\ndef file_sha256", "\n" + pin)
    schema = src / "settings" / "schema.py"
    _edit(
        schema,
        "from tailmem.settings.stats import StatsGroup\n",
        "from tailmem.settings.stats import StatsGroup\nfrom tailmem.settings.toy_quiz import ToyQuizGroup\n",
    )
    _edit(
        schema,
        "    scale: ScaleGroup = MISSING\n",
        "    toy_quiz: ToyQuizGroup = MISSING\n    scale: ScaleGroup = MISSING\n",
    )
    _edit(
        repo / "configs" / "config.yaml",
        "  - calibration: default\n",
        "  - calibration: default\n  - toy_quiz: default\n",
    )


@dataclass
class BenchmarkStudy:
    """The copy of the repository the benchmark-study recipe was followed in, and what Snakemake made of it."""

    repo: Path
    touched: set[str]
    dry: subprocess.CompletedProcess  # a dry run of `all` on the smoke scale, the benchmark data all there
    run: subprocess.CompletedProcess  # the toy's stage, run by Snakemake


@pytest.fixture(scope="module")
def benchmark_study(recipes) -> BenchmarkStudy:
    """The benchmark-study recipe, followed last in the recipes' copy of the repository (its data folder holds the
    toy's quiz file), and that copy's dry run and run."""
    return BenchmarkStudy(recipes.repo, recipes.touched["benchmark study"], recipes.dry, recipes.run)


@pytest.mark.slow
def test_a_toy_benchmark_study_touches_the_files_the_recipe_lists_joins_all_and_runs(benchmark_study, repo_root):
    """The recipe's row for a benchmark study lists exactly the files the toy touched, and its count is theirs; with
    the toy's file pinned, `all` asks for its table, and Snakemake's run of its stage reads the file through the
    loader and writes the table from it."""
    touched = benchmark_study.touched
    count, in_folder, listed = _recipe_files(
        _recipe_row(repo_root, "benchmark study"), {"study": "toy_quiz", "bench": "toy_quiz"}
    )
    folder = {t for t in touched if t.startswith("src/tailmem/studies/toy_quiz/")}
    assert touched - folder == listed
    assert len(folder) == in_folder and len(touched) == count

    assert benchmark_study.dry.returncode == 0, benchmark_study.dry.stderr[-3000:]
    assert re.search(r"\btoy_quiz\b", benchmark_study.dry.stdout + benchmark_study.dry.stderr)
    assert benchmark_study.run.returncode == 0, benchmark_study.run.stderr[-3000:]
    tables = benchmark_study.repo / "results" / "smoke" / "tables"
    table = pd.read_csv(tables / "toy_quiz.csv").set_index("category")
    assert table.questions.to_dict() == {"fact": 3, "place": 2}
    assert table.answer_words.to_dict() == pytest.approx({"fact": (4 + 1 + 3) / 3, "place": (2 + 4) / 2})
    from tailmem.data.manifest import file_sha256

    quiz = Path(benchmark_study.repo.parent / "data" / "toy_quiz" / "quiz.json")
    assert file_sha256(quiz)[:12] in (tables / "toy_quiz.md").read_text()  # the footer names the file read
