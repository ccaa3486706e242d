"""One fixture site for the site tests, built once per session from sitekit's results tree."""

import pytest
from sitekit import make_results

from tailmem.site_build import build_site


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory, data_dir):
    root = tmp_path_factory.mktemp("site_fixture")
    results, figures, cfg = make_results(root, data_dir)
    out = results / "site"
    record = build_site(
        results,
        figures,
        out,
        scale="fixture",
        cache_path=results / "llm_cache.sqlite",
        cfg=cfg,
        site_provenance={"commit": "abc123def456", "dirty": False, "digest": "feedfacefeedface"},
    )
    return out, record, (results, figures, cfg)
