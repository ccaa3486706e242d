"""The LongMemEval study (paper 1 Table 8 and Figure 8): memory arms answering over the haystacks, and the report."""
