"""The log formats the external audit reads: tailmem's own JSON lines (docs/access-log.md), inspect_ai eval logs,
LongMemEval retrieval logs and mem0-style search logs, each read into one `AccessLog` (audit_log.events); `load`
picks the reader by `audit_log.format`."""
