"""tailmem: reproducible experiments on the memory of long-horizon LLM agents."""

__version__ = "0.1.0"
