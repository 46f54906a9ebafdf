# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What the environment says about the rocetor build under test."""

import os

# Set by meson in a -Dsanitize build (the sanitizer list): tests skip only
# their timing assertions there, saying so (sanitized()).
SANITIZED = os.environ.get("ROCETOR_SANITIZED", "")


def sanitized(what, action="skipping"):
    """True in the sanitizer build: the caller then skips (or, as `action`
    says, adapts) the timing assertion `what`, and this prints that it
    does: never a silent skip."""
    if SANITIZED:
        print("sanitizer build (-Dsanitize=%s, ASan slows the data path): %s: %s"
              % (SANITIZED, action, what))
        return True
    return False


# Set by tools/test.sh when the suite runs beside a CPU hog (ROCETOR_HOG=1,
# doc/testing.md "Under CPU pressure").
HOGGED = os.environ.get("ROCETOR_HOG", "0") not in ("", "0")


def hogged(what, why, action="skipping"):
    """True beside a CPU hog: the caller then skips (or adapts) the rate or
    timing check `what`, and this prints that it does and `why` a
    preempted process cannot keep it: never a silent skip, never an order
    or accounting check."""
    if HOGGED:
        print("beside a CPU hog (ROCETOR_HOG): %s: %s (%s)" % (action, what, why))
        return True
    return False
