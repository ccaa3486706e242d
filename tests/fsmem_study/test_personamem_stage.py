"""Stage fsmem_personamem on the official-format fixture: strict prefix visibility for every variant, one row
per (tier, variant), reuse of finished work, skipping an absent tier, and refusing a malformed contexts file."""

import re

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.errors import DataError
from tailmem.fsmem.variants import VARIANTS
from tailmem.studies.fsmem import personamem as stage


def _cfg(tmp_path, data, *overrides):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[
                f"results_dir={tmp_path / 'results'}",
                f"fsmem.personamem.data_dir={data}",
                "stage=fsmem_personamem",
                *overrides,
            ],
        )


def _table(tmp_path) -> pd.DataFrame:
    return pd.read_csv(tmp_path / "results" / "tables" / "fsmem_personamem.csv")


def test_no_question_sees_a_message_past_its_end_index(tmp_path, personamem_data, pm, monkeypatch):
    """Every variant's store (and, for chunk retrieval, the chunks it ranks) holds no message at or past the
    question's end index; and the verbatim store holds every message before it (the check is not vacuous)."""
    opened, checked = {}, []
    real = stage.search_harness

    def spy(variant, store, conv, fs):
        out = real(variant, store, conv, fs)
        opened[id(out[0])] = (variant, store, conv)
        return out

    real_choose = stage.choose_programmatic

    def choose(q, harness, conv):
        variant, store, conv_seen = opened[id(harness)]
        text = "\n".join(store.read(f) for f in store.files())
        seen = " ".join(t.text for s in conv_seen.sessions for t in s.turns)
        n = len(pm.contexts[q.context_id])
        for m in range(q.end_index + 1, n + 1):  # messages[end_index:] are numbers end_index+1 .. n
            word = pm.marker(q.context_id, m)
            assert not re.search(rf"\b{word}\b", text), f"{variant}: question {q.question_id} store holds message {m}"
            assert word not in seen, f"{variant}: question {q.question_id} harness conversation holds message {m}"
        if variant == "verbatim":
            assert all(pm.marker(q.context_id, m) in text for m in range(1, q.end_index + 1))
        if variant == "chunk_retrieval":
            assert all(pm.marker(q.context_id, m) in seen for m in range(1, q.end_index + 1))
        checked.append((variant, q.question_id))
        return real_choose(q, harness, conv)

    monkeypatch.setattr(stage, "search_harness", spy)
    monkeypatch.setattr(stage, "choose_programmatic", choose)
    stage.run(_cfg(tmp_path, personamem_data, "fsmem.personamem.block_messages=2", "fsmem.personamem.tiers=[32k]"))
    assert sorted(checked) == sorted((v, q[0]) for v in VARIANTS for q in pm.questions)


def test_stage_end_to_end(tmp_path, personamem_data, monkeypatch):
    stage.run(_cfg(tmp_path, personamem_data))
    df = _table(tmp_path)
    assert list(zip(df.tier, df.variant)) == [(t, v) for t in ("32k", "128k") for v in VARIANTS]
    ran = df[df.tier == "32k"]
    assert (ran.status == "ran").all() and (ran.answered == 7).all() and (ran.contexts == 2).all()
    assert ran.accuracy.between(0, 1).all() and ran["acc recall_user_shared_facts"].between(0, 1).all()
    assert (ran["stores"] == 7).all()  # one per (context, end index): ctx1 {3, 5, 7, 9}, ctx2 {3, 5, 7}
    row = ran.set_index("variant")
    assert row.loc["closed_book", "store files"] == 0 and row.loc["verbatim", "store files"] > 0
    assert row.loc["verbatim", "accuracy"] > row.loc["closed_book", "accuracy"]
    assert row.loc["agent_curated", "build tool calls"] > 0 and (ran["tool calls/q"] >= 0).all()
    assert (ran.searcher == "programmatic-searcher").all() and (ran.builder == "programmatic-builder").all()
    skipped = df[df.tier == "128k"]
    assert skipped.status.str.startswith("skipped: questions_128k.csv, shared_contexts_128k.jsonl absent").all()
    answers = tmp_path / "results" / "fsmem" / "personamem" / "32k" / "verbatim" / "answers" / "center" / "answers.json"
    assert answers.exists() and (answers.parents[2] / "contexts" / "ctx1" / "build.json").exists()

    # a re-run reuses every build and answer set: nothing is rebuilt or re-answered
    def refuse(*a, **k):
        raise AssertionError("rebuilt or re-answered")

    monkeypatch.setattr("tailmem.fsmem.personamem.build_variant", refuse)
    monkeypatch.setattr(stage, "search_harness", refuse)
    stage.run(_cfg(tmp_path, personamem_data))
    pd.testing.assert_frame_equal(_table(tmp_path), df)


