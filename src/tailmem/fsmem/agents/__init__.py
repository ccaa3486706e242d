"""Roles over a store: the management agent (builder), the search agent and the judge, each model-driven
through `tailmem.llm` when a model is configured, else programmatic through the same tools and accounting."""
