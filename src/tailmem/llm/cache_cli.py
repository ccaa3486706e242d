"""`python -m tailmem cache stats|merge [--db PATH] [overrides...]`: hits, misses, tokens and dollars per role and
stage; `merge` folds a sharded cache (`llm.cache_layout=shards`: a folder of per-process files) into the one SQLite
file `llm.cache_path` names, for the tools that read that file (the site's transcripts, `llm_cost`).

`sent` is the number of HTTP requests really sent (retries and failed requests included): what was paid for.
`short` counts answers billed far fewer prompt tokens than the client sent (the server dropped part of the prompt).

Without --db the cache is the one `llm.cache_path` names in the composed config (Hydra overrides apply), or its
`.shards` folder when the config's layout is `shards`; a --db that is a folder is read as a sharded cache.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tailmem.errors import LLMError


def _default_db(overrides: list[str]) -> tuple[Path, str]:
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir
    from tailmem.llm.settings import settings
    from tailmem.settings.llm import cache_path

    with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    llm = settings(cfg)
    return cache_path(llm), llm.cache_layout


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
    parser.add_argument("action", choices=["stats", "merge"])
    parser.add_argument(
        "--db", type=Path, help="the cache file or shard folder (default: llm.cache_path of the config)"
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides used to find llm.cache_path")
    args = parser.parse_args(argv)
    from tailmem.llm.cache import CallCache
    from tailmem.llm.cache_shards import ShardedCallCache, shards_dir

    db, layout = (args.db, "shards" if args.db.is_dir() else "file") if args.db else _default_db(args.overrides)
    folder = db if db.is_dir() else shards_dir(db)
    if args.action == "merge":
        if not folder.is_dir():
            raise LLMError(f"no sharded call cache at {folder} (llm.cache_layout=shards); nothing to merge")
        target = db.with_suffix(".sqlite") if db.is_dir() else db
        added = ShardedCallCache(folder).merge_into(target)
        print(f"merged {folder} into {target}: {added} calls added")
        return 0
    path = folder if layout == "shards" else db
    if not path.exists():
        raise LLMError(f"no call cache at {path} (llm.cache_path); nothing has been recorded yet")
    print(f"call cache {path}")
    print(table((ShardedCallCache(path) if layout == "shards" else CallCache(path)).stats()))
    return 0
