"""Uncertainty of compared metrics (docs/stats.md): `bootstrap` (paired intervals, seeds as an outer level),
`paired_tests` (sign and Wilcoxon), `verdict` (HELD / NOT HELD / INCONCLUSIVE), `compare` (the three as one
claims row), `settings` (the `stats` config group).

Nothing is imported here, so the config schema can read `stats.settings` without loading numpy and scipy.
"""
