"""The whole workflow's inputs: every study's plan under one composed config, and what `all`, the site, the
model slice and its role probe ask of them together.

Each study's rule files read their own plan (`plan_of(config, workflow.basedir, "<study>")`, the class its package
names as `PLAN`); the Snakefile reads this `Pipeline` for the rules that span studies. `dag_of` is cached per scale
and overrides, so every rule file shares one composition, and the model slice (the same Snakefile as a Snakemake
module, with its own `config`) its own.
"""

from __future__ import annotations

import os
from functools import cache, cached_property

from tailmem import outputs
from tailmem.design_table import rows as design_rows
from tailmem.lazy import resolve
from tailmem.plan import StudyPlan
from tailmem.registry import STUDIES
from tailmem.workflow import Dag


def dag_of(config: dict, basedir: str) -> Pipeline:
    """The inputs of the workflow run with Snakemake's `config` (`scale`, `overrides`, `slice_of`)."""
    overrides = config.get("overrides", [])
    if isinstance(overrides, str):
        overrides = [overrides]
    return _dag(str(config.get("scale", "default")), tuple(overrides), bool(config.get("slice_of")), str(basedir))


def plan_of(config: dict, basedir: str, study: str):
    """The plan of one study (its folder's name) in the workflow run with `config`."""
    return dag_of(config, basedir).plans[study]


@cache
def _dag(scale: str, overrides: tuple[str, ...], in_slice: bool, basedir: str) -> Pipeline:
    return Pipeline(scale, overrides, in_slice, basedir)


class Pipeline(StudyPlan):
    """Every study's plan under one scale and set of overrides, and the targets that span studies."""

    def __init__(self, scale: str, overrides: tuple[str, ...], in_slice: bool, basedir: str):
        super().__init__(Dag(scale, list(overrides)), basedir)
        self.scale, self.overrides = scale, overrides
        self.in_slice = in_slice  # inside the model slice: its `all` is the slice's targets, and no slice is nested
        self.plans: dict[str, StudyPlan] = {
            study.__name__.rsplit(".", 1)[1]: resolve(study.PLAN)(self.jobs, basedir) for study in STUDIES if study.PLAN
        }

    @property
    def model_slice(self) -> str | None:
        """The scale of the model slice this run nests, or None (a slice nests none)."""
        return None if self.in_slice else self.cfg.scale.get("model_slice")

    # -- benchmark data ---------------------------------------------------------------------------------------
    @property
    def data_dir(self) -> str:
        return str(self.cfg.data_dir)

    @cached_property
    def data_missing(self) -> list:
        """What a quick check (presence and size) finds missing of the benchmark data (tailmem.data.manifest)."""
        from pathlib import Path

        from tailmem.data.manifest import problems

        return problems(Path(self.data_dir), deep=False)

    @property
    def data_ready(self) -> bool:
        """The benchmark stages can run (the graph-world stages never wait on data a fresh clone lacks)."""
        return not self.data_missing

    @cached_property
    def ready(self) -> list[StudyPlan]:
        """The studies this run can play: all of them once the benchmark data is there, else those needing none."""
        return [p for p in self.plans.values() if self.data_ready or not p.needs_data]

    # -- what the rules spanning studies ask for --------------------------------------------------------------
    @cached_property
    def all_targets(self) -> list[str]:
        """`all`: every study's targets, the design check's table and the site; inside a model slice, the slice's."""
        if self.in_slice:
            return self.slice_targets
        return [t for p in self.ready for t in p.targets] + self.design_targets + self.site_targets

    @cached_property
    def all_but_alfworld(self) -> list[str]:
        """Every study's targets but those needing an install extra (ALFWorld), and the design check's table (its
        ALFWorld row reads the config alone), without the site."""
        return [t for p in self.ready if not getattr(p, "extra", None) for t in p.targets] + self.design_targets

    @cached_property
    def graph_world_targets(self) -> list[str]:
        """Paper 1's graph world: the random-walk, controller and calibration studies and the design check's table
        (no benchmark data)."""
        studies = ("random_walk", "controller", "calibration")
        return [t for name in studies for t in self.plans[name].targets] + self.design_targets

    # -- the design check's table: every model-played study's rows -------------------------------------------
    @cached_property
    def design_targets(self) -> list[str]:
        """The design_check table (stage design_table), made before any model call from the config alone (no
        benchmark data needed: the fsmem row counts the config's cap without it)."""
        return self.table(outputs.DESIGN_CHECK)

    @cached_property
    def design_rows_files(self) -> list[str]:
        """Every study's rows of the design_check table (`tailmem.design_table.rows.STUDIES`), the table's inputs."""
        return design_rows.rows_files(self.results)

    @property
    def site_dir(self) -> str:
        return f"{self.results}/site"

    @cached_property
    def site_targets(self) -> list[str]:
        return [f"{self.site_dir}/index.html", f"{self.site_dir}/site.json"]

    @cached_property
    def site_inputs(self) -> list[str]:
        """The products of `all` the site shows: a rerun of any stage rewrites the tables it feeds."""
        return [t for p in self.ready for t in p.shown] + self.design_targets

    @cached_property
    def model_roles(self) -> list[str]:
        """How the model played each role (the slice's model_roles and model_claims tables)."""
        return self.table(outputs.MODEL_ROLES) + self.table(outputs.MODEL_CLAIMS)

    @cached_property
    def slice_claims(self) -> list[str]:
        """A slice's headline tables: each study's claims (paper 1's graph world, LoCoMo, claims_fsmem,
        LongMemEval, the judges, ALFWorld) and the design check's table."""
        return [t for p in self.ready for t in p.claims] + self.design_targets

    @cached_property
    def slice_targets(self) -> list[str]:
        return self.slice_claims + (self.model_roles if self.data_ready else [])

    @cached_property
    def role_probe_inputs(self) -> list[str]:
        """What model_roles reads: the controller runs, the study's stores and answers, the policy probe's rows, the
        slice's claims."""
        from tailmem import paths

        control, fs = self.plans["controller"], self.plans["fsmem"]
        fsmem = [
            str(f)
            for r in fs.fsmem_main + fs.fsmem_harness
            for f in (r.build_dir / paths.BUILD_FILE, r.answers_dir / paths.ANSWERS_FILE)
        ]
        claims = [str(t) for t in self.slice_claims if os.path.basename(str(t)).startswith("claims_")]
        runs = [str(r.summary_file(self.results)) for r in control.control_runs]
        return runs + fsmem + [self.policy_probe] + claims

    @property
    def policy_probe(self) -> str:
        """The policy probe's rows (stage policy_probe), which model_roles reads."""
        from tailmem import paths

        return paths.POLICY_PROBE.format(results=self.results)
