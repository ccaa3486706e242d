"""The LoCoMo stages end to end on a few questions, into tmp_path, offline."""

from pathlib import Path

from hydra import compose, initialize_config_dir

from tailmem.artifacts import read_json
from tailmem.cli import config_dir
from tailmem.stages import locomo

DATA = Path("/work/shared/data")


def cfg_for(tmp_path, variant, **extra):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        over = [f"results_dir={tmp_path}", f"fsmem.variant={variant}", "fsmem.max_questions=4",
                "fsmem.variants=[closed_book,verbatim,agent_curated]", "stage=fsmem_build"]
        if not (Path(config_dir()).parent / "../shared/data").exists():
            over.append(f"data_dir={DATA}")
        return compose(config_name="config", overrides=over + [f"{k}={v}" for k, v in extra.items()])


def test_locomo_end_to_end(tmp_path):
    for v in ("closed_book", "verbatim", "agent_curated"):
        cfg = cfg_for(tmp_path, v, **{"data_dir": DATA})
        locomo.build(cfg)
        locomo.answer(cfg)
    cfg = cfg_for(tmp_path, "verbatim", **{"data_dir": DATA})
    locomo.table(cfg)
    base = tmp_path / "fsmem/locomo/conv-50/programmatic"
    built = read_json(base / "agent_curated/build.json")
    assert built["agent"] == "programmatic-builder" and built["store"]["files"] > 2
    assert len(list((base / "agent_curated/snapshots/manifests").glob("chunk_*.json"))) == 85
    rows = read_json(base / "verbatim/answers/center/programmatic/answers.json")["rows"]
    assert len(rows) == 4 and rows[0]["searcher"] == "programmatic-searcher" and rows[0]["search_tool_calls"] > 0
    md = (tmp_path / "tables/locomo_conv-50.md").read_text()
    assert "agent_curated" in md and "F1 2 temporal" in md
    assert (base / "verbatim/config.yaml").exists() and (base / "verbatim/answers/center/programmatic/meta.json").exists()
