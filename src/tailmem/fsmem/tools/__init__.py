"""Tool harnesses: each is a named set of tools with OpenAI function schemas and one dispatcher."""
