"""The external access-log audit: a tail audit of a log another system wrote (JSONL, inspect-ai, mem0)."""
