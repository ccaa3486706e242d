"""Paper 1's published numbers (seeds/000_c7e34909b84d6cd0.txt), printed beside ours in every table.

The numbers live in `report/data/paper1.yaml` (with the table each comes from); this module names them for the code
and answers the one lookup the controller tables share.
"""

from __future__ import annotations

from tailmem.report.data_files import section

_FILE = "paper1.yaml"

TABLE2_SIGMA = section(_FILE, "table2_sigma")  # sigma_top10 at 100 / 500 / 1,000 states, log-log slope and R^2
TABLE7_GINI = section(_FILE, "table7_gini")  # Gini at 100 / 500 / 1,000 states
TABLE7_TOP10 = section(_FILE, "table7_top10")  # top-10% share (percent) at 100 / 500 / 1,000 states
TABLE8_GINI = section(_FILE, "table8_gini")  # Gini under the random walk per retrieval design
TABLE3_LLM = section(_FILE, "table3_llm")  # tail audit under semantic LLM policies
TABLE6 = section(_FILE, "table6")  # allocation ablation at matched budgets

# Tables 4 and 5 keyed by (controller, encoding); encoding None: a row the paper gives without naming an encoding.
CONTROLLERS = {
    (r["controller"], r["encoding"]): {k: v for k, v in r.items() if k not in ("controller", "encoding")}
    for r in section(_FILE, "controllers")
}


def controller_value(controller: str, encoding: str | None, metric: str) -> float:
    """Paper 1's `metric` for a controller under an encoding (its encoding-free row if it has no such row), else
    NaN."""
    row = CONTROLLERS.get((controller, encoding)) or CONTROLLERS.get((controller, None)) or {}
    return float(row.get(metric, float("nan")))


def controller_table(controller: str, encoding: str | None) -> str:
    """Which paper table a controller's values come from ("Table 4"), or "" when the paper has none."""
    row = CONTROLLERS.get((controller, encoding)) or CONTROLLERS.get((controller, None))
    return f"Table {row['table']}" if row else ""
