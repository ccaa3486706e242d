"""Our answers in the benchmarks' own file formats, so their official scorers can be run on them."""
