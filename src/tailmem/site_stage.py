"""Stage `site`: the static website of one scale's results, under `<results>/site/` by default.

It reads every artifact the DAG wrote (tables, figures, answers, LongMemEval rows, control steps, ALFWorld cells and
the LLM call cache for transcripts) and writes only its own folder; `site.json` inside it gives the page count, the
size and the build time."""

from __future__ import annotations

import logging
from pathlib import Path

from tailmem.paths import out_dir
from tailmem.provenance import code_state
from tailmem.settings.stage_settings import StageSettings
from tailmem.stage import Stage, declare, typed_stage

log = logging.getLogger("tailmem")

# The one stage above the studies: the run's website shows every study's tables and pages.
STAGES = declare(Stage("site", "tailmem.site_stage:run", ("scale", "llm")))


@typed_stage("site")
def run(cfg: StageSettings) -> None:
    from tailmem.llm.group import settings
    from tailmem.settings.llm import cache_path
    from tailmem.site_build import build_site

    results = Path(cfg.results_dir)
    out = out_dir(cfg, results / "site")
    try:
        cache = cache_path(settings(cfg))
    except Exception:  # noqa: BLE001 - without a readable llm group there are no transcripts to find
        cache = None
    code = code_state()
    record = build_site(
        results,
        Path(cfg.figures_dir),
        out,
        scale=str(cfg.scale.name),
        cache_path=cache,
        cfg=cfg,
        site_provenance={
            "commit": (code.get("commit") or "unknown")[:12],
            "dirty": code.get("dirty"),
            "digest": STAGES["site"].config_digest(cfg.composed),
        },
    )
    log.info(
        "site: %d pages, %.1f MB in %.1f s -> %s/index.html",
        record["pages"],
        record["bytes"] / 1e6,
        record["seconds"],
        out,
    )
