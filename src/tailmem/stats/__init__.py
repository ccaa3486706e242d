"""Uncertainty of compared metrics (docs/stats.md): `sign_flip` (the claim's test and the exact interval at small
n), `paired_proportions` (the test and interval of yes/no outcomes), `binarize` (bounded shares drawn to yes/no
for it), `bootstrap` (the interval at larger n, seeds as an outer level), `paired_tests` (paper 2's sign test),
`verdict` (HELD / NOT HELD / INCONCLUSIVE and why), `compare` (them as one claims row), `settings` (how the
claims get the `stats` config group), `simulate` (data of each outcome kind the claims read, to measure the
rule's level on).

Nothing is imported here, so reading the `stats` group (`stats.group`) loads neither numpy nor scipy.
"""
