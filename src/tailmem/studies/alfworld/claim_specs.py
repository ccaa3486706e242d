"""The ALFWorld skill setting's claims as data (claims_alfworld_<subset>): templates read over the store variants a
run holds.

Why records in Python, and how the study fills them: `tailmem.report.claims`. Adding a claim is adding one record
(docs/extending.md, "A claim").
"""

from __future__ import annotations

from tailmem.report.claims import Claim

# the claim column of the study's row of the design check (design_rows.py): the claims rows it plans name it
DESIGN_CLAIM = "ALFWorld: arms on the same games"

# -- paper 2, the ALFWorld skill setting (claims_alfworld_<subset>; tailmem.studies.alfworld.tables.skill_claims) ---
# every store variant a protocol ran against the control (`{variant}`, `{baseline}`; the paper's number per protocol
# and variant: alfworld_text.paper_vs_control), then, where the reversed chain ran, each variant's full chain
# against its reversed chain, within alfworld.claims.order_margin (a share of games). planned: the design check plans
# a store against no store at one stated effect per game (power.stated_effects.alfworld, stated for the episode log)
ALFWORLD_VS_CONTROL = Claim(
    "A store ({variant}) wins more games than no store",
    arm="{variant}",
    baseline="{baseline}",
    metric="success",
    side="greater",
    unit="game",
    planned=DESIGN_CLAIM,
)
ALFWORLD_ORDER = Claim(
    "The order of the chain does not change success ({variant})",
    arm="full_chain/{variant}",
    baseline="reversed_chain/{variant}",
    metric="success",
    side="within",
    unit="game",
)
