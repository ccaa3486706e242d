"""Where every filesystem-memory artifact lives, in one place, so the stages and the Snakemake rules agree.

    <results>/fsmem/<benchmark>/<conv>/<variant>/{store/, snapshots/, build.json}
    <results>/fsmem/<benchmark>/<conv>/<variant>/answers/<harness>/answers.json
    <results>/fsmem/strength/<benchmark>/<conv>/<builder>/<variant>/...            (RQ3: one store per builder)
    <results>/fsmem/strength/<benchmark>/<conv>/<builder>/<variant>/answers/<harness>/<searcher>/answers.json
    <results>/fsmem/harness/<benchmark>/<conv>/<harness>/<variant>/...                (RQ5: built through <harness>)
    <results>/fsmem/harness/<benchmark>/<conv>/<harness>/<variant>/answers/<harness>/answers.json
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


def harness_dir(results: str | Path, benchmark: str, conv: str, harness: str, variant: str) -> Path:
    return Path(results) / "fsmem" / "harness" / benchmark / conv / harness / variant


def harness_build_dir(results: str | Path, benchmark: str, conv: str, harness: str, variant: str,
                      main_harness: str = "center") -> Path:
    """RQ5: the store built through `harness`; the main build's own harness reuses the main store."""
    if harness == main_harness:
        return variant_dir(results, benchmark, conv, variant)
    return harness_dir(results, benchmark, conv, harness, variant)
