"""The LoCoMo stages end to end on a few questions, into tmp_path, offline."""

from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.records.fsmem import FsmemAnswers, FsmemBuild
from tailmem.studies.fsmem import locomo

DATA = Path("/work/shared/data")


def cfg_for(tmp_path, variant, **extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        over = [
            f"results_dir={tmp_path}",
            f"fsmem.variant={variant}",
            "fsmem.max_questions=4",
            "fsmem.variants=[closed_book,verbatim,agent_curated]",
            "stage=fsmem_build",
        ]
        if not (Path(config_dir()).parent / "../shared/data").exists():
            over.append(f"data_dir={DATA}")
        return compose(config_name="config", overrides=over + [f"{k}={v}" for k, v in extra.items()])


@pytest.mark.slow
def test_locomo_end_to_end(tmp_path):
    for v in ("closed_book", "verbatim", "agent_curated"):
        cfg = cfg_for(tmp_path, v, **{"data_dir": DATA})
        locomo.build(cfg)
        locomo.answer(cfg)
    cfg = cfg_for(tmp_path, "verbatim", **{"data_dir": DATA})
    locomo.table(cfg)
    base = tmp_path / "fsmem/locomo/conv-50/programmatic"
    built = FsmemBuild.read(base / "agent_curated/build.json")
    assert built.agent == "programmatic-builder" and built.store["files"] > 2
    assert len(list((base / "agent_curated/snapshots/manifests").glob("chunk_*.json"))) == 85
    rows = FsmemAnswers.read(base / "verbatim/answers/center/programmatic/answers.json").rows
    assert len(rows) == 4 and rows[0]["searcher"] == "programmatic-searcher" and rows[0]["search_tool_calls"] > 0
    md = (tmp_path / "tables/locomo_conv-50.md").read_text()
    assert "agent_curated" in md and "F1 2 temporal" in md
    assert (base / "verbatim/config.yaml").exists() and (
        base / "verbatim/answers/center/programmatic/meta.json"
    ).exists()


@pytest.mark.slow
def test_answers_record_what_each_call_returned_and_readers_use_it(tmp_path, monkeypatch):
    """Issue 18 (the site replayed every search, 7.7 min of the default DAG): an answer set keeps each distinct
    call's output beside it. The recorded text equals a fresh replay through the variant's harness over the same
    store; the evidence columns come out the same from either; the site's pages read the record and build no
    harness; a record whose bytes are not the ones answers.json names is ignored (the calls are replayed)."""
    import pandas as pd

    from tailmem.fsmem import tool_outputs
    from tailmem.fsmem.benchmarks import conversation
    from tailmem.fsmem.store import Store
    from tailmem.fsmem.variants import search_harness
    from tailmem.studies.fsmem import site as site_fsmem

    for v in ("closed_book", "verbatim", "agent_curated"):
        cfg = cfg_for(tmp_path, v, **{"data_dir": DATA})
        locomo.build(cfg)
        locomo.answer(cfg)
    cfg = cfg_for(tmp_path, "verbatim", **{"data_dir": DATA})
    variant = tmp_path / "fsmem/locomo/conv-50/programmatic/verbatim"
    folder = variant / "answers/center/programmatic"
    data = FsmemAnswers.read(folder / "answers.json")
    recorded = tool_outputs.read(folder, data.tool_outputs)
    calls = {tool_outputs.call_key(n, a): (n, a, ok) for r in data.rows for n, a, ok in r["search_trace"]}
    assert recorded is not None and set(recorded) == set(calls) and len(calls) >= 4
    conv = conversation(cfg.fsmem, "locomo", "conv-50")
    harness = search_harness("verbatim", Store(variant / "store"), conv, cfg.fsmem)[0]
    try:
        for key, (name, args, ok) in calls.items():
            got = harness.call(name, args)
            assert recorded[key] == (got.ok, got.output) and got.ok == ok
    finally:
        harness.close()

    locomo.table(cfg)
    with_record = pd.read_csv(tmp_path / "tables/locomo_conv-50.csv")
    for v in ("closed_book", "verbatim", "agent_curated"):
        (variant.parent / v / "answers/center/programmatic" / tool_outputs.FILE).unlink()
    locomo.table(cfg)
    assert with_record.equals(pd.read_csv(tmp_path / "tables/locomo_conv-50.csv"))
    assert "evidence" in " ".join(with_record.columns)

    locomo.answer(cfg)  # the record again, then the site reads it without a harness
    data = FsmemAnswers.read(folder / "answers.json").to_json()  # the site's view of a LoCoMo-shaped set

    def no_harness(*a, **k):
        raise AssertionError("the site rebuilt a harness for a set whose outputs were recorded")

    monkeypatch.setattr("tailmem.fsmem.variants.search_harness", no_harness)
    replayer = site_fsmem._Replayer(variant, data, cfg, folder)
    assert replayer.ready and replayer.source == "recorded"
    name, args, _ = data["rows"][0]["search_trace"][0]
    assert replayer.output(name, args) == recorded[tool_outputs.call_key(name, args)]
    (folder / tool_outputs.FILE).write_bytes(b"not the recorded bytes")
    assert tool_outputs.read(folder, data["tool_outputs"]) is None
    assert site_fsmem._Replayer(variant, data, cfg, folder).reason.startswith("outputs not recovered")
