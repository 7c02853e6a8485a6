# SPDX-License-Identifier: BSD-3-Clause
"""check() for the bench scripts' tests: each check printed, failures counted."""
import sys

failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what)
    else:
        print("ok - " + what)


def finish(name):
    """Print the tally and exit non-zero on any failure."""
    print("%s: %s" % (name, "ok" if failed == 0 else "%d failed" % failed))
    sys.exit(1 if failed else 0)
