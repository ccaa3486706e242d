"""Offline token counts: tiktoken's cache is built from quicktok-v1's vocabularies, checked against tiktoken's
published sha256, on a fresh machine with the network blocked."""

import json
import os
import subprocess
import sys

import pytest

TEXT = "Memory access in long-horizon agents is heavy-tailed: naïve recency fails 😀 — 12345 tokens, ünïcödé.\n\tEnd."

BLOCKED = r"""
import json, socket, sys
def blocked(*a, **k):
    raise OSError("network blocked by the test")
socket.socket.connect = blocked
socket.create_connection = blocked
socket.getaddrinfo = blocked
from tailmem.llm import count_tokens
from tailmem.llm.tokens import get_encoding, PUBLISHED, ensure_offline_cache
text = sys.argv[1]
print(json.dumps({e: [count_tokens(text, e), get_encoding(e).encode_ordinary(text), str(ensure_offline_cache(e))]
                  for e in PUBLISHED}))
"""


@pytest.mark.slow
def test_offline_counts_equal_the_published_encodings(tmp_path):
    fresh = {"TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR", "TAILMEM_CACHE_DIR"}  # a user's cache folder too
    env = {k: v for k, v in os.environ.items() if k not in fresh}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))  # a fresh machine: empty caches
    out = subprocess.run([sys.executable, "-c", BLOCKED, TEXT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    import quicktok

    for enc in ("o200k_base", "cl100k_base"):
        count, ids, path = got[enc]
        assert path.startswith(str(tmp_path / "cache" / "tailmem" / "tiktoken"))
        assert ids == list(quicktok.get_encoding(enc).encode(TEXT))  # an independent implementation agrees
        assert count == len(ids) > 10


def test_known_ids():
    from tailmem.llm.tokens import get_encoding

    assert get_encoding("cl100k_base").encode("hello world") == [15339, 1917]
    assert get_encoding("o200k_base").encode("hello world") == [24912, 2375]
