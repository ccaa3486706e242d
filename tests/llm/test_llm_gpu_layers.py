"""`llm.n_gpu_layers` (the GPU overlay's `model_overrides=["llm.n_gpu_layers=99"]`) reaches llama-cpp-python's
Llama constructor for every embedded role; llama_cpp is replaced by a stand-in, so no model is loaded."""

import sys
import types

from tailmem.llm.backends import instruct
from tailmem.llm.group import role_settings, settings
from tailmem.workflow import compose_config


def _fake_llama_cpp(seen: list, offload: bool) -> types.ModuleType:
    mod = types.ModuleType("llama_cpp")

    class Llama:
        def __init__(self, **kwargs):
            seen.append(kwargs)
            self.metadata = {"tokenizer.chat_template": "{{ messages }}"}

        def close(self):
            pass

    fmt = types.ModuleType("llama_cpp.llama_chat_format")
    fmt.Jinja2ChatFormatter = lambda **kw: None
    mod.Llama, mod.llama_chat_format = Llama, fmt
    mod.llama_supports_gpu_offload = lambda: offload
    return mod, fmt


def test_n_gpu_layers_reaches_the_llama_constructor(monkeypatch, tmp_path):
    seen: list = []
    mod, fmt = _fake_llama_cpp(seen, offload=True)
    monkeypatch.setitem(sys.modules, "llama_cpp", mod)
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_chat_format", fmt)
    monkeypatch.setattr("tailmem.llm.model_file.resolve", lambda model, path, sha: (tmp_path / "m.gguf", "0" * 64))
    instruct._load.cache_clear()
    try:
        llm = settings(compose_config("smoke_model", ["llm.n_gpu_layers=99"]))
        for role in ("predictor", "searcher", "judge"):
            instruct.InstructBackend(role_settings(llm, role))
        assert [kw["n_gpu_layers"] for kw in seen] == [99, 99, 99]
        assert all(kw["model_path"] == str(tmp_path / "m.gguf") for kw in seen)
        seen.clear()
        instruct._load.cache_clear()
        instruct.InstructBackend(role_settings(settings(compose_config("smoke_model")), "predictor"))
        assert seen[0]["n_gpu_layers"] == 0  # off unless asked
    finally:
        instruct._load.cache_clear()
