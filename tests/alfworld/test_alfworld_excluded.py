"""The games left out of every split (tailmem.studies.alfworld.play.games.EXCLUDED) really are games the seeded
expert cannot win. Its own file so that pytest-xdist runs it beside the ALFWorld determinism test (about 50 s each)."""

import pytest

pytest.importorskip("alfworld")
pytest.importorskip("textworld")

from tailmem.studies.alfworld.play import regenerate as R  # noqa: E402
from tailmem.studies.alfworld.play.games import EXCLUDED, manifest  # noqa: E402


@pytest.mark.slow
def test_excluded_games_fail_the_expert(data_dir, tmp_path, repo_root):
    """Each excluded game really is one the expert cannot win in its seeded attempts."""
    from omegaconf import OmegaConf

    from tailmem.studies.alfworld.play import speedup

    seed = OmegaConf.load(repo_root / "configs" / "alfworld" / "default.yaml").regenerate.seed
    speedup.install()
    root = data_dir / "alfworld"
    by_key = {g.key: g for g in manifest(root)}
    domain, grammar = R.installed_logic()
    for key in EXCLUDED:
        rec = R.regenerate(by_key[key], root / "json_2.1.1", tmp_path, domain, grammar, seed)
        assert not rec.ok and f"did not win in {R.EXPERT_ATTEMPTS} seeded attempts" in rec.error, (key, rec)
