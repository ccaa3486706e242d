"""The judge-sensitivity study's share of the DAG: the answer sets the panel scores again (the filesystem-memory
study's and LongMemEval's) and the table and per-answer verdicts it writes."""

from __future__ import annotations

from functools import cached_property

from tailmem import outputs
from tailmem.fsmem import run_list as fsmem_runs
from tailmem.haystack.rows import summary_files
from tailmem.judges.verdicts import verdicts_path
from tailmem.plan import StudyPlan


class JudgesPlan(StudyPlan):
    needs_data = True

    @cached_property
    def targets(self) -> list[str]:
        return self.judge_sensitivity

    @property
    def shown(self) -> list[str]:
        return []

    @cached_property
    def judge_sensitivity(self) -> list[str]:
        return self.table(outputs.JUDGE_SENSITIVITY)

    @property
    def judge_verdicts(self) -> str:
        """Every answer's verdict under each judge, read by the claims stages."""
        return str(verdicts_path(self.results))

    @cached_property
    def judged_answers(self) -> list[str]:
        """The answer sets the judges score again: the filesystem-memory study's and LongMemEval's."""
        cfg = self.cfg
        runs = fsmem_runs.main_runs(cfg) + fsmem_runs.harness_runs(cfg) + fsmem_runs.strength_runs(cfg)
        return fsmem_runs.run_files(runs) + summary_files(cfg, self.results)
