"""Overlays written to hurt or by mistake: an alias bomb is refused before it is expanded, a huge value is cut
short in the message, and an overlay naming a conversation the data does not have is refused with the known names
(it used to match no run, so every run was scored on the standard gold)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from tailmem.configs import config_dir
from tailmem.metrics import gold_overlay
from tailmem.metrics.gold_overlay import GoldOverlayError
from tailmem.studies.fsmem import locomo

HEAD = "benchmark: locomo\nconversation: {conv}\nname: t\nversion: 1\ndescription: d\nsource: s\nentries:\n"
ENTRY = "  - {question: 1, original_gold: x, corrected_gold: drop, reason: r, source: s}\n"


def _write(tmp_path, text: str) -> Path:
    p = tmp_path / "overlay.yaml"
    p.write_text(text)
    return p


def test_alias_bomb_is_refused_before_it_is_built(tmp_path):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb = "\n".join(lines) + "\n"
    p = _write(tmp_path, HEAD.format(conv="conv-50").replace("description: d", "description: d\nx: *a8") + bomb)
    start = time.perf_counter()
    with pytest.raises(GoldOverlayError, match="anchors|aliases") as err:
        gold_overlay.load(p)
    assert time.perf_counter() - start < 1.0
    assert len(str(err.value)) < 400


def test_values_are_cut_short_in_messages(tmp_path):
    huge = "y" * 100_000
    p = _write(
        tmp_path,
        HEAD.format(conv="conv-50")
        + f"  - {{question: 1, original_gold: [{huge}], corrected_gold: drop, reason: r, source: s}}\n",
    )
    with pytest.raises(GoldOverlayError, match="'original_gold' must be text, got list") as err:
        gold_overlay.load(p)
    assert len(str(err.value)) < 600


def test_a_file_too_large_for_an_overlay_is_refused_unread(tmp_path):
    p = _write(tmp_path, HEAD.format(conv="conv-50") + ENTRY + "#" * (5 << 20) + "\n")
    with pytest.raises(GoldOverlayError, match="at most"):
        gold_overlay.load(p)


def _cfg(tmp_path, data_dir, overlay):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(
            config_name="config",
            overrides=[f"results_dir={tmp_path}", f"data_dir={data_dir}", f"fsmem.gold_overlay={overlay}"],
        )


def test_unknown_conversation_is_refused_with_the_known_names(tmp_path, data_dir):
    p = _write(tmp_path, HEAD.format(conv="conv-5O") + ENTRY)
    with pytest.raises(GoldOverlayError, match=r"conversation 'conv-5O' is not in .*known: \['conv-26'.*'conv-50'\]"):
        locomo.gold_overlay_of(_cfg(tmp_path, data_dir, p))


def test_unknown_benchmark_is_refused_with_the_known_names(tmp_path, data_dir):
    p = _write(tmp_path, HEAD.format(conv="conv-50").replace("locomo", "lcomo") + ENTRY)
    with pytest.raises(GoldOverlayError, match=r"benchmark 'lcomo' is unknown; known: \['locomo'"):
        locomo.gold_overlay_of(_cfg(tmp_path, data_dir, p))


def test_unknown_question_names_the_known_range(tmp_path, data_dir):
    p = _write(tmp_path, HEAD.format(conv="conv-50") + ENTRY.replace("question: 1", "question: 9999"))
    with pytest.raises(GoldOverlayError, match=r"has only \d+ questions \(known: 1 to \d+\)"):
        locomo.gold_overlay_of(_cfg(tmp_path, data_dir, p))
