"""Derived seeds: one independent, reproducible random stream per purpose from the run's single `seed`.

Tags are names ("graph", "texts", "walk", ...), so adding a new stream never shifts an existing one.
"""

from __future__ import annotations

import zlib

import numpy as np


def derive_seed(seed: int, *tags: str | int) -> int:
    """A 32-bit seed for the stream named by `tags` under the run seed `seed` (stable across platforms)."""
    words = [int(seed)] + [zlib.crc32(t.encode()) if isinstance(t, str) else int(t) for t in tags]
    return int(np.random.SeedSequence(words).generate_state(1, dtype=np.uint32)[0])


def derive_rng(seed: int, *tags: str | int) -> np.random.Generator:
    """A numpy Generator for the stream named by `tags`."""
    return np.random.default_rng(derive_seed(seed, *tags))
