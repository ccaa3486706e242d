"""Benchmark loaders: each reads one benchmark file into frozen records, failing with the file name."""
