"""The run's static website: every table and figure of a scale, its provenance, and one page per question,
step or game behind the numbers, so a reader can go from "tail error 0.60" to what each controller's prompt held.

`build.build_site` reads the artifacts under `<results>/<scale>/` (never writes there except the site folder) and
writes plain HTML that opens from disk. Per kind of item: `fsmem` (LoCoMo, REALTALK, PersonaMem answers),
`longmemeval`, `control` (the graph-world step viewer) and `alfworld`; `overview` renders the tables and figures.
"""
