"""The model-driven curator and retriever of the skill setting, against the loopback server: the curator writes
through the management tools (cited `(task k)`, hostile paths refused), the retriever's answer is the guidance,
and a chain with both keeps task k's store free of task k and later."""

import json
import re

from llm_testkit import FakeServer, llm_cfg
from tailmem.fsmem.store import Store
from tailmem.llm import get_client
from tailmem.records.alfworld import AlfworldChain
from tailmem.studies.alfworld.play.chain import run_chain
from tailmem.studies.alfworld.play.curator import ModelCurator, sources
from tailmem.studies.alfworld.play.episode import EpisodeRecord
from tailmem.studies.alfworld.play.games import SHORT, Game
from tailmem.studies.alfworld.play.goal import parse_goal
from tailmem.studies.alfworld.play.retriever import retrieve_model

GOAL = "put some book on sidetable"
FAMILY = "pick_and_place_simple"
TRAJ = (
    ("go to drawer 1", "You arrive at drawer 1. On the drawer 1, you see a book 1."),
    ("take book 1 from drawer 1", "You pick up the book 1 from the drawer 1."),
    ("go to sidetable 1", "You arrive at sidetable 1. On the sidetable 1, you see nothing."),
    ("move book 1 to sidetable 1", "You move the book 1 to the sidetable 1."),
)


def _call(name, arguments, i):
    return {
        "id": f"call_{name}_{i}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def scripted(body):
    """Curator: one round of writes (plus a hostile create outside the store), then a summary. Retriever: grep the
    goal's object, read the file it hit, answer with a line of it."""
    messages = body["messages"]
    system, user = messages[0]["content"], messages[1]["content"]
    tools = {t["function"]["name"] for t in body.get("tools") or []}
    rounds = sum(1 for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    if "skill library for a household agent" in system:
        if rounds or not tools:
            return {"role": "assistant", "content": "Filed the task."}
        k = int(re.search(r"Task number: (\d+)", user).group(1))
        family = re.search(r"Goal family: (\w+)", user).group(1)
        ok = "Outcome: success" in user
        goal = re.search(r"^Goal: (.*)$", user, re.M).group(1)
        path = f"skills/{family}.md" if ok else f"notes/{family}-lessons.md"
        line = (
            f"1. take the object and move it to the target ({goal}). (task {k})"
            if ok
            else f"- check every receptacle before giving up ({goal}). (task {k})"
        )
        return {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call(
                    "append_section",
                    {
                        "path": path,
                        "heading": "Procedure" if ok else "Lessons",
                        "text": line,
                        "description": f"{family} tasks",
                    },
                    0,
                ),
                _call("create", {"path": "../x.md", "description": "escape", "content": "pwned"}, 1),
            ],
        }
    assert "You brief a household execution agent" in system
    if rounds == 0:
        obj = re.search(r"Goal of the next task: \w+ some (\w+)", user).group(1)
        return {"role": "assistant", "content": None, "tool_calls": [_call("grep", {"pattern": obj}, 0)]}
    found = [m["content"] for m in messages if m["role"] == "tool"]
    if rounds == 1:
        hit = re.search(r"([\w/-]+\.md):\d+:", found[-1])
        if hit:
            return {"role": "assistant", "content": None, "tool_calls": [_call("view", {"path": hit.group(1)}, 1)]}
    lines = [ln for ln in found[-1].splitlines() if "(task" in ln]
    return {"role": "assistant", "content": f"GUIDANCE: {lines[0] if lines else 'none'}\n"}


def episode(k_success=True, family=FAMILY, goal=GOAL):
    return EpisodeRecord("valid_seen", "g", family, True, k_success, len(TRAJ), 0, goal, trajectory=TRAJ)


def test_model_curator_writes_cited_lines_and_refuses_paths_outside_the_store(tmp_path):
    work = tmp_path / "w"
    store = Store(work / "store")
    with FakeServer(agent=scripted) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "builder", "alfworld_skills")
        curator = ModelCurator("curated_skills", client, max_rounds=4)
        written = curator.curate(store, 3, "game-3", episode())
        failed = curator.curate(store, 4, "game-4", episode(k_success=False))
    assert store.files() == ["notes/put-lessons.md", "skills/put.md"]
    body = [
        ln
        for f in store.files()
        for ln in store.read(f).split("---")[-1].splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert body and all(re.search(r"\(task \d+\)$", ln) for ln in body), body
    assert sources(store) == {3, 4}
    assert written > 0 and failed > 0
    assert sorted(p.name for p in work.iterdir()) == ["store"] and not (tmp_path / "x.md").exists()
    k, ep = curator.episodes[0]
    assert k == 3 and ep.tool_calls == 2 and ep.tool_errors == 1 and ep.prompt_tokens > 0
    assert curator.agent == "test-model"
    user = server.bodies[0]["messages"][1]["content"]
    assert "Task number: 3" in user and GOAL in user and "success in 4 steps" in user and "> take book 1" in user


def test_model_curator_no_store_is_a_no_op(tmp_path):
    store = Store(tmp_path / "store")
    with FakeServer(agent=scripted) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "builder", "alfworld_skills")
        assert ModelCurator("no_store", client, 4).curate(store, 0, "g", episode()) == 0
    assert server.requests == 0 and store.files() == []


