"""Where every filesystem-memory artifact lives, in one place, so the stages and the Snakemake rules agree.

    <results>/fsmem/<benchmark>/<conv>/<variant>/{store/, snapshots/, build.json}
    <results>/fsmem/<benchmark>/<conv>/<variant>/answers/<harness>/answers.json
    <results>/fsmem/strength/<benchmark>/<conv>/<builder>/<variant>/...            (RQ3: one store per builder)
    <results>/fsmem/strength/<benchmark>/<conv>/<builder>/<variant>/answers/<harness>/<searcher>/answers.json
"""

from __future__ import annotations

from pathlib import Path

BUILD_FILE = "build.json"
ANSWERS_FILE = "answers.json"


def variant_dir(results: str | Path, benchmark: str, conv: str, variant: str) -> Path:
    return Path(results) / "fsmem" / benchmark / conv / variant


def answers_dir(vdir: str | Path, harness: str, searcher: str | None = None) -> Path:
    base = Path(vdir) / "answers" / harness
    return base / searcher if searcher else base


def strength_dir(results: str | Path, benchmark: str, conv: str, builder: str, variant: str) -> Path:
    return Path(results) / "fsmem" / "strength" / benchmark / conv / builder / variant
