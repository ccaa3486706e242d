"""Memory control on the Synthetic Graph World: matched replay of a trajectory under each memory controller,
with a next-state prediction at every step (paper 1 Tables 4-6, Figures 6-7)."""
