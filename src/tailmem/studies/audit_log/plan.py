"""The external access-log audit's share of the DAG: one audit per configured log."""

from __future__ import annotations

import os
from functools import cached_property

from tailmem.plan import StudyPlan


class AuditLogPlan(StudyPlan):
    in_slice = False  # the logs are other systems': no model of ours plays a part
    AUDIT_LOG_FILES = ("audit.json", "audit_log.csv", "audit_log.md", "ccdf.png", "ccdf.pdf")

    @cached_property
    def targets(self) -> list[str]:
        return [f"{self.results}/audit_log/{name}/{f}" for name in self.audit_log_entries for f in self.AUDIT_LOG_FILES]

    @cached_property
    def audit_log_entries(self) -> dict:
        """`audit_log.logs` by name. A relative file is the repository's (the Snakefile's folder), whatever
        --directory the run has, and is given relative to the run's working directory: an absolute path in the
        rule's input or command would change when the checkout moves and rerun both audits, the site and `all`."""

        def file(name: str) -> str:
            if os.path.isabs(name):
                return name
            return os.path.relpath(os.path.realpath(os.path.join(self.basedir, name)), os.path.realpath(os.getcwd()))

        return {str(e["name"]): {**e, "file": file(str(e["file"]))} for e in (self.cfg.audit_log.logs or [])}

    @property
    def audit_log_dir(self) -> str:
        return f"{self.results}/audit_log/{{access_log}}"

    def audit_log_args(self, wc) -> list[str]:
        e = self.audit_log_entries[wc.access_log]
        return [f"audit_log.file='{e['file']}'", f"audit_log.format={e['format']}", f"audit_log.name={wc.access_log}"]
