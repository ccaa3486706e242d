"""Benchmark metrics, each defined as the benchmark itself defines it."""
