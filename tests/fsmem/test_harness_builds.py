"""Building through each harness (paper 2 RQ5): the programmatic builder's plan does not depend on its tools, so
its stores are byte-identical whether it writes with append_section (center, center_bm25) or with bash
heredocs (shell); the build stage records the harness; the model builder gets the harness's prompt."""

from dataclasses import replace
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.errors import ConfigError
from tailmem.fsmem import harnesses, variants
from tailmem.fsmem.agents import builder
from tailmem.fsmem.benchmarks import conversation
from tailmem.fsmem.chunks import chunk_conversation
from tailmem.fsmem.sandbox import available
from tailmem.fsmem.snapshots import SnapshotLog
from tailmem.fsmem.store import Store
from tailmem.fsmem.tools.management import management
from tailmem.fsmem.tools.shell import shell_builder
from tailmem.records.fsmem import FsmemBuild
from tailmem.studies.fsmem import locomo

DATA = Path("/work/shared/data")
needs_bwrap = pytest.mark.skipif(available() != "bwrap", reason="the Shell build harness needs bubblewrap")


def cfg_for(tmp_path, **extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        over = [f"results_dir={tmp_path}", f"data_dir={DATA}", "fsmem.max_questions=2", "stage=fsmem_build"]
        return compose(config_name="config", overrides=over + [f"{k}={v}" for k, v in extra.items()])


def files_of(store: Store) -> dict[str, bytes]:
    return {p: (store.root / p).read_bytes() for p in store.files()}


@pytest.mark.slow
@needs_bwrap
@pytest.mark.parametrize("variant", ["agent_curated", "verbatim", "chunk_retrieval", "foldered"])
def test_programmatic_stores_are_byte_identical_across_harnesses(tmp_path, variant):
    fs = cfg_for(tmp_path).fsmem
    conv = conversation(fs, "locomo", "conv-50")
    conv = replace(conv, sessions=conv.sessions[:3])  # 9 chunks: enough to append to sections and files
    stores, manifests = {}, {}
    for name in harnesses.HARNESSES:
        store = Store(tmp_path / name / "store")
        snaps = SnapshotLog(tmp_path / name / "snapshots")
        episodes = variants.build(variant, conv, store, snaps, fs, None, build_harness=name)
        assert all(e.tool_errors == 0 for e in episodes), name
        stores[name] = files_of(store)
        manifests[name] = [snaps.load(label).files for label in snaps.labels()]
    assert stores["center"] and stores["center"] == stores["center_bm25"] == stores["shell"]
    assert manifests["center"] == manifests["center_bm25"] == manifests["shell"]  # every chunk's snapshot too


@pytest.mark.slow
@needs_bwrap
def test_shell_writes_any_text_byte_identically(tmp_path):
    """Heredocs and their fallbacks (no final newline, the delimiter inside, NUL-free unicode, long files)."""
    store = Store(tmp_path / "s")
    h = shell_builder(store)
    texts = {
        "plain.md": "---\ndescription: d\n---\n$HOME `x` \\n 'q' \"dq\"\n",
        "delim.md": "---\ndescription: d\n---\nTAILMEM_EOF\nTAILMEM_EOF_\nend\n",
        "nonl.md": "---\ndescription: d\n---\nno final newline",
        "uni.md": "---\ndescription: é\n---\n" + "ünïcödé → 東京\n" * 9000,
    }
    try:
        for path, text in texts.items():
            mode = "create"
            for cmd in builder.write_commands(h, path, text, mode):
                r = h.call("bash", {"command": cmd})
                assert r.ok and "not kept" not in r.output, r.output[-500:]
        assert files_of(store) == {p: t.encode() for p, t in texts.items()}
        assert builder.read_file(h, "uni.md") == texts["uni.md"]  # paged base64 reads split inside characters
    finally:
        h.close()


@needs_bwrap
def test_shell_builder_reads_back_a_file_it_did_not_write(tmp_path):
    """A stale record (someone else edited the file) is caught by the hash probe and the file is read back."""
    fs = cfg_for(tmp_path).fsmem
    conv = conversation(fs, "locomo", "conv-50")
    chunk = chunk_conversation(conv, 8, 3000)[0]
    seed = "---\ndescription: What Caroline said\n---\n" + "## Earlier\n- [D0:1] x\n" * 800
    results = {}
    for name in ("center", "shell"):
        store = Store(tmp_path / name)
        for person in {t.speaker for t in chunk.turns}:
            management(store).call(
                "create",
                {"path": f"people/{builder.slug(person)}.md", "description": "d", "content": seed.split("---\n", 2)[2]},
            )
        h = harnesses.spec(name).open_build(store, fs)
        known = {p: "stale" for p in store.files()}
        ep = builder.integrate_programmatic(chunk, h, known)
        h.close()
        results[name] = files_of(store)
        assert ep.tool_errors == 0
    assert results["center"] == results["shell"]


@pytest.mark.slow
@needs_bwrap
def test_build_stage_records_the_build_harness(tmp_path):
    for name in harnesses.HARNESSES:
        cfg = cfg_for(tmp_path, **{"fsmem.variant": "verbatim", "fsmem.build_harness": name, "out": tmp_path / name})
        locomo.build(cfg)
        built = FsmemBuild.read(tmp_path / name / "build.json")
        assert built.build_harness == name and built.reorganizer_harness is None
        assert built.store["files"] == len(conversation(cfg.fsmem, "locomo", "conv-50").sessions)
    assert files_of(Store(tmp_path / "center/store")) == files_of(Store(tmp_path / "shell/store"))


def test_unknown_build_harness_is_named(tmp_path):
    cfg = cfg_for(tmp_path, **{"fsmem.variant": "verbatim", "fsmem.build_harness": "emacs"})
    with pytest.raises(ConfigError, match="fsmem.build_harness"):  # refused at the stage's first line
        locomo.build(cfg)


def test_programmatic_reorganizer_is_recorded_on_management_tools(tmp_path):
    cfg = cfg_for(
        tmp_path,
        **{"fsmem.variant": "reorganized_condense", "fsmem.build_harness": "center_bm25", "out": tmp_path / "r"},
    )
    locomo.build(cfg)
    built = FsmemBuild.read(tmp_path / "r/build.json")
    assert built.build_harness == "center_bm25" and built.reorganizer_harness == "center"


class ScriptedBuilder:
    """Asks for one tool call (whatever the harness offers), then stops; keeps the prompts it was sent."""

    role, backend, model = "builder", "fake", "fake-model"

    def __init__(self):
        self.systems, self.tools = [], []

    def chat(self, messages, tools=None, **params):
        from tailmem.llm import ChatResponse, ToolCall, Usage

        self.systems.append(messages[0]["content"])
        self.tools.append(sorted(t["function"]["name"] for t in tools or []))
        if tools and len(messages) == 2:
            name = tools[0]["function"]["name"]
            args = {"command": "ls"} if name == "bash" else {"path": ""}
            return ChatResponse(None, (ToolCall("c1", name, args),), Usage(10, 0, 1), self.model, False, 0.0)
        return ChatResponse("done", (), Usage(10, 0, 1), self.model, False, 0.0)


@pytest.mark.parametrize("name", ["center", "center_bm25", "shell"])
def test_model_builder_gets_the_harness_prompt(tmp_path, name):
    if name == "shell" and available() != "bwrap":
        pytest.skip("the Shell build harness needs bubblewrap")
    fs = cfg_for(tmp_path).fsmem
    chunk = chunk_conversation(conversation(fs, "locomo", "conv-50"), 8, 3000)[0]
    h = harnesses.spec(name).open_build(Store(tmp_path / "s"), fs)
    fake = ScriptedBuilder()
    try:
        ep = builder.integrate_model(fake, chunk, h, max_rounds=5)
    finally:
        h.close()
    assert ep.tool_calls == 1 and ep.tool_errors == 0
    system = fake.systems[0]
    if name == "shell":
        assert fake.tools[0] == ["bash"] and "/memory" in system and "description" in system and "$" not in system
    else:
        tools = ["view", "create", "str_replace", "insert", "delete", "rename", "append_section"]
        tools += ["search"] if name == "center_bm25" else []
        assert f"({', '.join(tools)})" in system and fake.tools[0] == sorted(tools)


@needs_bwrap
def test_model_reorganizer_works_through_bash(tmp_path):
    from tailmem.fsmem.agents import reorganizer

    fs = cfg_for(tmp_path).fsmem
    h = harnesses.spec("shell").open_build(Store(tmp_path / "s"), fs)
    fake = ScriptedBuilder()
    try:
        episodes = reorganizer.reorganize_model(fake, h, "preserve", max_rounds=5, passes=1)
    finally:
        h.close()
    assert episodes[0].tool_calls == 1 and fake.tools[0] == ["bash"]
    assert "/memory" in fake.systems[0] and "Preserve every factual detail" in fake.systems[0]


def test_center_prompt_is_unchanged_for_the_management_tools(tmp_path):
    """The call cache keys on the prompt text: the center build prompt must read as it did before."""
    text = builder.system_prompt(management(Store(tmp_path)))
    assert "(view, create, str_replace, insert, delete, rename, append_section)" in text and "$tools" not in text


def test_live_search_index_follows_the_store(tmp_path):
    store = Store(tmp_path / "s")
    h = management(store, ranked=True)
    assert "no file matches" in h.call("search", {"query": "ferrari"}).output
    h.call("create", {"path": "cars.md", "description": "cars", "content": "Calvin bought a Ferrari.\n"})
    assert h.call("search", {"query": "ferrari"}).output.startswith("cars.md")


@needs_bwrap
@pytest.mark.parametrize("role", ["search", "build"])
def test_shell_output_cut_by_the_sandbox_is_counted_and_logged(tmp_path, caplog, role):
    """Issue 14, finding 2: no tool output is cut without a record. The Shell harness's own cap
    (fsmem.shell.max_output_chars) cuts inside the sandbox, so it must count like the harness's safety cap."""
    import logging

    from tailmem.fsmem.sandbox import Limits
    from tailmem.fsmem.tools.shell import shell

    store = Store(tmp_path / "s")
    limits = Limits(max_output_chars=1000)
    h = shell(store, limits) if role == "search" else shell_builder(store, limits)
    try:
        with caplog.at_level(logging.WARNING):
            short = h.call("bash", {"command": "printf 'abc'"})
            long = h.call("bash", {"command": "head -c 5000 /dev/zero | tr '\\\\0' x"})
    finally:
        h.close()
    assert short.ok and "truncated" not in short.output
    assert long.ok and "[output truncated at 1000 characters]" in long.output
    assert h.truncations == 1
    assert "cut at the sandbox's cap of 1000" in caplog.text
