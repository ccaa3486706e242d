"""Token counts with tiktoken, offline: tiktoken's download cache is built from the vocabularies quicktok-v1 ships.

tiktoken fetches its BPE files from a blob store at first use and there is no network here. Its cache is a folder
of files named by the sha1 of the blob URL, each checked against a published sha256; quicktok-v1 ships the same
vocabularies in a binary form, so we re-serialise them to tiktoken's text format, check the published sha256 and
write them where tiktoken looks. Done lazily on first use; no network is touched.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import struct
import threading
from importlib.resources import files
from pathlib import Path

from tailmem.errors import LLMError

# tiktoken's blob URL and expected sha256 for each encoding (from tiktoken_ext.openai_public), and quicktok's file.
PUBLISHED = {
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "cl100k.vocab",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "o200k.vocab",
    ),
}

_lock = threading.Lock()


def cache_dir() -> Path:
    """Where tiktoken reads its files: $TIKTOKEN_CACHE_DIR if set, else `tiktoken/` in tailmem's cache folder
    (`paths.user_cache_dir`; then exported)."""
    env = os.environ.get("TIKTOKEN_CACHE_DIR")
    if env:
        return Path(env)
    from tailmem.paths import user_cache_dir

    return user_cache_dir() / "tiktoken"


def quicktok_to_tiktoken(vocab: bytes) -> bytes:
    """quicktok's vocab (u32 count, then per token: u16 length, bytes, u32 rank; little-endian) as a .tiktoken file."""
    (count,) = struct.unpack_from("<I", vocab, 0)
    offset, items = 4, []
    for _ in range(count):
        (length,) = struct.unpack_from("<H", vocab, offset)
        token = vocab[offset + 2 : offset + 2 + length]
        (rank,) = struct.unpack_from("<I", vocab, offset + 2 + length)
        offset += 6 + length
        items.append((rank, token))
    if offset != len(vocab):
        raise LLMError(f"quicktok vocab has {len(vocab) - offset} trailing bytes; the format changed")
    items.sort()
    return b"".join(base64.b64encode(tok) + b" " + str(rank).encode() + b"\n" for rank, tok in items)


def ensure_offline_cache(encoding: str) -> Path:
    """Make tiktoken's cache file for `encoding` exist and match the published sha256; return its path."""
    if encoding not in PUBLISHED:
        raise LLMError(f"encoding {encoding!r} has no offline source; expected one of {sorted(PUBLISHED)}")
    url, sha256, vocab_name = PUBLISHED[encoding]
    folder = cache_dir()
    target = folder / hashlib.sha1(url.encode()).hexdigest()
    with _lock:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
        if target.exists() and hashlib.sha256(target.read_bytes()).hexdigest() == sha256:
            return target
        vocab = files("quicktok").joinpath("data", vocab_name).read_bytes()
        blob = quicktok_to_tiktoken(vocab)
        got = hashlib.sha256(blob).hexdigest()
        if got != sha256:
            raise LLMError(
                f"{encoding}: vocabulary rebuilt from quicktok/{vocab_name} has sha256 {got}, tiktoken expects {sha256}"
            )
        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_bytes(blob)
        os.replace(tmp, target)  # atomic: concurrent first uses never see half a file
    return target


@functools.lru_cache(maxsize=None)
def get_encoding(encoding: str = "o200k_base"):
    """tiktoken's Encoding, loaded from the offline cache."""
    ensure_offline_cache(encoding)
    import tiktoken

    return tiktoken.get_encoding(encoding)


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Tokens in `text` (special-token strings counted as plain text, as a prompt would be)."""
    return len(get_encoding(encoding).encode_ordinary(text))


def count_message_tokens(messages: list[dict], encoding: str = "o200k_base") -> int:
    """An estimate of a chat prompt's tokens: every message's text plus ~4 tokens of framing each."""
    total = 0
    for m in messages:
        content = m.get("content") or ""
        if isinstance(content, list):  # content parts
            content = " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        total += 4 + count_tokens(str(content), encoding)
        for call in m.get("tool_calls") or []:
            total += count_tokens(str(call), encoding)
    return total + 2
