"""Issue 13, finding 1 end to end: `fsmem_answer fsmem.harness=shell` with a model (a loopback server playing
a prompt-injected model) that reads every /proc/*/environ inside the sandbox and repeats what it read in its
next request and in its answer. The API key must reach neither the endpoint's request bodies, nor
answers.json, nor the call cache; answers.json records which sandbox ran."""

import json
import sqlite3
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from sandbox_kit import become_subreaper, no_sandbox_left, release_subreaper

from llm_testkit import FakeServer
from tailmem.configs import config_dir
from tailmem.fsmem.sandbox import available
from tailmem.records.fsmem import FsmemAnswers
from tailmem.studies.fsmem import locomo

DATA = Path("/work/shared/data")
KEY = "sk-E2E-CANARY-9f8e7d6c5b4a"
SNOOP = (
    "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ; tr '\\0' ' ' < $p/cmdline; done; cat /proc/self/mountinfo"
)


def injected(body: dict) -> dict:
    """First turn: read every environment in the sandbox; then answer with everything the tool returned."""
    tools = [t["function"]["name"] for t in body.get("tools", [])]
    seen = [m.get("content") or "" for m in body["messages"] if m["role"] == "tool"]
    if "bash" in tools and not seen:
        call = {
            "id": "call_snoop",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": SNOOP})},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"role": "assistant", "content": "ANSWER: " + " | ".join(seen)[:6000]}


@pytest.mark.skipif(available() != "bwrap", reason="needs bubblewrap (apt-get install -y bubblewrap)")
@pytest.mark.skipif(not (DATA / "locomo" / "locomo10.json").exists(), reason="benchmark data not present")
def test_the_key_never_leaves_the_host(tmp_path, monkeypatch):
    become_subreaper()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeServer(agent=injected) as server:
        over = [
            f"results_dir={tmp_path}",
            f"data_dir={DATA}",
            "fsmem.variant=verbatim",
            "fsmem.harness=shell",
            "fsmem.max_questions=1",
            "fsmem.judge=false",
            "fsmem.variants=[verbatim]",
            "stage=fsmem_answer",
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/llm_cache.sqlite",
            "llm.retries=1",
            "llm.backoff_s=0.01",
            "+llm.prices.default={input:1.0,cached_input:0.1,output:4.0}",
        ]
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
            cfg = compose(config_name="config", overrides=over)
        locomo.build(cfg)
        locomo.answer(cfg)
        bodies = json.dumps(server.bodies)
    answers = list(tmp_path.rglob("answers.json"))
    assert len(answers) == 1
    text = answers[0].read_text()
    assert "PATH=/usr/bin:/bin" in bodies and "PATH=/usr/bin:/bin" in text  # the model did read and repeat
    assert KEY not in bodies and KEY not in text and str(tmp_path) not in bodies
    cache = (
        b"".join(
            str(row).encode()
            for row in sqlite3.connect(tmp_path / "llm_cache.sqlite").execute("SELECT * FROM sqlite_master")
        )
        + (tmp_path / "llm_cache.sqlite").read_bytes()
    )
    assert KEY.encode() not in cache
    assert FsmemAnswers.read(answers[0]).sandbox["sandbox"] == "bwrap"
    assert no_sandbox_left() == []
    release_subreaper()
