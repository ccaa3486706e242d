"""Loaders and metrics of the study: REALTALK and PersonaMem's questions on the real files, the multiple-choice
metric. PersonaMem on a fixture in the official format (loader, prefixes, the stage): test_personamem_*.py."""

import pytest

from tailmem.data import personamem, realtalk
from tailmem.errors import DataError
from tailmem.metrics.multiple_choice import exact_match, option_letter

REALTALK = "/work/shared/data/realtalk"


def test_realtalk_real_files():
    ids = realtalk.chat_ids(REALTALK)
    assert len(ids) == 10 and ids[0] == "Chat_1_Emi_Elise" and ids[-1] == "Chat_10_Fahim_Muhhamed"
    conv = realtalk.load(REALTALK, "Chat_1_Emi_Elise")
    assert conv.speakers == ("Emi", "elise") and len(conv.sessions) == 18 and len(conv.qa) == 70
    assert conv.sessions[0].date_time == "22:42 on 29 December, 2023" and conv.sessions[0].turns[0].dia_id == "D1:1"
    assert {q.category for q in conv.qa} <= {1, 2, 3}
    total = sum(len(realtalk.load(REALTALK, i).qa) for i in ids)
    assert total == 728
    with pytest.raises(DataError, match="Chat_99"):
        realtalk.load(REALTALK, "Chat_99")


def test_real_personamem_questions_load():
    qs = personamem.load_questions("/work/shared/data/personamem/questions_32k.csv")
    assert len(qs) == 589 and all(len(q.options) == 4 for q in qs)


def test_multiple_choice_metric():
    assert option_letter("ANSWER: (c) because ...") == "c" and option_letter("b) sushi") == "b"
    assert option_letter("I am not sure") is None
    assert exact_match("(B)", "(b)") == 1.0 and exact_match("(a)", "(b)") == 0.0 and exact_match("", "(b)") == 0.0
