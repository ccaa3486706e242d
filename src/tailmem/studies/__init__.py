"""The studies: each folder holds one study's stages, its Snakemake rules, its share of the DAG (a plan), its tables, claims, figures and site page.

A study imports the libraries below it (graph world, rollout, audit, memory, control, the store and its harnesses,
llm, stats, records, settings, data, report and site toolkits) and never another study: what two studies share
lives in a library. The pipeline above (registry, dag, cli, the site build) is the only code that sees them all.
"""
