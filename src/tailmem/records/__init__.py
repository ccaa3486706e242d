"""Typed artifacts: one record type (a frozen dataclass with a `format_version`) per artifact kind, written and
read only through it, so the writer, the tables, the site and the tests spell an artifact's keys once, as its
fields, and an artifact of another format (or an old cache without one) is refused by name, with its rebuild.

`tailmem.artifacts` stays the byte layer under these (atomic writes, JSON and array codecs, also used by the data
loaders, which read benchmark inputs, not pipeline artifacts); this package is the schema layer. The bases:
`records.base.Record` (JSON), `records.table.TableRecord` (parquet: the version in the arrow schema metadata,
the required columns checked) and `records.arrays.ArrayRecord` (npz: a `format_version` array, the required
arrays checked), all on `records.base.Versioned`. One module per area: `graphworld` (world.json), `rollout`
(trace.npz), `audit` (audit.json; an access log's audit.json and trace.npz), `control` (summary.json,
steps.parquet, counts.npz), `design` (a study's rows of the design check), `longmemeval` (summary.json, rows.parquet), `judges` (the verdicts parquet), `fsmem`
(build.json, answers.json, PersonaMem's caches, snapshot manifests), `alfworld` (manifest, episodes, chain, the
regenerate and episode caches), `calibration` (the walk cache), `provenance` (meta.json).
"""
