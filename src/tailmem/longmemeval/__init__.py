"""LongMemEval with the memory controllers (paper 1 Figure 8): each question's haystack becomes memory items,
BM25 ranks the candidates, Graph Memory and CTMC (with Full History and Flat Retrieval as references) build the
prompt, and answers are scored by substring match, an optional judge, and evidence coverage."""
