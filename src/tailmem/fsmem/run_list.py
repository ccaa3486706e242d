"""The filesystem-memory study's run list: which runs each research question (RQ1-RQ5) reads, enumerated from the
config, so the Snakemake rules that make the artifacts and the table stages that read them can never disagree.

A run is (benchmark, conversation, variant, harness, builder, searcher, build folder, answers folder, build harness).
RQ1/RQ2: every `fsmem.study.variants` store of every conversation, built through `fsmem.build_harness` (center)
and searched with `center`.
RQ5: `fsmem.study.harness_variants` on the first `harness_conversations` conversations, each built AND searched
through every harness of `fsmem.study.harnesses` (null: all of `tailmem.fsmem.harnesses`; paper 2: the harness
is one factor, both roles); the main build's harness reuses the main store (`paths.harness_build_dir`).
RQ3: the strength grid, one store per builder model and one answer set per searcher model; a role whose
backend is programmatic contributes the single label `programmatic`.
Replicates: `fsmem.study.replicates.variant` built `count` times with sampling seeds 0..count-1 on the
first `conversations` conversations, each searched with `harness`; replicate 0 is the main store.

Every function here takes the composed config: the DAG's, or the one a stage's settings came from (`composed`),
so a stage and the rules that scheduled it read the same keys the same way.
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
    answers_dir,
    harness_build_dir,
    replicate_dir,
    role_label,
    strength_dir,
    variant_dir,
)
from tailmem.roles import (
    BUILDER,
    PROGRAMMATIC,
    SEARCHER,
    SERVED_SUFFIX,
    configured_backend,
    configured_served,
    model_free,
)


@dataclass(frozen=True)
class Run:
    benchmark: str
    conversation: str
    variant: str
    harness: str
    builder: str  # model name, or `programmatic` (roles.PROGRAMMATIC)
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


def run_files(runs) -> list[str]:
    """The store and answers files of `runs`, each once, sorted: what a stage reading those runs depends on."""
    return sorted({str(f) for r in runs for f in (r.build_file, r.answers_file)})


def _role_models(cfg, role: str, models) -> list[str]:
    """The grid's labels for `role`: each model as role_label names it (a served model's with SERVED_SUFFIX, so the
    grid's folders are apart from the embedded run's and the main store is still recognised as the main one)."""
    if model_free(configured_backend(cfg, role)):
        return [PROGRAMMATIC]
    suffix = SERVED_SUFFIX if configured_served(cfg, role) else ""
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
    for role, models in ((BUILDER, s.builders), (SEARCHER, s.searchers)):
        _check_priced(cfg, role, models)


def _check_priced(cfg, role: str, models) -> None:
    from tailmem.llm.backends.base import kind_of
    from tailmem.llm.group import settings
    from tailmem.settings.llm import price, prices

    if not kind_of(configured_backend(cfg, role)).paid:
        return  # programmatic agents and the embedded model cost nothing

    table = prices(settings(cfg))
    for m in models:
        try:
            price(table, str(m))
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
                b, q = _label(cfg, BUILDER), _label(cfg, SEARCHER)
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
                    b, q = _label(cfg, BUILDER), _label(cfg, SEARCHER)
                    bdir = harness_build_dir(cfg.results_dir, bench, conv, harness, variant, main, b)
                    out.append(Run(bench, conv, variant, harness, b, q, bdir, answers_dir(bdir, harness, q), harness))
    return out


def strength_runs(cfg) -> list[Run]:
    s, out = cfg.fsmem.study.strength, []
    conv = conversation_ids(cfg.fsmem, s.benchmark)[0]
    main_builder = _label(cfg, BUILDER)
    for b in _role_models(cfg, BUILDER, s.builders):
        bdir = strength_dir(cfg.results_dir, s.benchmark, conv, b, s.variant)
        if b == main_builder != PROGRAMMATIC and s.variant in cfg.fsmem.study.variants:
            bdir = variant_dir(cfg.results_dir, s.benchmark, conv, s.variant, b)  # the main store: built once
        for q in _role_models(cfg, SEARCHER, s.searchers):
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
    b, q = _label(cfg, BUILDER), _label(cfg, SEARCHER)
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