def test_contexts_and_variants_keys(tmp_path, personamem_data):
    stage.run(
        _cfg(
            tmp_path,
            personamem_data,
            "fsmem.personamem.contexts=1",
            "fsmem.personamem.tiers=[32k]",
            "fsmem.personamem.variants=[verbatim,agent_curated]",
        )
    )
    df = _table(tmp_path)
    assert list(df.variant) == ["verbatim", "agent_curated"] and (df.answered == 4).all() and (df.contexts == 1).all()


def test_absent_contexts_file_is_reported_and_skipped(tmp_path, pm, caplog):
    data = pm.write(tmp_path / "data", with_contexts=False)
    stage.run(_cfg(tmp_path, data))
    df = _table(tmp_path)
    assert len(df) == 2 * len(VARIANTS) and (df.answered == 0).all()
    assert df[df.tier == "32k"].status.str.startswith("skipped: shared_contexts_32k.jsonl absent").all()
    md = (tmp_path / "results/tables/fsmem_personamem.md").read_text()
    assert "skipped: shared_contexts_32k.jsonl absent" in md and "skipped: questions_128k.csv" in md
    assert "shared_contexts_32k.jsonl" in caplog.text


def test_malformed_contexts_file_stops_the_stage(tmp_path, personamem_data):
    path = personamem_data / "shared_contexts_32k.jsonl"
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:-5] + "\n")
    with pytest.raises(DataError, match=r"shared_contexts_32k.jsonl: line 2: expected one JSON object"):
        stage.run(_cfg(tmp_path, personamem_data))


def test_unknown_variant_names_the_key(tmp_path, personamem_data):
    from tailmem.errors import ConfigError

    with pytest.raises(ConfigError, match="fsmem.personamem.variants"):
        stage.run(_cfg(tmp_path, personamem_data, "fsmem.personamem.variants=[nope]"))


def test_model_roles_through_the_loopback_server(tmp_path, personamem_data, monkeypatch):
    """With llm=openai (a scripted stand-in behind a loopback server) the builder writes the curated stores
    through tool calls, the searcher reads them and answers with a letter, and the row carries tokens and dollars."""
    import scripted_agent
    from llm_testkit import FakeServer

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeServer(agent=scripted_agent.agent) as server:
        stage.run(
            _cfg(
                tmp_path,
                personamem_data,
                "llm=openai",
                f"llm.base_url={server.base_url}",
                f"llm.cache_path={tmp_path}/llm_cache.sqlite",
                "llm.retries=1",
                "llm.backoff_s=0.01",
                "+llm.prices.default={input:1.0,cached_input:0.1,output:4.0}",
                "fsmem.personamem.tiers=[32k]",
                "fsmem.personamem.variants=[closed_book,chunk_retrieval,verbatim,agent_curated]",
            )
        )
    df = _table(tmp_path).set_index("variant")
    assert (df.status == "ran").all() and (df.answered == 7).all() and df.accuracy.between(0, 1).all()
    assert (df["tokens/q"] > 0).all() and (df["cents/q"] > 0).all()
    assert df.loc["agent_curated", "store files"] > 0 and df.loc["agent_curated", "build tokens"] > 0
    assert df.loc["verbatim", "accuracy"] > 0 and set(df.searcher) == {"gpt-5.4-mini"}


def _skipped_table(tmp_path, name: str, pm, *overrides) -> pd.DataFrame:
    """The table of a run whose data folder `<tmp>/<name>/data` holds no shared contexts (every tier skipped)."""
    root = tmp_path / name
    pm.write(root / "data" / "personamem", with_contexts=False)
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        cfg = compose(
            config_name="config",
            overrides=[
                f"results_dir={root / 'results'}",
                f"data_dir={root / 'data'}",
                "stage=fsmem_personamem",
                *overrides,
            ],
        )
    stage.run(cfg)
    return pd.read_csv(root / "results" / "tables" / "fsmem_personamem.csv")


def test_skipped_status_is_the_same_on_any_machine(tmp_path, pm):
    """Issue 30: the skipped status named the machine's absolute data folder, so one run's table differed between
    machines. Two data folders give the same table; the cell names the folder relative to `data_dir`."""
    a, b = _skipped_table(tmp_path, "machine_a", pm), _skipped_table(tmp_path, "machine_b", pm)
    pd.testing.assert_frame_equal(a, b)
    assert (a.status.str.endswith("absent from <data_dir>/personamem")).all()
    assert not a.status.str.contains(str(tmp_path)).any()


def test_skipped_status_outside_data_dir_names_the_key(tmp_path, pm):
    """A personamem folder outside `data_dir` is named by its config key, not by the machine's path."""
    elsewhere = pm.write(tmp_path / "elsewhere", with_contexts=False)
    df = _skipped_table(tmp_path, "machine_a", pm, f"fsmem.personamem.data_dir={elsewhere}")
    assert (df.status.str.endswith("absent from fsmem.personamem.data_dir")).all()
