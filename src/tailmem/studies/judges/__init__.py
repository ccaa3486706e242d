"""The judge-sensitivity study: the answers of the filesystem-memory and LongMemEval studies scored again by a panel."""
