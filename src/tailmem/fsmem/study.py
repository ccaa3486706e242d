"""Which runs each study of issue 6 reads, enumerated from the config, so the Snakemake rules that make the
artifacts and the table stages that read them can never disagree.

A run is (benchmark, conversation, variant, harness, builder, searcher, build folder, answers folder, build harness).
RQ1/RQ2: every `fsmem.study.variants` store of every conversation, built through `fsmem.build_harness` (center)
and searched with `center`.
RQ5: `fsmem.study.harness_variants` on the first `harness_conversations` conversations, each built AND searched
through every harness of `fsmem.study.harnesses` (null: all of `tailmem.fsmem.harnesses`; paper 2: the harness
is one factor, both roles); the main build's harness reuses the main store (`paths.harness_build_dir`).
RQ3: the strength grid, one store per builder model and one answer set per searcher model; a role whose
backend is programmatic contributes the single label `programmatic`.
Replicates (issue 15): `fsmem.study.replicates.variant` built `count` times with sampling seeds 0..count-1 on the
first `conversations` conversations, each searched with `harness`; replicate 0 is the main store.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tailmem.errors import ConfigError
from tailmem.fsmem.benchmarks import conversation_ids
from tailmem.fsmem.harnesses import MAIN_HARNESS, study_harnesses
from tailmem.fsmem.variants import build_harness_name
from tailmem.paths import (
    ANSWERS_FILE,
    BUILD_FILE,
    PROGRAMMATIC,
    SERVED_SUFFIX,
    answers_dir,
    harness_build_dir,
    replicate_dir,
    role_label,
    strength_dir,
    variant_dir,
)
from tailmem.settings.stage import composed


@dataclass(frozen=True)
class Run:
    benchmark: str
    conversation: str
    variant: str
    harness: str
    builder: str  # model name, or "programmatic"
    searcher: str
    build_dir: Path
    answers_dir: Path
    build_harness: str = MAIN_HARNESS  # the tool set the store was built with
    replicate: int = 0  # the builder's sampling seed (fsmem.replicate)

    @property
    def build_file(self) -> Path:
        return self.build_dir / BUILD_FILE

    @property
    def answers_file(self) -> Path:
        return self.answers_dir / ANSWERS_FILE


def _role_models(cfg, role: str, models) -> list[str]:
    """The grid's labels for `role`: each model as role_label names it (a served model's with SERVED_SUFFIX, so the
    grid's folders are apart from the embedded run's and the main store is still recognised as the main one)."""
    cfg = composed(cfg)  # the DAG's config or a stage's: the same answer for both
    backend = cfg.llm.roles[role].backend if cfg.get("llm") and role in cfg.llm.roles else PROGRAMMATIC
    if backend == PROGRAMMATIC:
        return [PROGRAMMATIC]
    suffix = SERVED_SUFFIX if role_label(cfg, role).endswith(SERVED_SUFFIX) else ""
    return [f"{m}{suffix}" for m in models]


def grid_model(label: str) -> str:
    """The model a grid label names (the label without SERVED_SUFFIX), for the job's llm.roles.<role>.model."""
    return label.removesuffix(SERVED_SUFFIX)


def _label(cfg, role: str) -> str:
    return role_label(cfg, role)


def main_build_harness(cfg) -> str:
    """The harness the main stores are built through (`fsmem.build_harness`, default `harnesses.MAIN_HARNESS`)."""
    return build_harness_name(cfg.fsmem)


def check_strength_prices(cfg) -> None:
    """Every model of the RQ3 grid has a price before its first job runs, so the grid cannot fail half-way."""
    s = cfg.fsmem.study.strength
    for role, models in (("builder", s.builders), ("searcher", s.searchers)):
        _check_priced(cfg, role, models)


