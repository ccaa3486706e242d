"""Planning a claim before any model call: how likely its test is to decide it, and what units, calls and seconds
would make that likely.

Every model-played study plans its claims here, so none of them reaches into another study's library for it:
`paired` is the power of a paired comparison's test (and the budget's multiple-choice spend), `stated` the design
check's row of a study planned from a stated effect and SD per unit. The controller study plans from its model-free
twin instead (`tailmem.control.design`), on top of `paired`."""
