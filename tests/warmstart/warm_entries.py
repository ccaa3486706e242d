"""Entries the warm-start tests run through the server in place of `tailmem.cli:main` (fn(argv) -> code)."""

import os
import sys
import time


def report(argv):
    """Print what the job sees (argv, folder, one variable, its pid) on stdout, a line on stderr; exit argv[0]."""
    print(f"argv={argv} cwd={os.getcwd()} marker={os.environ.get('WARM_MARKER')} pid={os.getpid()} "
          f"warm={sys.argv[0] == 'tailmem'}")
    print("to stderr", file=sys.stderr)
    return int(argv[0]) if argv else 0


def linger(argv):
    """Write this process's pid to argv[0], then sleep: a job that outlives its client unless killed."""
    with open(argv[0], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(60)
    return 0
