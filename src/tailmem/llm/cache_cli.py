"""`python -m tailmem cache stats [--db PATH] [overrides...]`: hits, misses, tokens and dollars per role and stage.

`sent` is the number of HTTP requests really sent (retries and failed requests included): what was paid for.
`short` counts answers billed far fewer prompt tokens than the client sent (the server dropped part of the prompt).

Without --db the cache is the one `llm.cache_path` names in the composed config (Hydra overrides apply).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tailmem.errors import LLMError


def _default_db(overrides: list[str]) -> Path:
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir
    from tailmem.llm.settings import read_settings

    with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    return read_settings(cfg).cache_path


def table(rows) -> str:
    head = ("role", "stage", "hits", "misses", "sent", "short", "calls", "prompt", "cached", "output", "dollars")
    keys = ("hits", "misses", "sent", "short_prompts", "calls", "prompt_tokens", "cached_tokens", "completion_tokens")
    body = [(r.role, r.stage, *(getattr(r, k) for k in keys), f"{r.dollars:.4f}") for r in rows]
    if rows:
        body.append(
            ("total", "", *(sum(getattr(r, k) for r in rows) for k in keys), f"{sum(r.dollars for r in rows):.4f}")
        )
    cells = [head, *[tuple(str(c) for c in row) for row in body]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(head))]
    return "\n".join(
        "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in cells
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tailmem cache", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["stats"])
    parser.add_argument("--db", type=Path, help="the cache file (default: llm.cache_path of the config)")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides used to find llm.cache_path")
    args = parser.parse_args(argv)
    db = args.db or _default_db(args.overrides)
    if not db.exists():
        raise LLMError(f"no call cache at {db} (llm.cache_path); nothing has been recorded yet")
    from tailmem.llm.cache import CallCache

    print(f"call cache {db}")
    print(table(CallCache(db).stats()))
    return 0
