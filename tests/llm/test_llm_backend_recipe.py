"""A backend is its module and its `Kind` row (docs/extending.md, "A backend"). A toy written here and registered
by one row is opened by the client from that row, accepted by the settings, and played by every caller that once
compared backend names (the graph-world predictor, LongMemEval's answerer, the fsmem prompts) through its traits
alone; then the recipe is followed in a copy of the repository, and the files it touched are the ones the recipe
lists."""

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tailmem.llm.backends.base as base
from llm_testkit import llm_cfg
from tailmem.control.predict import ModelPredictor
from tailmem.errors import ConfigError
from tailmem.fsmem.agents.models import compact
from tailmem.haystack.answer import ModelAnswerer, chat_in_prefix_order
from tailmem.llm import get_client
from tailmem.llm.backends.base import Kind
from tailmem.llm.group import role_settings, settings
from tailmem.llm.parallel import in_process
from tailmem.roles import BUILDER, EXECUTOR, JUDGE, POLICY, PREDICTOR, SEARCHER

# The toy's module: a deterministic chat model in this process and a scoring-only one. It imports what any backend
# may (the errors and the records), not the registry that names it nor the settings, so no import loop closes.
TOY_SOURCE = '''
    """Toy backends: a deterministic chat model in this process, and one that only scores options."""

    from tailmem.errors import ContextOverflow, LLMError
    from tailmem.llm.records import ChatResponse, Usage


    class ToyBackend:
        """Answers the first answer it may give (`answer_choices`), else the last message's word count; a prompt
        holding LONG overflows its context; chooses the first option."""

        name = "toy"

        def __init__(self, settings, llm):
            self.role = settings.role
            self.calls = []  # ("chat" | "choose", the prompt), in the order asked

        def endpoint_id(self, model):
            return f"toy:{model}"

        def chat(self, model, messages, tools, params, on_send=None):
            if on_send is not None:
                on_send()
            text = messages[-1]["content"]
            self.calls.append(("chat", text))
            if "LONG" in text:
                raise ContextOverflow(f"role {self.role}: the prompt does not fit the toy's context")
            choices = params.get("answer_choices")
            reply = choices[0] if choices else f"{len(text.split())} words"
            return ChatResponse(reply, (), Usage(len(text.split()), 0, 1), model, False, 0.0)

        def choose(self, prompt, options):
            self.calls.append(("choose", prompt))
            return 0, Usage(len(prompt.split()), 0, 1), 0.0


    class ToyScorer(ToyBackend):
        """A base model: it ranks options and cannot chat."""

        name = "toy_scorer"

        def chat(self, model, messages, tools, params, on_send=None):
            raise LLMError(f"role {self.role}: the toy scorer cannot chat")
'''
# Each toy's traits, as its Kind row states them.
TRAITS = {
    "toy": dict(chooses=True, constrains_answers=True, answers_within_options=True, embedded=True),
    "toy_scorer": dict(chats=False, chooses=True, answers_within_options=True, names_endpoint=False, embedded=True),
}
CLASSES = {"toy": "ToyBackend", "toy_scorer": "ToyScorer"}
MODEL = "toy-model"
# A graph-world memory block in the compact encoding: S3 and S7 are mentioned with their regions.
BLOCK = "S1 mill/orchard\nS3 barn/orchard\nS7 pier/bay"


