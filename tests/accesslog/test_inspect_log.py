"""A real inspect_ai evaluation (its `mockllm` model scripted to call tools) whose log is then audited: the
importer must find exactly the reads the script made, from both log formats, through inspect_ai's own reader."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool

from tailmem.settings.audit_log import ToolSpec
from tailmem.studies.audit_log.events import LogError
from tailmem.studies.audit_log.formats.inspect_log import read_inspect

pytestmark = pytest.mark.slow

SEARCH_HITS = {"birthday": ["mem-3", "mem-7"], "trip": ["mem-7", "mem-1", "mem-9"]}
# per sample: the tool calls the mock model makes, one per assistant turn, then it answers
SCRIPT = {
    "q1": [
        ("read_file", {"path": "notes/a.md"}),
        ("search", {"query": "birthday"}),
        ("read_file", {"path": "notes/b.md"}),
    ],
    "q2": [("search", {"query": "trip"}), ("read_file", {"path": "notes/a.md"}), ("list_files", {})],
    "q3": [("read_file", {"path": "notes/a.md"}), ("search", {"query": "birthday"})],
}
TOOLS = {"read_file": ToolSpec(argument="path"), "search": ToolSpec(result="json")}


@tool
def read_file():
    async def execute(path: str) -> str:
        """Read a note.

        Args:
            path: The note's path.
        """
        return f"contents of {path}"

    return execute


@tool
def search():
    async def execute(query: str) -> str:
        """Search the memory store.

        Args:
            query: What to look for.
        """
        return json.dumps(SEARCH_HITS.get(query, []))

    return execute


@tool
def list_files():
    async def execute() -> str:
        """List the notes (not a read)."""
        return "notes/a.md\nnotes/b.md"

    return execute


def scripted(input, tools, tool_choice, config) -> ModelOutput:
    """The next scripted call of the sample whose conversation this is (samples may run concurrently)."""
    sample = next(m.text for m in input if m.role == "user").strip()
    turn = sum(1 for m in input if m.role == "assistant")
    calls = SCRIPT[sample]
    if turn < len(calls):
        name, args = calls[turn]
        return ModelOutput.for_tool_call("mockllm/model", name, args)
    return ModelOutput.from_content("mockllm/model", "done")


def expected_reads() -> Counter:
    reads = Counter()
    for calls in SCRIPT.values():
        for name, args in calls:
            if name == "read_file":
                reads[args["path"]] += 1
            elif name == "search":
                reads.update(SEARCH_HITS[args["query"]])
    return reads


@pytest.fixture(scope="module")
def eval_logs(tmp_path_factory):
    """One real evaluation per log format; the log files inspect_ai wrote."""
    from tailmem.llm.tokens import ensure_offline_cache

    ensure_offline_cache("o200k_base")  # inspect_ai counts tokens with tiktoken, which would download its vocabulary
    out = {}
    for fmt in ("eval", "json"):
        folder = tmp_path_factory.mktemp(f"inspect_{fmt}")
        task = Task(
            dataset=[Sample(input=q, target="done", id=q) for q in SCRIPT],
            solver=[use_tools(read_file(), search(), list_files()), generate()],
        )
        model = get_model("mockllm/model", custom_outputs=scripted, memoize=False)
        [log] = inspect_eval(task, model=model, log_dir=str(folder), log_format=fmt, display="none")
        assert log.status == "success", log.error
        [path] = list(folder.glob(f"*.{fmt}"))
        out[fmt] = path
    return out


@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_reads_are_the_scripted_tool_calls(eval_logs, fmt):
    log = read_inspect(eval_logs[fmt], TOOLS)
    assert Counter(e.item for e in log.events) == expected_reads()
    assert {e.episode for e in log.events} == {f"{q}:1" for q in SCRIPT}
    # q1's calls come one per assistant turn: steps 0, 1 (two search hits), 2
    q1 = [(e.step, e.item, e.source) for e in log.events if e.episode == "q1:1"]
    assert q1 == [
        (0, "notes/a.md", "read_file"),
        (1, "mem-3", "search"),
        (1, "mem-7", "search"),
        (2, "notes/b.md", "read_file"),
    ]


def test_the_stage_audits_the_eval_log(eval_logs, tmp_path):
    from omegaconf import OmegaConf

    from tailmem.runner import compose_stage
    from tailmem.studies.audit_log.audit import run

    cfg = compose_stage(
        "audit_log",
        [
            f"audit_log.file={eval_logs['eval']}",
            "audit_log.format=inspect",
            f"out={tmp_path / 'audit'}",
            "audit.bootstrap=0",
        ],
    )
    OmegaConf.set_struct(cfg, False)
    audit = json.loads(run(cfg).read_text())
    reads = expected_reads()
    assert audit["counts"] == {"n_items": len(reads), "total": sum(reads.values()), "nonzero": len(reads)}
    assert audit["top_items"][0] == {"item": "notes/a.md", "reads": 3}
    # 6 items with 3 distinct counts: no tail, and the audit says why
    assert audit["tail"]["status"] == "degenerate"
    assert "distinct positive counts" in audit["tail"]["why_no_fit"]
    assert (tmp_path / "audit" / "ccdf.png").is_file() and (tmp_path / "audit" / "audit_log.md").is_file()


def test_a_named_argument_the_calls_lack_names_the_sample(eval_logs):
    with pytest.raises(LogError, match=r"sample q\d epoch 1, call .* of read_file\): no argument 'file'"):
        read_inspect(eval_logs["eval"], {"read_file": ToolSpec(argument="file")})


def test_a_file_that_is_not_an_eval_log_is_refused(tmp_path):
    bad = tmp_path / "broken.eval"
    bad.write_bytes(b"not a zip")
    with pytest.raises(LogError, match="broken.eval: not an inspect_ai eval log"):
        read_inspect(bad, TOOLS)
