"""Issue 18: `alfworld_games` regenerates its games on the job's cores (`threads: 2`, passed as $TAILMEM_WORKERS).
Each game is seeded by its own key, so two workers write the same game files and manifest rows as one."""

from pathlib import Path

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from hydra import compose, initialize_config_dir  # noqa: E402

from tailmem.configs import config_dir  # noqa: E402
from tailmem.errors import ConfigError  # noqa: E402
from tailmem.records.alfworld import AlfworldGames
from tailmem.studies.alfworld import games as S  # noqa: E402

GAMES = [
    "pick_and_place_simple-Book-None-SideTable-329/trial_T20190908_050633_745514",
    "look_at_obj_in_light-AlarmClock-None-DeskLamp-323/trial_T20190909_044715_250790",
    "pick_cool_then_place_in_recep-Apple-None-CounterTop-14/trial_T20190909_044933_815840",
]


def _regenerate(root: Path, data_dir: Path, workers: str, monkeypatch) -> tuple[dict, dict]:
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        cfg = compose(
            config_name="config",
            overrides=[
                f"results_dir={root}",
                f"data_dir={data_dir}",
                "alfworld.subset=smoke",
                "stage=alfworld_games",
                f"alfworld.smoke_games=[{','.join(GAMES)}]",
            ],
        )
    monkeypatch.setenv(S.WORKERS_ENV, workers)
    S.regenerate_games(cfg)
    manifest = AlfworldGames.read(S.manifest_path(cfg, "smoke"))
    files = {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(S.games_dir(cfg, "valid_seen").rglob("*"))
        if p.is_file()
    }
    rows = [{k: v for k, v in r.items() if k != "collected"} for r in manifest.games]
    return {"rows": rows, "n": manifest.n, "ok": manifest.ok}, files


@pytest.mark.slow
def test_two_workers_regenerate_the_same_games_as_one(tmp_path, data_dir, monkeypatch):
    one, one_files = _regenerate(tmp_path / "one", data_dir, "1", monkeypatch)
    two, two_files = _regenerate(tmp_path / "two", data_dir, "2", monkeypatch)
    assert one["ok"] == one["n"] == len(GAMES)
    assert [r["id"] for r in one["rows"]] == GAMES  # the manifest keeps the subset's order
    assert two == one
    assert two_files == one_files and len(one_files) >= 3 * len(GAMES)


def test_a_bad_worker_count_is_a_config_error(monkeypatch):
    monkeypatch.setenv(S.WORKERS_ENV, "two")
    with pytest.raises(ConfigError, match="TAILMEM_WORKERS"):
        S.job_workers()
    monkeypatch.setenv(S.WORKERS_ENV, "0")
    with pytest.raises(ConfigError, match="TAILMEM_WORKERS"):
        S.job_workers()
