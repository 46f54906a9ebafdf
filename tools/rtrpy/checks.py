# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The check counter of rocetor's Python test programs: check(cond, what)
counts a pass or prints "FAIL: what" (to stderr) and counts a failure;
summary(name) prints "name: N passed, M failed", as the C tests do, and
returns the exit status (0 only if something passed and nothing failed)."""

import sys

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % what, file=sys.stderr)
    return bool(cond)


def summary(name):
    print("%s: %d passed, %d failed" % (name, passed, failed))
    return 0 if failed == 0 and passed > 0 else 1
