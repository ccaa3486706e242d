"""The KV cache of a prompt's stable prefix (system prompt and tools), kept on disk and shared between processes.

Why: every Snakemake job is its own process, so llama.cpp's in-process prefix reuse starts cold in each one, and
a searcher's system prompt with its tool schemas (~900 tokens, ~30 s on one core) was evaluated again by every
job that asks one question. The KV cells of that prefix are a pure function of the weights and the tokens, so
the first job saves them (llama.cpp's own state file, ~28 KB per token for this model) and the next ones load
them in milliseconds. A file is keyed by the weights' sha256 and the prefix's token ids, so it can never be read
for another model or prompt; losing the folder only costs time.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
from pathlib import Path

log = logging.getLogger("tailmem.llm")
MIN_TOKENS = 128  # shorter prefixes are cheaper to evaluate than to save
MAX_FILES = 64  # oldest files beyond this many are removed when a new one is saved


def folder() -> Path:
    from tailmem.paths import user_cache_dir

    return user_cache_dir() / "kv-prefix"


def key(model_sha256: str, tokens: list[int]) -> str:
    h = hashlib.sha256(model_sha256.encode())
    h.update(ctypes.string_at((ctypes.c_int32 * len(tokens))(*tokens), 4 * len(tokens)))
    return h.hexdigest()[:32]


def restore(llm, model_sha256: str, tokens: list[int], where: Path | None = None) -> bool:
    """Load the saved KV of `tokens` into `llm` (its first len(tokens) positions); False when none is saved."""
    import llama_cpp

    path = (where or folder()) / f"{key(model_sha256, tokens)}.kv"
    if not path.exists():
        return False
    out = (llama_cpp.llama_token * len(tokens))()
    n = ctypes.c_size_t(0)
    if not llama_cpp.llama_state_load_file(llm._ctx.ctx, str(path).encode(), out, len(tokens), ctypes.byref(n)) or list(
        out[: n.value]
    ) != list(tokens):
        log.warning("kv prefix %s unreadable or stale; evaluating the prefix instead", path)
        llm.reset()
        return False
    llm.input_ids[: len(tokens)] = tokens
    llm.n_tokens = len(tokens)
    llm._requires_eval = True  # the logits are not restored: llama.cpp re-evaluates the last prompt token
    return True


def save(llm, model_sha256: str, tokens: list[int], where: Path | None = None) -> None:
    """Evaluate `tokens` from an empty cache and save their KV (atomically: a crash leaves no half file)."""
    import llama_cpp

    where = where or folder()
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{key(model_sha256, tokens)}.kv"
    llm.reset()
    llm.eval(tokens)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    if llama_cpp.llama_state_save_file(
        llm._ctx.ctx, str(tmp).encode(), (llama_cpp.llama_token * len(tokens))(*tokens), len(tokens)
    ):
        os.replace(tmp, path)
    else:
        tmp.unlink(missing_ok=True)
    for old in sorted(where.glob("*.kv"), key=lambda p: p.stat().st_mtime)[:-MAX_FILES]:
        old.unlink(missing_ok=True)


def warm(llm, model_sha256: str, prompt_ids: list[int], prefix_len: int, reused: int, where: Path | None = None) -> int:
    """Make the first `prefix_len` prompt tokens resident when the in-process cache holds fewer: loaded from disk
    (they count as reused) or evaluated here and saved (they count as evaluated, and so does whatever the process held). The prompt tokens reused."""
    if prefix_len < MIN_TOKENS or reused >= prefix_len:
        return reused
    prefix = list(prompt_ids[:prefix_len])
    if restore(llm, model_sha256, prefix, where):
        return prefix_len
    save(llm, model_sha256, prefix, where)  # from an empty cache: nothing of this prompt was reused
    return 0
