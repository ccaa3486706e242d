"""A stage-like script for the cache tests: n sequential calls (or one chat_many batch), outputs written at the end.

usage: python llm_stage_script.py CACHE BASE_URL OUT N [--many] [--shards]
"""

import json
import sys
from pathlib import Path

from llm_testkit import llm_cfg
from tailmem.llm import get_client


def main(argv):
    cache, base_url, out, n = argv[0], argv[1], argv[2], int(argv[3])
    layout = "shards" if "--shards" in argv else "file"
    cfg = llm_cfg(Path("."), base_url, cache_path=cache, concurrency=4, cache_layout=layout)
    client = get_client(cfg, "policy", "stage-script")
    prompts = [[{"role": "user", "content": f"step {i}"}] for i in range(n)]
    if "--many" in argv:
        replies = client.chat_many([{"messages": p} for p in prompts])
    else:
        replies = [client.chat(p) for p in prompts]
    Path(out).write_text(json.dumps([[r.content, r.usage.prompt_tokens, r.latency_s] for r in replies]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
