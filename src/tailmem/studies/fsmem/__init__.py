"""The filesystem-memory study (paper 2): stores built and searched on LoCoMo, the study's tables (shape, hierarchy,
retrieval, strength, harness, costs, replicates, growth, access) and PersonaMem.
"""
