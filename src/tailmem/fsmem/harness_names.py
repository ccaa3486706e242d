"""The harness names other modules need to say, in a module that imports nothing: the harness registry
(`fsmem.harnesses`) opens the tools modules, and those name themselves from here, so neither imports the other."""

CENTER = "center"  # the management tools' read-only subset; the reorganizer always rewrites through them
MAIN_HARNESS = CENTER  # the RQ1/RQ2 study's search harness and the build harness when `fsmem.build_harness` is unset
