"""Entries the warm-start tests run through the server in place of `tailmem.cli:main` (fn(argv) -> code)."""

import os
import sys
import time


def report(argv):
    """Print what the job sees (argv, folder, one variable, its pid) on stdout, a line on stderr; exit argv[0]."""
    print(
        f"argv={argv} cwd={os.getcwd()} marker={os.environ.get('WARM_MARKER')} pid={os.getpid()} "
        f"warm={sys.argv[0] == 'tailmem'}"
    )
    print("to stderr", file=sys.stderr)
    return int(argv[0]) if argv else 0


def linger(argv):
    """Write this process's pid to argv[0], then sleep: a job that outlives its client unless killed."""
    with open(argv[0], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(60)
    return 0


def tokens(argv):
    """Print the o200k token ids of argv[0] and whether the server had loaded the encoding before this job."""
    from tailmem.llm import tokens as tk

    preloaded = tk.get_encoding.cache_info().currsize > 0
    print(f"ids={tk.get_encoding().encode_ordinary(argv[0])} preloaded={preloaded} warm={sys.argv[0] == 'tailmem'}")
    return 0
