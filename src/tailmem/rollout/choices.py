"""The names a rollout's settings are checked against: retrieval designs, policies and start-state rules. The
settings themselves are the schema's `rollout`, `policy` and `retrieval` groups (tailmem.settings.rollout); this
module imports nothing, so the schema's checks read these names without loading the rollout code."""

from __future__ import annotations

DESIGNS = ("none", "recency", "state_mate_uniform", "state_aware_frequency")  # paper 1, Table 8
SAMPLING_DESIGNS = ("state_mate_uniform", "state_aware_frequency")  # draw k uniforms per step
POLICIES = ("random_walk", "semantic", "llm")  # semantic: model-free proxy; llm: the policy role's model
# Where each episode starts (rollout/loop.py): a fresh uniform draw, the first episode's state every time, or where
# the previous episode ended. Paper 1 does not say; `uniform` is ours, the calibration study searches all three.
STARTS = ("uniform", "fixed", "continue")
