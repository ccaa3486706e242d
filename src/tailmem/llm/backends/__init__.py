"""Backends answer one request each (the interface: base.py): openai (any compatible endpoint), local and instruct
(llama.cpp in process), replay, programmatic."""
