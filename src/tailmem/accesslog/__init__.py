"""Tail audits of memory-access logs that tailmem did not make: one documented event format
(docs/access-log.md), importers from inspect_ai eval logs, LongMemEval retrieval logs and mem0-style search
logs, and the audit itself, which is the internal one (tailmem.studies.random_walk.audit.audit_counts) on the log's counts."""