@pytest.fixture
def toys(tmp_path, monkeypatch):
    """The toy module importable as `toy_backend`, and one Kind row per toy in the registry (nothing else)."""
    (tmp_path / "toy_backend.py").write_text(textwrap.dedent(TOY_SOURCE).lstrip("\n"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_backend", raising=False)
    for name, traits in TRAITS.items():
        monkeypatch.setitem(base.KINDS, name, Kind(name, build=f"toy_backend:{CLASSES[name]}", **traits))


def toy_cfg(tmp_path, searcher="toy", predictor="toy_scorer") -> dict:
    roles = {r: {"backend": "programmatic"} for r in (POLICY, BUILDER, EXECUTOR, JUDGE)}
    roles[SEARCHER] = {"backend": searcher, "model": MODEL}
    roles[PREDICTOR] = {"backend": predictor, "model": MODEL}
    return llm_cfg(tmp_path, "http://127.0.0.1:9/v1", roles=roles)


def test_the_settings_take_a_registered_name_and_refuse_another_naming_the_known_ones(toys, tmp_path):
    llm = settings(toy_cfg(tmp_path))
    assert (role_settings(llm, SEARCHER).backend, role_settings(llm, PREDICTOR).backend) == ("toy", "toy_scorer")
    with pytest.raises(ConfigError) as refused:
        settings(toy_cfg(tmp_path, searcher="nonesuch"))
    message = str(refused.value)
    assert "llm.roles.searcher.backend" in message and "nonesuch" in message
    assert all(repr(name) in message for name in ("toy", "toy_scorer", "openai", "instruct"))


def test_the_client_opens_the_toy_from_its_row_and_caches_its_answers(toys, tmp_path):
    client = get_client(toy_cfg(tmp_path), SEARCHER, "toy_stage")
    messages = [{"role": "user", "content": "three short words"}]
    first, again = client.chat(messages), client.chat(messages)
    assert (first.content, first.from_cache, again.from_cache) == ("3 words", False, True)
    assert client.choose("pick one", ["a", "b"]) == 0  # the toy chooses itself (its row: chooses)
    assert client._impl.calls == [("chat", "three short words"), ("choose", "pick one")]
    assert in_process(client) and client.workers(5) == 1  # embedded: one unit at a time


def test_a_scoring_only_toy_predicts_by_choosing_among_the_mentioned_states(toys, tmp_path):
    client = get_client(toy_cfg(tmp_path), PREDICTOR, "control")
    prediction = ModelPredictor(client).predict(BLOCK, 1, "the mill", "walk to the barn")
    assert prediction.state == 3  # the toy's first option: the first state mentioned after the current one
    assert [kind for kind, _ in client._impl.calls] == ["choose"]


def test_a_chat_toy_predicts_under_its_answer_choices(toys, tmp_path):
    client = get_client(toy_cfg(tmp_path, predictor="toy"), PREDICTOR, "control")
    prediction = ModelPredictor(client).predict(BLOCK, 1, "the mill", "walk to the barn")
    assert prediction.state == 3 and [kind for kind, _ in client._impl.calls] == ["chat"]


def test_longmemeval_answering_refuses_a_scoring_only_toy(toys, tmp_path):
    with pytest.raises(ConfigError, match="chat model"):
        ModelAnswerer(get_client(toy_cfg(tmp_path), PREDICTOR, "longmemeval"))
    assert ModelAnswerer(get_client(toy_cfg(tmp_path), SEARCHER, "longmemeval")).client.backend == "toy"


def test_longmemeval_asks_an_in_process_toy_in_prefix_order_and_loses_only_the_arm_that_overflows(toys, tmp_path):
    client = get_client(toy_cfg(tmp_path), SEARCHER, "longmemeval")
    texts = ["b two words", "LONG memory block", "a one"]
    answers = chat_in_prefix_order(client, [{"messages": [{"role": "user", "content": t}]} for t in texts])
    assert [a and a.content for a in answers] == ["3 words", None, "2 words"]
    assert [text for _, text in client._impl.calls] == sorted(texts)  # one at a time, shared prefixes adjacent


def test_the_fsmem_prompts_are_compact_for_a_toy_decoding_under_constraints(toys, tmp_path):
    assert compact(get_client(toy_cfg(tmp_path), SEARCHER, "fsmem_answer"))
    assert not compact(get_client(toy_cfg(tmp_path), PREDICTOR, "fsmem_answer"))


# -- the recipe, followed in a copy of the repository ----------------------------------------------------------------
RECIPE_ROW = re.compile(r"^\| backend\s*\|.*$", re.M)  # docs/extending.md's table row for a backend
TOY_PRESET = """
    # Every role on the toy backend (tests/llm/test_llm_backend_recipe.py).
    defaults:
      - offline
      - _self_

    name: toy
    roles:
      policy: {backend: toy, model: toy-model}
      predictor: {backend: toy, model: toy-model}
      builder: {backend: toy, model: toy-model}
      searcher: {backend: toy, model: toy-model}
      executor: {backend: toy, model: toy-model}
      judge: {backend: toy, model: toy-model}
"""
# Run in the copy: every role's client on llm=toy, and the callers that once compared backend names.
TOY_RUN = """
    import json

    from tailmem.control.predict import ModelPredictor
    from tailmem.fsmem.agents.models import compact
    from tailmem.llm import get_client
    from tailmem.haystack.answer import chat_in_prefix_order
    from tailmem.roles import ROLES
    from tailmem.workflow import compose_config

    cfg = compose_config("smoke", ["llm=toy", "results_dir={results}"])
    clients = {role: get_client(cfg, role, "toy_stage") for role in ROLES}
    searcher = clients["searcher"]
    requests = [{"messages": [{"role": "user", "content": t}]} for t in ("b two words", "LONG block", "a one")]
    print(json.dumps({
        "replies": {role: c.chat([{"role": "user", "content": "hello toy"}]).content for role, c in clients.items()},
        "prediction": ModelPredictor(clients["predictor"]).predict("S1 mill/orchard\\nS3 barn/orchard", 1, "", "go").state,
        "answers": [a and a.content for a in chat_in_prefix_order(searcher, requests)],
        "compact": compact(searcher),
        "impl": type(searcher._impl).__name__,
    }))
"""


def _git(repo: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def follow_the_recipe(repo: Path) -> None:
    """docs/extending.md, "A backend": the module, its Kind row, a preset."""
    backends = repo / "src" / "tailmem" / "llm" / "backends"
    (backends / "toy.py").write_text(textwrap.dedent(TOY_SOURCE).lstrip("\n"))
    registry = backends / "base.py"
    text, anchor = registry.read_text(), "KINDS = {\n    k.name: k\n    for k in (\n"
    assert anchor in text
    traits = ", ".join(f"{key}={value!r}" for key, value in TRAITS["toy"].items())
    row = f'        Kind("toy", build="tailmem.llm.backends.toy:ToyBackend", {traits}),\n'
    registry.write_text(text.replace(anchor, anchor + row, 1))
    (repo / "configs" / "llm" / "toy.yaml").write_text(textwrap.dedent(TOY_PRESET).lstrip("\n"))


@pytest.mark.slow
def test_a_toy_backend_in_a_copy_of_the_repository_takes_the_files_the_recipe_lists(repo_root, tmp_path, data_dir):
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("src", "configs"):
        shutil.copytree(repo_root / name, repo / name, ignore=ignore)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "copy")

    follow_the_recipe(repo)
    touched = {line[3:] for line in _git(repo, "status", "--porcelain", "-uall").splitlines()}
    row = RECIPE_ROW.search((repo_root / "docs" / "extending.md").read_text()).group(0)
    listed = {p.replace("<name>", "toy").replace("<preset>", "toy") for p in re.findall(r"`([\w<>.]+/[\w/<>.]+)`", row)}
    assert (
        touched
        == listed
        == {
            "src/tailmem/llm/backends/toy.py",
            "src/tailmem/llm/backends/base.py",
            "configs/llm/toy.yaml",
        }
    )
    count = re.match(r"\| backend\s*\|\s*(\d+)\s*(?:\(\+(\d+)\))?", row)
    assert int(count.group(1)) + int(count.group(2) or 0) == len(touched)

    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(repo / "src"), "TAILMEM_DATA_DIR": str(data_dir)}
    script = textwrap.dedent(TOY_RUN).replace("{results}", str(tmp_path / "results"))
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["impl"] == "ToyBackend" and set(got["replies"].values()) == {"2 words"}
    assert got["prediction"] == 3 and got["compact"]
    assert got["answers"] == ["3 words", None, "2 words"]