def _check_priced(cfg, role: str, models) -> None:
    if _role_models(cfg, role, models) == [PROGRAMMATIC] or composed(cfg).llm.roles[role].backend != "openai":
        return  # programmatic agents and the embedded model cost nothing
    from tailmem.llm.settings import read_settings

    settings = read_settings(cfg)
    for m in models:
        try:
            settings.price(str(m))
        except ConfigError as exc:
            raise ConfigError(
                f"fsmem.study.strength.{role}s: {exc}; give its price in llm.prices or in a "
                f"llm.prices_file (docs/llm.md)"
            ) from exc


def main_runs(cfg) -> list[Run]:
    st, out = cfg.fsmem.study, []
    for bench in st.benchmarks:
        for conv in conversation_ids(cfg.fsmem, bench):
            for variant in st.variants:
                b, q = _label(cfg, "builder"), _label(cfg, "searcher")
                vdir = variant_dir(cfg.results_dir, bench, conv, variant, b)
                out.append(
                    Run(
                        bench,
                        conv,
                        variant,
                        MAIN_HARNESS,
                        b,
                        q,
                        vdir,
                        answers_dir(vdir, MAIN_HARNESS, q),
                        main_build_harness(cfg),
                    )
                )
    return out


def harness_runs(cfg) -> list[Run]:
    st, out = cfg.fsmem.study, []
    main = main_build_harness(cfg)
    for bench in st.harness_benchmarks:
        for conv in conversation_ids(cfg.fsmem, bench)[: int(st.harness_conversations)]:
            for variant in st.harness_variants:
                for harness in study_harnesses(st.harnesses):
                    b, q = _label(cfg, "builder"), _label(cfg, "searcher")
                    bdir = harness_build_dir(cfg.results_dir, bench, conv, harness, variant, main, b)
                    out.append(Run(bench, conv, variant, harness, b, q, bdir, answers_dir(bdir, harness, q), harness))
    return out


def strength_runs(cfg) -> list[Run]:
    s, out = cfg.fsmem.study.strength, []
    conv = conversation_ids(cfg.fsmem, s.benchmark)[0]
    main_builder = _label(cfg, "builder")
    for b in _role_models(cfg, "builder", s.builders):
        bdir = strength_dir(cfg.results_dir, s.benchmark, conv, b, s.variant)
        if b == main_builder != PROGRAMMATIC and s.variant in cfg.fsmem.study.variants:
            bdir = variant_dir(cfg.results_dir, s.benchmark, conv, s.variant, b)  # the main store: built once
        for q in _role_models(cfg, "searcher", s.searchers):
            out.append(
                Run(
                    s.benchmark,
                    conv,
                    s.variant,
                    s.harness,
                    b,
                    q,
                    bdir,
                    answers_dir(bdir, s.harness, q),
                    main_build_harness(cfg),
                )
            )
    return out


def replicate_runs(cfg) -> list[Run]:
    """The replicate builds: replicate 0 is the main run's store, replicates 1.. their own folders."""
    rep, out = cfg.fsmem.study.replicates, []
    b, q = _label(cfg, "builder"), _label(cfg, "searcher")
    for conv in conversation_ids(cfg.fsmem, rep.benchmark)[: int(rep.conversations)]:
        for r in range(int(rep.count)):
            bdir = replicate_dir(cfg.results_dir, rep.benchmark, conv, rep.variant, r, b)
            out.append(
                Run(
                    rep.benchmark,
                    conv,
                    rep.variant,
                    rep.harness,
                    b,
                    q,
                    bdir,
                    answers_dir(bdir, rep.harness, q),
                    main_build_harness(cfg),
                    r,
                )
            )
    return out


def all_runs(cfg) -> list[Run]:
    """Every distinct answer set of the studies (RQ1/2, RQ5, RQ3, replicates), without duplicates."""
    seen, out = set(), []
    for r in main_runs(cfg) + harness_runs(cfg) + strength_runs(cfg) + replicate_runs(cfg):
        if r.answers_file not in seen:
            seen.add(r.answers_file)
            out.append(r)
    return out
