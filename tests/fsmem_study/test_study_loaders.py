"""Loaders and metrics of the study: REALTALK on the real files, PersonaMem on a fixture in the official format
(and the stage's skip message when the shared contexts are absent), the multiple-choice metric."""

import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from tailmem.cli import config_dir
from tailmem.data import personamem, realtalk
from tailmem.errors import DataError
from tailmem.metrics.multiple_choice import exact_match, option_letter

REALTALK = "/work/shared/data/realtalk"
HEADER = ("persona_id,question_id,question_type,topic,context_length_in_tokens,context_length_in_letters,"
          "distance_to_ref_in_blocks,distance_to_ref_in_tokens,num_irrelevant_tokens,distance_to_ref_proportion_in_context,"
          "user_question_or_message,correct_answer,all_options,shared_context_id,end_index_in_shared_context\n")


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


def write_fixture(folder: Path, with_contexts: bool = True) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    opts = json.dumps(["(a) You could try a new jazz album.", "(b) Since you love hiking in the Alps, try a mountain trail.",
                       "(c) How about a cooking class?", "(d) Stay home."])
    opts_py = str(["(a) Pasta.", "(b) Sushi, since you mentioned you love sushi.", "(c) Pizza.", "(d) Tacos."])
    rows = [
        ["0", "q1", "provide_preference_aligned_recommendations", "travel", "30", "100", "1", "10", "0", "50%",
         "What should I do this weekend?", "(b)", opts, "ctx1", "3"],
        ["0", "q2", "recall_user_shared_facts", "food", "30", "100", "1", "10", "0", "50%",
         "What food do I like?", "(b)", opts_py, "ctx1", "5"],
    ]
    import csv

    with (folder / "questions_32k.csv").open("w", newline="") as fh:
        fh.write(HEADER)
        csv.writer(fh).writerows(rows)
    if with_contexts:
        msgs = [{"role": "system", "content": "Persona: a student."},
                {"role": "user", "content": "I love hiking in the Alps every summer, mountain trails are my thing."},
                {"role": "assistant", "content": "Hiking in the Alps sounds wonderful."},
                {"role": "user", "content": "Also, I love sushi more than any other food."},
                {"role": "assistant", "content": "Sushi is great."},
                {"role": "user", "content": "This message comes after every question's end index."}]
        (folder / "shared_contexts_32k.jsonl").write_text(json.dumps({"ctx1": msgs}) + "\n")


def test_personamem_fixture(tmp_path):
    write_fixture(tmp_path)
    qs = personamem.load_questions(personamem.questions_path(tmp_path, "32k"))
    assert [q.answer for q in qs] == ["b", "b"] and qs[1].options[1].startswith("Sushi")
    ctx = personamem.load_contexts(personamem.contexts_path(tmp_path, "32k"))
    seen = personamem.context_for(qs[0], ctx)
    assert len(seen) == 3 and seen[-1].role == "assistant" and "sushi" not in " ".join(m.content for m in seen)
    assert personamem.missing(tmp_path, "32k") == [] and len(personamem.missing(tmp_path, "128k")) == 2


def test_real_personamem_questions_load():
    qs = personamem.load_questions("/work/shared/data/personamem/questions_32k.csv")
    assert len(qs) == 589 and all(len(q.options) == 4 for q in qs)


def test_multiple_choice_metric():
    assert option_letter("ANSWER: (c) because ...") == "c" and option_letter("b) sushi") == "b"
    assert option_letter("I am not sure") is None
    assert exact_match("(B)", "(b)") == 1.0 and exact_match("(a)", "(b)") == 0.0 and exact_match("", "(b)") == 0.0


def _cfg(tmp_path, data):
    with initialize_config_dir(version_base="1.3", config_dir=str(config_dir())):
        return compose(config_name="config", overrides=[f"results_dir={tmp_path}", f"fsmem.personamem.data_dir={data}",
                                                        "stage=fsmem_personamem"])


def test_personamem_stage_skips_without_contexts(tmp_path, caplog):
    from tailmem.stages import personamem as stage

    write_fixture(tmp_path / "data", with_contexts=False)
    stage.run(_cfg(tmp_path, tmp_path / "data"))
    md = (tmp_path / "tables/fsmem_personamem.md").read_text()
    assert "skipped: shared_contexts_32k.jsonl absent" in md and "skipped: questions_128k.csv" in md
    assert "shared_contexts_32k.jsonl" in caplog.text


def test_personamem_stage_runs_on_fixture(tmp_path):
    from tailmem.stages import personamem as stage

    write_fixture(tmp_path / "data")
    stage.run(_cfg(tmp_path, tmp_path / "data"))
    import pandas as pd

    df = pd.read_csv(tmp_path / "tables/fsmem_personamem.csv")
    row = df[df.tier == "32k"].iloc[0]
    assert row.status == "ran" and row.answered == 2 and 0.0 <= row.accuracy <= 1.0
