"""The calibration's loss: zero where our cells equal the paper's, the stated sum otherwise, infinite where a cell
has no number; Table 8's relations read as paper 1 claims them."""

import numpy as np
import pandas as pd
import pytest

from tailmem.studies.calibration.loss import residuals, score
from tailmem.studies.calibration.targets import CELL_KEYS, cells, relations, table8


def planted(families=("uniform", "mixed"), factor=1.0):
    paper = cells(families, (100, 500, 1000))
    ours = paper[CELL_KEYS].assign(value=paper.paper * factor)
    return paper, ours


def test_metrics_equal_to_the_targets_have_loss_zero():
    paper, ours = planted()
    res = residuals(ours, paper)
    rel = relations(table8(("uniform", "mixed")), margin=0.05)  # the paper's own Table 8 keeps its order
    s = score(res, rel, ("uniform", "mixed"), tolerance=0.1, order_weight=1.0)
    assert s.loss == 0.0 and s.reached and s.within == s.cells == 20 and s.max_abs == 0.0


def test_the_loss_is_the_sum_of_squared_relative_residuals_plus_broken_relations():
    paper, ours = planted(factor=1.2)
    rel = pd.DataFrame(
        {
            "family": ["uniform", "uniform", "mixed"],
            "relation": ["a", "b", "a"],
            "diff": [0.1, -0.1, 0.1],
            "holds": [True, False, True],
        }
    )
    s = score(residuals(ours, paper), rel, ("uniform", "mixed"), tolerance=0.1, order_weight=0.5)
    assert s.loss == pytest.approx(20 * 0.2**2 + 0.5)
    assert s.broken == 1 and s.within == 0 and not s.reached
    assert s.max_abs == pytest.approx(0.2)


def test_a_cell_without_a_number_makes_the_loss_infinite():
    paper, ours = planted()
    ours.loc[0, "value"] = np.nan
    s = score(residuals(ours, paper), relations(table8(("uniform",)), 0.05), ("uniform", "mixed"), 0.1, 1.0)
    assert s.loss == np.inf and s.max_abs == np.inf and not s.reached


def test_the_papers_own_table8_keeps_every_relation_it_claims():
    rel = relations(table8(("uniform", "exponential", "scale_free", "modular", "mixed")), margin=0.05)
    assert rel.holds.all() and len(rel) == 25
    broken = relations(table8(("uniform",)).assign(gini=lambda d: np.where(d.design == "none", 0.9, d.gini)), 0.05)
    assert set(broken[~broken.holds].relation) == {"none < recency", "none < state_mate_uniform"}
