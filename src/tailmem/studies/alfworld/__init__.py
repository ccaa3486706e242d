"""The ALFWorld study (paper 1's ALFWorld rows, paper 2's skill setting): games, memory arms, skill chains, report."""
