"""End to end with model agents (about 15 s): the filesystem-memory and controller-study stages run against a local
OpenAI-compatible server, then the `site` stage finds each page's transcript in the call cache the stages wrote (no
second copy) and the site has no broken internal link."""

import re

import pytest
from sitekit import broken_links

from llm_testkit import FakeServer
from tailmem.cli import main


def _reply(body: dict) -> str:
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if "Which state does it lead to?" in text:
        codes = re.findall(r"\bS(\d+)\b", text)
        return f"S{codes[0]}" if codes else "UNKNOWN"
    if "yes or no" in text.lower() or "correct" in text.lower():
        return "yes"
    return "Calvin went to Tokyo [D3:1]."


@pytest.mark.slow
def test_site_shows_model_transcripts_from_the_call_cache(tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(reply=_reply) as server:
        common = [
            "scale=smoke",
            f"results_dir={tmp_path}/results",
            f"figures_dir={tmp_path}/figures",
            f"data_dir={data_dir}",
            "fsmem.max_questions=2",
            "llm=openai",
            f"llm.base_url={server.base_url}",
            f"llm.cache_path={tmp_path}/results/llm_cache.sqlite",
            "llm.retries=1",
            "llm.backoff_s=0.01",
        ]
        world = ["graph=modular", "graph.n=30", "seed=0", "rollout.episodes=1", "rollout.steps=8"]
        assert main(["fsmem_build", "fsmem.variant=verbatim", *common]) == 0
        assert main(["fsmem_answer", "fsmem.variant=verbatim", *common]) == 0
        assert main(["graphworld", *common, *world]) == 0
        assert main(["rollout", "policy=semantic", *common, *world]) == 0
        assert main(["control", "policy=semantic", "memory=graph_memory", *common, *world]) == 0
        calls = server.requests
        assert main(["site", *common]) == 0
        assert server.requests == calls  # the site reads the cache; it never calls a model
    site = tmp_path / "results" / "site"
    assert broken_links(site) == []
    fsmem_pages = [p for p in (site / "fsmem").rglob("q-*.html")]
    assert fsmem_pages
    for page in fsmem_pages:
        html = page.read_text()
        assert "From the call cache" in html, page
        assert "Programmatic agent" not in html
        assert "(transcript)" in html or '<pre class="out">' in html  # tool outputs as the model saw them
    steps = list((site / "control").rglob("step-*.html"))
    assert steps and all("From the call cache" in p.read_text() for p in steps)
