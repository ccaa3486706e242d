"""What plays the ALFWorld study's games: the text-only environment over regenerated games, a goal-driven executor
whose knowledge comes from what its memory retrieved, paper 1's observation memory (Graph Memory vs CTMC) and paper
2's skill setting (stores built by a curator from earlier tasks only). The study's stages (`games`, `episodes`) run
it; no library module imports it."""
