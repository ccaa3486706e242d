"""The design check's table (`design_check`), gathered from the rows each study wrote.

Each model-played study checks its own paired claims before any model call, from its own config groups (stage
`<study>_design_rows`: the controller study from its model-free twin, the others from a stated effect,
`tailmem.power.stated`), so a study's setting reruns that study's rows and this table, never another study's
design check. Stage `design_table` (`design_table.gather`) only gathers the rows (`design_table.rows`) under one
note. It sits above the studies, like the site: it reads every study's rows.
"""

from tailmem.stage import Stage, declare

STAGES = declare(Stage("design_table", "tailmem.design_table.gather:run", ("scale", "power", "llm")))
