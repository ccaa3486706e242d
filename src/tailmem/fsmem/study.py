"""Which runs each study of issue 6 reads, enumerated from the config, so the Snakemake rules that make the
artifacts and the table stages that read them can never disagree.

A run is (benchmark, conversation, variant, harness, builder, searcher, build folder, answers folder).
RQ1/RQ2: every `fsmem.study.variants` store of every conversation, searched with `center`.
RQ5: `fsmem.study.harness_variants` on the first `harness_conversations` conversations, through every harness.
RQ3: the strength grid, one store per builder model and one answer set per searcher model; a role whose
backend is programmatic contributes the single label `programmatic`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tailmem.fsmem.benchmarks import conversation_ids
from tailmem.fsmem.layout import ANSWERS_FILE, BUILD_FILE, answers_dir, strength_dir, variant_dir

PROGRAMMATIC = "programmatic"


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

    @property
    def build_file(self) -> Path:
        return self.build_dir / BUILD_FILE

    @property
    def answers_file(self) -> Path:
        return self.answers_dir / ANSWERS_FILE


def _role_models(cfg, role: str, models) -> list[str]:
    backend = cfg.llm.roles[role].backend if cfg.get("llm") and role in cfg.llm.roles else PROGRAMMATIC
    return [PROGRAMMATIC] if backend == PROGRAMMATIC else [str(m) for m in models]


def _label(cfg, role: str) -> str:
    r = cfg.llm.roles[role] if cfg.get("llm") and role in cfg.llm.roles else None
    return PROGRAMMATIC if r is None or r.backend == PROGRAMMATIC else str(r.model)


def main_runs(cfg) -> list[Run]:
    st, out = cfg.fsmem.study, []
    for bench in st.benchmarks:
        for conv in conversation_ids(cfg.fsmem, bench):
            for variant in st.variants:
                vdir = variant_dir(cfg.results_dir, bench, conv, variant)
                out.append(Run(bench, conv, variant, "center", _label(cfg, "builder"), _label(cfg, "searcher"),
                               vdir, answers_dir(vdir, "center")))
    return out


def harness_runs(cfg) -> list[Run]:
    st, out = cfg.fsmem.study, []
    for bench in st.harness_benchmarks:
        for conv in conversation_ids(cfg.fsmem, bench)[: int(st.harness_conversations)]:
            for variant in st.harness_variants:
                vdir = variant_dir(cfg.results_dir, bench, conv, variant)
                for harness in st.harnesses:
                    out.append(Run(bench, conv, variant, harness, _label(cfg, "builder"), _label(cfg, "searcher"),
                                   vdir, answers_dir(vdir, harness)))
    return out


def strength_runs(cfg) -> list[Run]:
    s, out = cfg.fsmem.study.strength, []
    conv = conversation_ids(cfg.fsmem, s.benchmark)[0]
    for b in _role_models(cfg, "builder", s.builders):
        bdir = strength_dir(cfg.results_dir, s.benchmark, conv, b, s.variant)
        for q in _role_models(cfg, "searcher", s.searchers):
            out.append(Run(s.benchmark, conv, s.variant, s.harness, b, q, bdir, answers_dir(bdir, s.harness, q)))
    return out


def all_runs(cfg) -> list[Run]:
    """Every distinct answer set of the studies (RQ1/2, RQ5, RQ3), without duplicates."""
    seen, out = set(), []
    for r in main_runs(cfg) + harness_runs(cfg) + strength_runs(cfg):
        if r.answers_file not in seen:
            seen.add(r.answers_file)
            out.append(r)
    return out
