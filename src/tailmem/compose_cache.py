"""Hydra compositions that reuse, within one process and the jobs the warm server forks, what every composition
of the same config files re-reads and re-merges.

Why: a stage job composes its config once, and that took about 0.27 s of CPU per job (207 jobs in the smoke DAG,
917 in the default run), most of it Hydra re-parsing the same YAML files and merging, in the same order, the
same configs (Hydra's own, the schema, `config.yaml`, the groups' defaults) before the job's few overrides. With
`active()`, two steps of Hydra 1.3.8's composition keep their results:

- loading one config (`ConfigRepository.load_config`): kept per search path, config path and *what it is loaded
  from* (a config file's bytes, a ConfigStore entry's identity, an installed package's file by name), and handed
  out as a fresh unpickled copy, since Hydra edits what it loads;
- merging the defaults list (`ConfigLoaderImpl._compose_config_from_defaults_list`): the config after merging
  its first k entries, kept per those entries (each entry's path, package, flags and what it is loaded from). A
  composition starts from a copy of the longest prefix kept and merges the rest as Hydra does. A composition keeps
  its prefixes (a pickle per merged entry, about 0.04 s) inside `learning()`, which the warm server uses before
  forking jobs that share them, and in a process that composed before (a test session, Snakemake's DAG build): a
  stage job composes once and keeps nothing.

The command-line overrides are applied after the merge, as always. So a composition equals Hydra's own, node for
node (benchmarks/bench_compose.py and tests/warmstart/test_compose_cache.py compare them); an edited config file
changes its bytes and so misses the cache. A Hydra other than 1.3.8 composes without it.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

HYDRA = "1.3.8"  # the Hydra whose internals the two patched steps reproduce
MAX_PREFIXES = 1000  # prefixes kept (each a pickled config of ~60 KB at most): a bound on memory, not a knob

_loads: dict[tuple, bytes] = {}  # (search path, config path, stamp) -> pickled ConfigResult
_prefixes: dict[tuple, bytes] = {}  # (entry key, ...) -> pickled config after merging those entries
_pinned: dict[int, object] = {}  # ConfigStore entries whose id() is part of a key: kept alive, so ids stay unique
_state = {"learning": False, "composed_in": None}  # composed_in: the pid of the process that composed last


def _stamp(sources: Sequence, config_path: str) -> tuple | None:
    """What `config_path` loads from, as Hydra finds it (the first source that has it): a file's bytes, a
    ConfigStore entry's identity (an entry stored again is a new object), a package's file by name (an install
    changes it, and the warm server retires on an install)."""
    from hydra.core.config_store import ConfigStore

    for source in sources:
        if source.is_config(config_path):
            name = source._normalize_file_name(config_path)
            scheme = source.scheme()
            if scheme == "file":
                with open(os.path.realpath(os.path.join(source.path, name)), "rb") as f:
                    return scheme, source.path, name, f.read()
            if scheme == "structured":  # the source holds a copy of the ConfigStore, made for this composition
                node = ConfigStore.instance()._load(name)
                _pinned[id(node)] = node
                return scheme, source.path, name, id(node)
            return scheme, source.path, name
    return None


def _schema_stamp(repo, config_path: str):
    """The ConfigStore entry named like `config_path` that Hydra merges under it (None: there is none)."""
    from hydra.core.config_store import ConfigStore
    from hydra.plugins.config_source import ConfigLoadError

    try:
        node = ConfigStore.instance()._load(repo.get_schema_source()._normalize_file_name(config_path))
    except ConfigLoadError:
        return None
    _pinned[id(node)] = node
    return id(node)


def _load_config(original):
    def load_config(self, config_path: str):
        stamp = _stamp(self.sources, config_path)
        if stamp is None:
            return original(self, config_path)
        key = (tuple((s.scheme(), s.path) for s in self.sources), config_path, stamp)
        blob = _loads.get(key)
        if blob is None:
            ret = original(self, config_path)
            _loads[key] = pickle.dumps(ret, protocol=pickle.HIGHEST_PROTOCOL)
            return ret
        return pickle.loads(blob)

    return load_config


def _compose_from_defaults(self, defaults, repo):
    """`ConfigLoaderImpl._compose_config_from_defaults_list` of Hydra 1.3.8, starting from the longest merged
    prefix kept."""
    from hydra._internal.config_loader_impl import ConfigCompositionException, flag_override
    from omegaconf import DictConfig, OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    sources = repo.get_sources()
    keys = []
    for d in defaults:
        stamp = _stamp(sources, d.config_path)
        keys.append(
            (d.config_path, d.package, d.parent, d.is_self, d.primary, stamp, _schema_stamp(repo, d.config_path))
        )
    start, cfg = 0, None
    for k in range(len(keys), 0, -1):
        blob = _prefixes.get(tuple(keys[:k]))
        if blob is not None:
            start, cfg = k, pickle.loads(blob)
            break
    if cfg is None:
        cfg = OmegaConf.create()
    learn = _state["learning"] or _state["composed_in"] == os.getpid()
    _state["composed_in"] = os.getpid()
    with flag_override(cfg, "no_deepcopy_set_nodes", True):
        for k in range(start, len(defaults)):
            default = defaults[k]
            loaded = self._load_single_config(default=default, repo=repo)
            try:
                cfg.merge_with(loaded.config)
            except OmegaConfBaseException as e:
                raise ConfigCompositionException(
                    f"In '{default.config_path}': {type(e).__name__} raised while composing config:\n{e}"
                ).with_traceback(e.__traceback__)
            if learn and len(_prefixes) < MAX_PREFIXES and keys[k][5] is not None:
                prefix = tuple(keys[: k + 1])
                if prefix not in _prefixes:  # kept as after the loop: without the merge-only flag
                    cfg._set_flag("no_deepcopy_set_nodes", None)
                    _prefixes[prefix] = pickle.dumps(cfg, protocol=pickle.HIGHEST_PROTOCOL)
                    cfg._set_flag("no_deepcopy_set_nodes", True)

    def strip_defaults(node) -> None:  # Hydra's own: remove the remaining defaults lists from all nodes
        if isinstance(node, DictConfig):
            if node._is_missing() or node._is_none():
                return
            with flag_override(node, ["readonly", "struct"], False):
                if node._get_flag("HYDRA_REMOVE_TOP_LEVEL_DEFAULTS"):
                    node._set_flag("HYDRA_REMOVE_TOP_LEVEL_DEFAULTS", None)
                    node.pop("defaults", None)
            for _key, value in node.items_ex(resolve=False):
                strip_defaults(value)

    strip_defaults(cfg)
    return cfg


@contextmanager
def active() -> Iterator[None]:
    """Compositions inside use the kept loads and prefixes (with another Hydra than 1.3.8, plain Hydra)."""
    import hydra
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra._internal.config_repository import ConfigRepository

    if hydra.__version__ != HYDRA:
        yield
        return
    saved = ConfigRepository.load_config, ConfigLoaderImpl._compose_config_from_defaults_list
    ConfigRepository.load_config = _load_config(saved[0])
    ConfigLoaderImpl._compose_config_from_defaults_list = _compose_from_defaults
    try:
        yield
    finally:
        ConfigRepository.load_config, ConfigLoaderImpl._compose_config_from_defaults_list = saved


@contextmanager
def learning() -> Iterator[None]:
    """Inside, every composition also keeps its merged prefixes, its process's first too (the warm server)."""
    _state["learning"] = True
    try:
        with active():
            yield
    finally:
        _state["learning"] = False


def clear() -> None:
    """Forget every kept load and prefix."""
    _loads.clear()
    _prefixes.clear()
    _pinned.clear()
    _state["composed_in"] = None
