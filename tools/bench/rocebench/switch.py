# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""What the switch says about itself, from build/app/rocetor-info (the LB
mode registry and app's mempool budget function, doc/tools.md): the list of
LB modes and the mbufs a config needs. The bench copies neither: a new mode
appears in the matrix, and a change of the pool formula reaches the bench,
without an edit here.

  rocetor-info modes
      {"modes": [{"id", "name", "summary", "implemented", "spine", "holds"}]}
  rocetor-info budget --config FILE [--workers N] [--telemetry-rw]
      {"mbufs", "need", "parts": {...}, "hold_budget_per_worker", "hold_key",
       "data_room"}

The tool sits next to rocetor (ROCETOR_INFO overrides)."""

import json
import os
import subprocess
import tempfile

_cache = {}


class SwitchInfoError(RuntimeError):
    pass


def info_path(rocetor):
    """rocetor-info of the build that made `rocetor` (its directory), or
    $ROCETOR_INFO."""
    return os.environ.get("ROCETOR_INFO") or os.path.join(
        os.path.dirname(os.path.abspath(rocetor)), "rocetor-info")


def ask(tool, args):
    """The JSON rocetor-info prints for args (cached); SwitchInfoError when
    the tool is missing or fails."""
    key = (tool, tuple(args))
    if key in _cache:
        return _cache[key]
    if not os.access(tool, os.X_OK):
        raise SwitchInfoError("%s not found (build it: ninja -C build): the LB modes and "
                              "the mempool budget come from it" % tool)
    r = subprocess.run([tool] + list(args), capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise SwitchInfoError("%s %s: exit %d: %s" % (tool, " ".join(args), r.returncode,
                                                      (r.stderr or r.stdout).strip()[-400:]))
    try:
        v = json.loads(r.stdout)
    except ValueError as e:
        raise SwitchInfoError("%s %s: not JSON (%s): %s" % (tool, " ".join(args), e,
                                                           r.stdout[:200]))
    _cache[key] = v
    return v


def modes(tool):
    """The registry's modes, in id order."""
    return sorted(ask(tool, ["modes"])["modes"], key=lambda m: m["id"])


def budget(tool, config_text, workers=1, telemetry_rw=False, no_rss_owner=False):
    """rocetor-info budget of a config (given as text); no_rss_owner: its
    rx_queues (the worker of each RX queue) as for devices without RSS."""
    key = ("budget", tool, config_text, workers, telemetry_rw, no_rss_owner)
    if key in _cache:
        return _cache[key]
    fd, path = tempfile.mkstemp(prefix="rtrbench-budget-", suffix=".yaml")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(config_text)
        args = ["budget", "--config", path, "--workers", str(workers)]
        if telemetry_rw:
            args.append("--telemetry-rw")
        if no_rss_owner:
            args.append("--no-rss-owner")
        try:
            v = ask(tool, args)
        finally:
            _cache.pop((tool, tuple(args)), None)  # the temporary path means nothing later
    finally:
        os.unlink(path)
    _cache[key] = v
    return v
