"""The calibration study (paper 1 Table 7): the rollout settings searched against the paper's tail targets."""
