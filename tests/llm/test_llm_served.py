"""The served preset (llm=served) is the embedded experiment on an endpoint: the same caps and prompts, the embedded
backend's constraints in each server's structured-output fields, a call written as text read back as a call, and
labels and footers that name the preset. Against the strict test server; tests/llm/test_llm_llamacpp_server.py
runs the real one."""

import json

import pytest

from llm_testkit import FakeServer, llm_cfg
from tailmem.errors import ConfigError
from tailmem.llm import get_client
from tailmem.llm.backends.instruct import available
from tailmem.llm.group import role_settings, roles, settings
from tailmem.llm.structured import call_text, history, parse, request
from tailmem.roles import BUILDER, POLICY, PREDICTOR, SEARCHER
from tailmem.workflow import compose_config

VIEW = {
    "type": "function",
    "function": {
        "name": "view",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
}
needs_llama = pytest.mark.skipif(not available(), reason="gbnf builds its grammar with llama-cpp-python")


def test_the_served_preset_keeps_the_embedded_caps_and_names_itself():
    embedded = roles(settings(compose_config("smoke", ["llm=embedded"])))
    cfg = compose_config("smoke", ["llm=served"])
    served = settings(cfg)
    assert served.name == "served"
    for role, e in embedded.items():
        s = role_settings(served, role)
        assert (s.backend, s.structured_outputs, s.model) == ("openai", "gbnf", e.model)
        assert (s.max_output_tokens, s.task_max_output_tokens, s.temperature) == (
            e.max_output_tokens,
            e.task_max_output_tokens,
            e.temperature,
        )
        assert s.compact_prompt_tokens == e.compact_prompt_tokens
        assert s.label == f"{e.model}-served"
    from tailmem.paths import role_label
    from tailmem.provenance import agents, table_footer
    from tailmem.registry import STAGES
    from tailmem.settings.stage_settings import for_stage

    assert role_label(cfg, PREDICTOR) == "qwen2.5-coder-1.5b-instruct-q4_k_m-served"
    assert role_label(compose_config("smoke", ["llm=embedded"]), PREDICTOR) == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    a = agents(cfg)[SEARCHER]
    assert (a["backend"], a["preset"], a["structured_outputs"]) == ("openai", "served", "gbnf")
    footer = table_footer(for_stage(cfg, "fsmem_answer", STAGES["fsmem_answer"].groups))
    assert "agents (llm=served): builder qwen2.5-coder-1.5b-instruct-q4_k_m-served (openai gbnf)" in footer


def test_the_strength_grid_keeps_served_folders_apart_and_sends_the_model_name():
    from tailmem.fsmem.run_list import strength_runs
    from tailmem.studies.fsmem.plan import FsmemPlan

    for overrides, suffix in ((["llm=served"], "-served"), ([], "")):
        (run,) = strength_runs(compose_config("smoke_model", overrides))
        assert run.builder == f"qwen2.5-coder-1.5b-instruct-q4_k_m{suffix}"
        assert run.build_dir.parts[-2] == run.builder  # the main store, built once, is the grid's
    assert FsmemPlan.model(BUILDER, "qwen2.5-coder-1.5b-instruct-q4_k_m-served") == [
        "llm.roles.builder.model=qwen2.5-coder-1.5b-instruct-q4_k_m"
    ]


def test_structured_outputs_is_for_a_served_model_only():
    with pytest.raises(ConfigError, match="structured_outputs=gbnf is for a served model"):
        compose_config("smoke", ["llm=embedded", "+llm.roles.predictor.structured_outputs=gbnf"])
    with pytest.raises(ConfigError, match="expected one of"):
        compose_config("smoke", ["llm=served", "llm.structured_outputs=xml"])


@needs_llama
def test_gbnf_sends_the_embedded_grammars():
    from tailmem.llm.backends.instruct import choices_grammar, grammar_text

    r = request("gbnf", PREDICTOR, {"max_tokens": 8, "extra_body": {"repeat_penalty": 1.0}}, None, ["S1", "UNKNOWN"])
    assert r["extra_body"] == {"repeat_penalty": 1.0, "grammar": choices_grammar(["S1", "UNKNOWN"])}
    r = request("gbnf", SEARCHER, {"tool_choice": "required"}, [VIEW], None)
    assert "tool_choice" not in r and r["extra_body"]["grammar"] == grammar_text([VIEW], "required")
    assert request("gbnf", SEARCHER, {"tool_choice": "none"}, [VIEW], None)["extra_body"]["grammar"].startswith(
        "root ::= answer"
    )


def test_vllm_and_json_schema_fields():
    r = request("vllm", PREDICTOR, {}, None, ["S1", "UNKNOWN"])
    assert r["extra_body"]["structured_outputs"] == {"choice": ["S1", "UNKNOWN"]}
    r = request("vllm", SEARCHER, {"tool_choice": "required"}, [VIEW], None)
    assert r["extra_body"]["structured_outputs"]["json"]["properties"]["name"] == {"const": "view"}
    assert r["tool_choice"] == "none"  # the call is read from the text, not by the server's tool parser
    assert request("vllm", SEARCHER, {"tool_choice": "auto"}, [VIEW], None) == {"tool_choice": "auto"}
    r = request("json_schema", PREDICTOR, {}, None, ["S1", "UNKNOWN"])
    assert r["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"] == ["S1", "UNKNOWN"]
    assert parse("json_schema", '{"answer": "S1"}', None, ["S1", "UNKNOWN"]) == ("S1", ())


def test_a_call_written_as_text_is_read_as_a_call():
    tagged = '<tool_call>\n{"name": "view", "arguments": {"path": "a.md"}}\n</tool_call>'
    for text in (tagged, '{"name": "view", "arguments": {"path": "a.md"}}'):
        content, (call,) = parse("gbnf", text, [VIEW], None)
        assert content is None and (call.name, call.arguments) == ("view", {"path": "a.md"})
    assert parse("gbnf", '{"name": "nope", "arguments": {}}', [VIEW], None)[1] == ()  # no offered tool: text


def test_earlier_calls_go_back_as_the_template_renders_them():
    """The history a gbnf server renders is the embedded backend's: the call's arguments as an object under the
    template's tojson, not OpenAI's string quoted a second time."""
    jinja2 = pytest.importorskip("jinja2")
    args = {"path": "<a>&'b'.md", "line": 3}
    call = {"id": "c", "type": "function", "function": {"name": "view", "arguments": json.dumps(args)}}
    msgs = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    (_, sent) = history("gbnf", msgs)
    assert sent == {"role": "assistant", "content": call_text("view", args)}
    template = jinja2.Environment().from_string(
        '<tool_call>\n{"name": "{{ c.name }}", "arguments": {{ c.arguments | tojson }}}\n</tool_call>'
    )
    assert sent["content"] == template.render(c={"name": "view", "arguments": args})
    assert history("vllm", msgs) is msgs


@needs_llama
def test_a_served_round_sends_the_grammar_and_reads_the_tagged_call(tmp_path):
    reply = '<tool_call>\n{"name": "view", "arguments": {"path": "a.md"}}\n</tool_call>'
    with FakeServer(agent=lambda body: {"role": "assistant", "content": reply}) as server:
        cfg = llm_cfg(tmp_path, server.base_url, structured_outputs="gbnf", max_output_tokens=160)
        client = get_client(cfg, SEARCHER, "test")
        assert client.constrains_answers
        r = client.chat([{"role": "user", "content": "q"}], tools=[VIEW], tool_choice="required")
        body = server.bodies[-1]
    assert [(c.name, c.arguments) for c in r.tool_calls] == [("view", {"path": "a.md"})]
    assert "grammar" in body and "tool_choice" not in body and body["max_tokens"] == 160 and body["tools"]


@needs_llama
def test_choose_asks_as_the_embedded_model_does(tmp_path):
    from tailmem.llm.backends.instruct import choose_messages, numbers_grammar

    with FakeServer(reply=lambda body: "2") as server:
        client = get_client(llm_cfg(tmp_path, server.base_url, structured_outputs="gbnf"), POLICY, "test")
        assert client.choose("Where next?", ["north", "south", "east"]) == 1
        body = server.bodies[-1]
    assert body["messages"] == choose_messages("Where next?", ["north", "south", "east"])
    # the same sentences as the embedded grammar, alternatives in another order: the same tokens are allowed
    assert set(body["grammar"].split(" ::= ")[1].split(" | ")) == set(numbers_grammar(3).split(" ::= ")[1].split(" | "))
    assert body["max_tokens"] == 4
