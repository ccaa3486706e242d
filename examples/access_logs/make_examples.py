"""Writes the two small example logs shipped beside this script (re-run it to check they are what it makes).

agent_reads.jsonl, in tailmem's access-log format (docs/access-log.md): 3 runs of an agent with 15 episodes of
40 steps each over a store of 400 notes; at each step it reads one note, the note of popularity rank r with
probability proportional to r^-1.1 (a Zipf law over ranks, so the reads per note have a heavy tail), and each
read costs the note's length in tokens. mem0_search.jsonl: 12 mem0 `search` calls returning three memories each,
too few reads for a tail fit (the audit says so).

    python examples/access_logs/make_examples.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 31


def agent_reads(rng: np.random.Generator) -> list[dict]:
    notes = 400
    popularity = np.arange(1, notes + 1, dtype=float) ** -1.1
    popularity /= popularity.sum()
    names = [f"notes/{i:03d}.md" for i in rng.permutation(notes)]
    tokens = rng.integers(40, 400, size=notes)
    events = []
    for run in range(3):
        for episode in range(15):
            for step in range(40):
                k = int(rng.choice(notes, p=popularity))
                events.append(
                    {
                        "run": f"run{run}",
                        "episode": episode,
                        "step": step,
                        "item": names[k],
                        "tokens": int(tokens[k]),
                        "source": "read_file",
                    }
                )
    return events


def mem0_search(rng: np.random.Generator) -> list[dict]:
    memories = [f"mem-{i:02d}" for i in range(20)]
    out = []
    for i in range(12):
        picked = rng.choice(len(memories), size=3, replace=False)
        out.append(
            {
                "query": f"what did the user say about topic {i % 4}?",
                "user_id": f"user{i % 2}",
                "results": [{"id": memories[j], "score": round(float(rng.random()), 3)} for j in picked],
            }
        )
    return out


def main() -> None:
    rng = np.random.default_rng(SEED)
    for name, rows in (("agent_reads.jsonl", agent_reads(rng)), ("mem0_search.jsonl", mem0_search(rng))):
        (HERE / name).write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))


if __name__ == "__main__":
    main()
