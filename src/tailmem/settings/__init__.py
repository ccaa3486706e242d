"""The settings of every config group, as Hydra structured configs: one dataclass per group is its schema.

Where things are:
- `tailmem/settings/<group>.py`: the dataclass of that group (`configs/<group>/*.yaml` choose its values). A field's
  type is checked by Hydra (OmegaConf) when it composes: an unknown key or a value of the wrong type fails there,
  with Hydra's message. A range (`>= 1`, one of a fixed list of names) is checked in the dataclass's `__post_init__`,
  which raises `tailmem.errors.ConfigError` naming the key, the value and what was expected (`checks.Problems`).
- `tailmem/settings/stage_settings.py`: `StageSettings`, what a stage function receives: the typed object of each group its
  entry in tailmem.stage lists, built on first read; a group it does not list is refused by name.
- `tailmem/settings/schema.py`: the top-level `Settings` (the top-level keys and one field per group), registered
  in Hydra's ConfigStore as `tailmem_schema`, the first entry of `configs/config.yaml`'s defaults list, and the
  typed object of a group (`typed`, running its `__post_init__`). `tailmem.validation.validate` turns a composed
  config into the typed objects and runs the registries' checks.

Adding a key to a group: add a field (type, and no default: the YAML chooses the value) to the group's dataclass,
with its range in `__post_init__` if it has one, and set its value in `configs/<group>/*.yaml`. Adding a group:
a module here with its dataclass, a field of that type in `schema.Settings`, and `configs/<group>/default.yaml`.

Three groups are open mappings whose keys belong to a registry rather than to this package, so that adding an
entry stays a two-file recipe (docs/extending.md): `graph` (each family's keys: `graphworld.families.FAMILIES`),
`memory` (each controller's dataclass fields: `memory.controllers.CONTROLLERS`) and ALFWorld's memory arms. Their
checks (`tailmem.graphworld.group.check`, `tailmem.memory.group.check`) refuse a key the family or controller does
not have and read its type from the registry's own dataclass.

The settings sit below every library package that reads them, and import none (tests/test_library_layers.py): a
fixed list of names a key accepts is defined in its group's module here and imported by the code that reads it;
a name a registry above owns (a graph family, a controller, a backend, a benchmark, a harness, an arm) is checked by
the package that owns it, run by tailmem.validation, which checks a composed config whole before any job. Nothing
here imports the pipeline (stages, cli, workflow) or a heavy library, so the DAG composes in a second.
"""