def test_model_retriever_hands_over_what_it_read_or_its_synthesis(tmp_path):
    store = Store(tmp_path / "store")
    skill = (
        "---\ndescription: simple tasks\n---\n## Procedure\n"
        "1. find the book, take it, move it to the sidetable. (task 0)\n"
    )
    store.write("skills/put.md", skill)
    store.write("notes/heat-lessons.md", "---\ndescription: heat lessons\n---\n- use the microwave. (task 1)\n")
    with FakeServer(agent=scripted) as server:
        client = get_client(llm_cfg(tmp_path, server.base_url), "searcher", "alfworld_skills")
        synth = retrieve_model(client, "guidance_synthesis", store, parse_goal(GOAL), FAMILY, max_rounds=4)
        got = retrieve_model(client, "curated_skills", store, parse_goal(GOAL), FAMILY, max_rounds=4)
    # guidance synthesis: the agent's written answer; the other variants: the files it opened, verbatim
    assert synth.guidance.startswith("GUIDANCE:") and synth.guidance.endswith("move it to the sidetable. (task 0)")
    assert got.guidance == skill
    assert got.files == synth.files == ("skills/put.md",)
    assert got.episode.tool_calls == 2 and got.episode.rounds == 2 and got.episode.prompt_tokens > 0
    assert got.chars_read > got.episode.chars_read > 0
    assert server.requests == 3  # the second episode asks the same; the call cache answers it


def test_chain_with_model_curator_and_retriever_has_no_leakage(tmp_path):
    fams = [FAMILY, "pick_heat_then_place_in_recep"]
    goals = {FAMILY: GOAL, fams[1]: "heat some apple and put it in diningtable"}
    order = [Game("valid_seen", f"{fams[i % 2]}-X-{i}/trial", fams[i % 2]) for i in range(4)]
    seen = []

    def attempt(game, guidance):
        k = order.index(game)
        return EpisodeRecord(
            game.split, game.id, game.family, True, k != 1, len(TRAJ), 0, goals[game.family], trajectory=TRAJ
        )

    with FakeServer(agent=scripted) as server:
        cfg = llm_cfg(tmp_path, server.base_url)
        searcher = get_client(cfg, "searcher", "alfworld_skills")
        curator = ModelCurator("curated_skills", get_client(cfg, "builder", "alfworld_skills"), 4)

        def retrieve_for(store, game):
            k = order.index(game)
            got = retrieve_model(searcher, "curated_skills", store, parse_goal(goals[game.family]), game.family, 4)
            seen.append((k, sources(store), got.guidance))
            return got

        recs = run_chain(order, "full_chain", tmp_path / "store", retrieve_for, attempt, curator.curate)
    assert [r.store_sources_max for r in recs] == [-1, 0, 1, 2]
    for k, held, guidance in seen:
        assert all(s < k for s in held), (k, held)
        assert all(int(n) < k for n in re.findall(r"task (\d+)", guidance)), (k, guidance)
    assert "(task 0)" in seen[2][2]  # task 2 (same family as task 0) was briefed from task 0's procedure
    assert [k for k, _ in curator.episodes] == [0, 1, 2, 3]
    assert SHORT[fams[1]] in "".join(Store(tmp_path / "store").files())


def test_skills_stage_runs_model_curator_and_retriever(tmp_path, monkeypatch):
    """`alfworld_skills` with model builder and searcher (a programmatic executor, games stubbed): no ConfigError,
    the models are in meta.json and their episodes in chain.json, and the episode cache stays on."""
    from hydra import compose, initialize_config_dir

    from tailmem.artifacts import read_json
    from tailmem.configs import config_dir
    from tailmem.studies.alfworld import episodes as stage
    from tailmem.studies.alfworld.play import episode as E
    from tailmem.studies.alfworld.play import speedup

    order = [Game("valid_seen", f"{FAMILY}-X-{i}/trial", FAMILY) for i in range(3)]
    monkeypatch.setattr(stage, "subset_games", lambda cfg, subset: order)
    monkeypatch.setattr(stage, "manifest_of", lambda cfg, subset: {g.id: {"goal": GOAL} for g in order})
    monkeypatch.setattr(speedup, "install", lambda *a, **k: None)
    played = []

    def run_episode(game, path, ex, ctl, counter, guidance, max_steps):
        played.append(guidance)
        return EpisodeRecord(game.split, game.id, game.family, True, True, len(TRAJ), 0, GOAL, trajectory=TRAJ)

    monkeypatch.setattr(E, "run_episode", run_episode)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(agent=scripted) as server:
        with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
            cfg = compose(
                config_name="config",
                overrides=[
                    f"results_dir={tmp_path}",
                    "stage=alfworld_skills",
                    "llm=openai",
                    f"llm.base_url={server.base_url}",
                    f"llm.cache_path={tmp_path}/llm_cache.sqlite",
                    "llm.retries=1",
                    "llm.backoff_s=0.01",
                    "llm.roles.executor={backend: programmatic, agent: programmatic-executor}",
                    "alfworld.variant=curated_skills",
                    "alfworld.protocol=full_chain",
                ],
            )
        stage.skills(cfg)
    from tailmem.studies.alfworld.play import layout

    out = layout.skills_dir(cfg, "valid_seen", "full_chain", "curated_skills")
    assert out.is_relative_to(tmp_path / "alfworld" / "skills")
    meta = read_json(out / "meta.json")
    assert meta["curator"] == "gpt-5.4-mini" and meta["retriever"] == "gpt-5.4-mini"
    chain = AlfworldChain.read(out / "chain.json")
    assert [t["store_sources_max"] for t in chain.tasks] == [-1, 0, 1]
    assert [e["index"] for e in chain.curation_episodes] == [0, 1, 2]
    assert len(chain.retrieval_episodes) == 2 and chain.retrieval_episodes[0]["prompt_tokens"] > 0
    assert played[0] == "" and "(task 0)" in played[1]
    assert list(layout.episodes_dir(cfg).rglob("*.json"))  # programmatic executor: episodes cached
