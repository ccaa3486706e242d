"""Answering a question over a haystack of chat sessions with the memory controllers (LongMemEval's task; paper 1
Figure 8): each question's haystack becomes memory items, BM25 ranks the candidates, Graph Memory and CTMC (with
Full History and Flat Retrieval as references) build the prompt, and answers are scored by substring match, an
optional judge, and evidence coverage. The LongMemEval study (studies/longmemeval/) runs it; the judges study and
the official retrieval log (exports) read its answers and rankings."""
