"""PersonaMem fixtures in the official format: questions_<tier>.csv with the official columns and
shared_contexts_<tier>.jsonl (one {shared_context_id: [{role, content}, ...]} object per line).

Every message carries a unique marker word (`zc<context>m<message>`, e.g. zc1m007 = context 1, message 7), so a
test can tell exactly which messages a store holds."""

import csv
import json
from pathlib import Path

import pytest

HEADER = (
    "persona_id,question_id,question_type,topic,context_length_in_tokens,context_length_in_letters,"
    "distance_to_ref_in_blocks,distance_to_ref_in_tokens,num_irrelevant_tokens,distance_to_ref_proportion_in_context,"
    "user_question_or_message,correct_answer,all_options,shared_context_id,end_index_in_shared_context"
)

# context id -> [(role, text)]; the marker is prefixed to each text
CONTEXTS = {
    "ctx1": [
        ("system", "Persona: the user is a graduate student in Denver who likes the outdoors."),
        ("user", "I love hiking in the Alps every summer, mountain trails are my thing."),
        ("assistant", "Hiking in the Alps sounds wonderful."),
        ("user", "Also, I love sushi more than any other food."),
        ("assistant", "Sushi is a great choice."),
        ("user", "I have started learning the cello at a community music school."),
        ("assistant", "The cello is a lovely instrument to learn."),
        ("user", "Lately I stopped eating fish and became vegetarian for health reasons."),
        ("assistant", "Going vegetarian is a big change, good luck with it."),
        ("user", "This message comes after every question's end index: I now hate hiking."),
    ],
    "ctx2": [
        ("system", "Persona: the user is a nurse in Lisbon who reads a lot."),
        ("user", "My favourite genre is science fiction, especially space opera novels."),
        ("assistant", "Space opera is a fun genre."),
        ("user", "I adopted a cat named Pixel last spring."),
        ("assistant", "Pixel is a cute name for a cat."),
        ("user", "I switched from science fiction to historical mysteries this year."),
        ("assistant", "Historical mysteries are gripping."),
        ("user", "Late message that no question may see: I moved to Porto."),
    ],
}

# (question_id, type, question, options, correct letter, context, end index)
QUESTIONS = [
    (
        "q1",
        "provide_preference_aligned_recommendations",
        "What should I do this weekend?",
        [
            "You could try a new jazz album.",
            "Since you love hiking in the Alps, try a mountain trail.",
            "How about a cooking class?",
            "Stay home.",
        ],
        "b",
        "ctx1",
        3,
    ),
    (
        "q2",
        "recall_user_shared_facts",
        "What food do I like?",
        ["Pasta.", "Sushi, since you mentioned you love sushi.", "Pizza.", "Tacos."],
        "b",
        "ctx1",
        5,
    ),
    (
        "q3",
        "recall_user_shared_facts",
        "Which instrument am I learning?",
        ["The drums.", "The violin.", "The cello, at a community music school.", "The flute."],
        "c",
        "ctx1",
        7,
    ),
    (
        "q4",
        "track_full_preference_evolution",
        "What diet do I follow now?",
        ["I eat sushi every day.", "Vegetarian, since you stopped eating fish for health reasons.", "Keto.", "Vegan."],
        "b",
        "ctx1",
        9,
    ),
    (
        "q5",
        "recall_user_shared_facts",
        "What is the name of my pet?",
        ["Rex.", "Mittens.", "Bella.", "Pixel, the cat you adopted last spring."],
        "d",
        "ctx2",
        5,
    ),
    (
        "q6",
        "track_full_preference_evolution",
        "Which books do I read these days?",
        [
            "Space opera only.",
            "Historical mysteries, since you switched from science fiction.",
            "Cookbooks.",
            "Poetry.",
        ],
        "b",
        "ctx2",
        7,
    ),
    (
        "q7",
        "provide_preference_aligned_recommendations",
        "Can you recommend a novel for me?",
        [
            "A cookbook.",
            "A romance.",
            "A space opera novel, since science fiction is your favourite genre.",
            "A biography.",
        ],
        "c",
        "ctx2",
        3,
    ),
]


def marker(context: str, number: int) -> str:
    """The marker word of message `number` (1-based) of a context."""
    return f"zc{context[-1]}m{number:03d}"


def messages(context: str) -> list[dict]:
    return [{"role": r, "content": f"{marker(context, n)} {t}"} for n, (r, t) in enumerate(CONTEXTS[context], 1)]


def write_personamem(folder: Path, tier: str = "32k", with_contexts: bool = True, python_options: bool = True) -> Path:
    """Write one tier of the fixture into `folder`; the second question's options use a Python list literal
    (single quotes), as some official rows do."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, (qid, qtype, text, opts, gold, ctx, end) in enumerate(QUESTIONS):
        labelled = [f"({'abcd'[k]}) {o}" for k, o in enumerate(opts)]
        options = str(labelled) if python_options and i == 1 else json.dumps(labelled)
        rows.append(
            ["0", qid, qtype, "topic", "300", "1000", "1", "10", "0", "50%", text, f"({gold})", options, ctx, str(end)]
        )
    with (folder / f"questions_{tier}.csv").open("w", newline="") as fh:
        fh.write(HEADER + "\n")
        csv.writer(fh).writerows(rows)
    if with_contexts:
        (folder / f"shared_contexts_{tier}.jsonl").write_text(
            "".join(json.dumps({c: messages(c)}) + "\n" for c in CONTEXTS)
        )
    return folder


@pytest.fixture
def personamem_data(tmp_path) -> Path:
    """A data folder holding the 32k tier in full and no 128k tier."""
    return write_personamem(tmp_path / "personamem")


@pytest.fixture
def pm():
    """The fixture's writer and contents, for tests that need more than one data folder or the markers."""
    from types import SimpleNamespace

    return SimpleNamespace(
        write=write_personamem, marker=marker, messages=messages, contexts=CONTEXTS, questions=QUESTIONS
    )
