"""Uncertainty of compared metrics (docs/stats.md): `sign_flip` (the claim's test and the exact interval at small
n), `paired_proportions` (the test and interval of yes/no outcomes), `bootstrap` (the interval at larger n, seeds
as an outer level), `paired_tests` (paper 2's sign test), `verdict` (HELD / NOT HELD / INCONCLUSIVE and why),
`compare` (them as one claims row), `settings` (how the claims get the `stats` config group).

Nothing is imported here, so reading the `stats` group (`stats.settings`) loads neither numpy nor scipy.
"""
