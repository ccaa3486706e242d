"""Backends answer one request each: openai (any compatible endpoint), local (llama.cpp), replay, programmatic."""
