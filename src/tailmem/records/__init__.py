"""Typed artifacts: one record type (a frozen dataclass with a `format_version`) per artifact kind, written and
read only through it, so the writer, the tables, the site and the tests spell an artifact's keys once, as its
fields, and an artifact of another format (or an old cache without one) is refused by name, with its rebuild.

`tailmem.artifacts` stays the byte layer under these (atomic writes, JSON and array codecs, also used by caches
and data loaders that are not pipeline artifacts); this package is the schema layer, one module per area:
`records.control` (a controller-study arm's summary.json), `records.audit` (a tail audit's audit.json),
`records.longmemeval` (a LongMemEval run's summary.json). The base is `records.base.Record`.
"""
