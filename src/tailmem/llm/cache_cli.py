"""`python -m tailmem cache stats|merge [--db PATH] [overrides...]`: hits, misses, tokens, seconds and dollars per
role and stage; `merge` folds a sharded cache (`llm.cache_layout=shards`: a folder of per-process files) into the one
SQLite file `llm.cache_path` names, for the tools that read that file (the site's transcripts, `llm_cost`).

`sent` is the number of HTTP requests really sent (retries and failed requests included): what was paid for.
`short` counts answers billed far fewer prompt tokens than the client sent (the server dropped part of the prompt).

Without --db the caches are those a workflow run with the same overrides records: the one `llm.cache_path` names
in the composed config (Hydra overrides apply: `scale=smoke`...) and, where the scale nests a model slice
(`scale.model_slice`), the slice's, composed as the Snakefile composes it (the same overrides at the slice's scale,
whose `results_dir` is its own: results/model/ for the default scale). Each is read as its config's layout says (its
`.shards` folder for `shards`); a --db that is a folder is read as a sharded cache.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import LLMError


@dataclass(frozen=True)
class RunCache:
    """One call cache a workflow run records: which part of the run, its file, its layout (file | shards)."""

    what: str
    path: Path
    layout: str

    @property
    def location(self) -> Path:
        """What holds its calls: the file, or the folder of a sharded cache (--db may name that folder itself)."""
        from tailmem.llm.cache_shards import shards_dir

        if self.layout == "file" or self.path.is_dir():
            return self.path
        return shards_dir(self.path)

    def stats(self):
        """Its StageStats rows, read by the class of its layout."""
        from tailmem.llm.cache import CallCache
        from tailmem.llm.cache_shards import ShardedCallCache

        return (ShardedCallCache if self.layout == "shards" else CallCache)(self.location).stats()


def _compose(overrides: list[str]):
    from hydra import compose, initialize_config_dir

    from tailmem.configs import config_dir

    with initialize_config_dir(config_dir=str(config_dir()), version_base="1.3"):
        return compose("config", overrides=overrides)


def _cache_of(cfg, what: str) -> RunCache:
    from tailmem.llm.group import settings
    from tailmem.settings.llm import cache_path

    llm = settings(cfg)
    return RunCache(what, cache_path(llm), llm.cache_layout)


def run_caches(overrides: list[str]) -> list[RunCache]:
    """The call caches a workflow run with `overrides` records: its scale's, then its model slice's (if the scale
    nests one), without repeats (an override of llm.cache_path puts both in one file)."""
    cfg = _compose(overrides)
    found = [_cache_of(cfg, f"scale {cfg.scale.name}")]
    nested = cfg.scale.get("model_slice")
    if nested:
        rest = [o for o in overrides if not o.lstrip("+").startswith("scale=")]
        found.append(_cache_of(_compose([*rest, f"scale={nested}"]), f"its model slice, scale {nested}"))
    return list({c.path: c for c in found}.values())


def given_cache(db: Path) -> RunCache:
    """The cache --db names: a file, or a folder read as a sharded cache."""
    return RunCache("--db", db, "shards" if db.is_dir() else "file")


def recorded(caches: list[RunCache]) -> list[RunCache]:
    """The caches that hold calls; an error naming every place looked when none does."""
    there = [c for c in caches if c.location.exists()]
    if not there:
        looked = ", ".join(f"{c.location} ({c.what})" for c in caches)
        raise LLMError(f"no call cache at {looked} (llm.cache_path); nothing has been recorded yet")
    return there


def table(rows) -> str:
    head = tuple("role stage hits misses sent short calls prompt cached output seconds dollars".split())
    keys = ("hits", "misses", "sent", "short_prompts", "calls", "prompt_tokens", "cached_tokens", "completion_tokens")
    body = [(r.role, r.stage, *(getattr(r, k) for k in keys), f"{r.seconds:.1f}", f"{r.dollars:.4f}") for r in rows]
    if rows:
        seconds, dollars = sum(r.seconds for r in rows), sum(r.dollars for r in rows)
        body.append(
            ("total", "", *(sum(getattr(r, k) for r in rows) for k in keys), f"{seconds:.1f}", f"{dollars:.4f}")
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
        "--db", type=Path, help="the cache file or shard folder (default: every cache of the run: llm.cache_path)"
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of the run (scale=smoke...)")
    args = parser.parse_args(argv)
    from tailmem.llm.cache_shards import ShardedCallCache, shards_dir

    caches = [given_cache(args.db)] if args.db else run_caches(args.overrides)
    if args.action == "merge":
        folders = [(c, c.path if c.path.is_dir() else shards_dir(c.path)) for c in caches]
        folders = [(c, f) for c, f in folders if f.is_dir()]
        if not folders:
            looked = ", ".join(str(shards_dir(c.path)) for c in caches)
            raise LLMError(f"no sharded call cache at {looked} (llm.cache_layout=shards); nothing to merge")
        for c, folder in folders:
            target = c.path.with_suffix(".sqlite") if c.path.is_dir() else c.path
            added = ShardedCallCache(folder).merge_into(target)
            print(f"merged {folder} into {target}: {added} calls added")
        return 0
    there = recorded(caches)
    for c in caches:
        if c not in there:
            print(f"call cache {c.location} ({c.what}): nothing recorded\n")
    for c in there:
        print(f"call cache {c.location}" + ("" if c.what == "--db" else f" ({c.what})"))
        print(table(c.stats()) + "\n")
    return 0
