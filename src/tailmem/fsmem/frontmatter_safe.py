"""A YAML loader for files an agent or a stranger wrote: no anchors or aliases, bounded depth and size.

`yaml.safe_load` refuses Python objects but still expands aliases (a 401-byte "billion laughs" block builds
about 10^9 strings) and recurses once per nesting level (6 KB of `[` overflows the stack). A memory file's
frontmatter is one short mapping, so anything past these caps is refused before it is built. A gold overlay is
loaded the same way with a larger size cap (tailmem.metrics.gold_overlay): it is data a user may download.
"""

from __future__ import annotations

import yaml
from yaml.events import AliasEvent, CollectionStartEvent, ScalarEvent

MAX_FRONTMATTER_CHARS = 4096  # the description is at most 300 characters; room for a few more keys
MAX_DEPTH = 8  # nesting levels of mappings and sequences


class FrontmatterError(ValueError):
    """The frontmatter block was refused; the message says why (the caller adds the file name)."""


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader whose composer refuses anchors and aliases and stops at MAX_DEPTH nested collections."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0

    def fetch_flow_sequence_start(self):  # the scanner, before any token of a deep `[[[...` is queued
        self._flow_guard()
        super().fetch_flow_sequence_start()

    def fetch_flow_mapping_start(self):
        self._flow_guard()
        super().fetch_flow_mapping_start()

    def _flow_guard(self) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise FrontmatterError(f"nested deeper than {MAX_DEPTH} levels")

    def compose_node(self, parent, index):
        if self.check_event(AliasEvent):
            raise FrontmatterError("YAML aliases (*name) are refused")
        event = self.peek_event()
        if isinstance(event, (ScalarEvent, CollectionStartEvent)) and event.anchor is not None:
            raise FrontmatterError("YAML anchors (&name) are refused")
        nested = isinstance(event, CollectionStartEvent)
        if nested:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise FrontmatterError(f"nested deeper than {MAX_DEPTH} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            if nested:
                self._depth -= 1


def load(block: str, max_chars: int = MAX_FRONTMATTER_CHARS) -> object:
    """The YAML value of one frontmatter block (between the `---` lines), or FrontmatterError."""
    if len(block) > max_chars:
        raise FrontmatterError(f"{len(block)} characters, at most {max_chars}")
    loader = _NoAliasLoader(block)
    try:
        return loader.get_single_data()
    except FrontmatterError:
        raise
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"not valid YAML ({str(exc).splitlines()[0]})") from None
    except (TypeError, ValueError, RecursionError) as exc:  # unhashable keys, bad timestamps, deep scanner input
        raise FrontmatterError(f"not valid YAML ({type(exc).__name__}: {exc})") from None
    finally:
        loader.dispose()
