#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""One summary line of a meson test log (build dir's meson-logs/testlog.json):

    tools/testlog_summary.py LABEL TESTLOG [SECONDS]

prints "LABEL: N passed, N failed, N skipped[ in S s][: FAILED: name (result), ...]".
Used by tools/test.sh and the CI stages in tools/ci.d/.
"""
import json
import sys


def main(argv):
    label, path = argv[1], argv[2]
    passed, failed, skipped = 0, [], 0
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if r["result"] in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r["result"] == "SKIP":
                skipped += 1
            else:
                failed.append("%s (%s)" % (r["name"], r["result"]))
    print("%s: %d passed, %d failed, %d skipped%s%s"
          % (label, passed, len(failed), skipped,
             (" in %s s" % argv[3]) if len(argv) > 3 else "",
             (": FAILED: " + ", ".join(failed)) if failed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
