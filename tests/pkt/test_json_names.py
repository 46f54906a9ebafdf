#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Every JSON output of rocetor's C programs parses, with Python's json
module as the independent judge, when the strings a user controls are
full of quotes, backslashes and control characters:

- switch.name (printable ASCII, as the config allows: quotes and
  backslashes) in the --stats-json document, the --stats-interval
  documents on stdout (found as tools/bench finds them: a line that starts
  with {"switch"), and the telemetry replies /rocetor/stats and
  /rocetor/config;
- the config file's path (any byte but NUL and '/': quotes, backslashes,
  tab, newline, 0x01, 0x1f, 0x7f and 0xff, a byte that is not UTF-8) in
  /rocetor/config and rocetor-info's budget input, and the simulator's
  --config and --workload paths in its summary.json;
- the egress report (ports[].classes, ports[].pfc) inside the stats
  document, and rocetor-info modes.

Each string must come back as it was given (bytes that are not UTF-8 as
U+FFFD; DPDK 22.11's telemetry encoder leaves out the control characters
it has no short escape for and the bytes above 0x7f, doc/tools.md)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from rtrpy import dpdk  # noqa: E402

BUILD = os.environ.get("ROCETOR_BUILD") or os.path.join(harness.SRC_ROOT, "build")
INFO = os.environ.get("ROCETOR_INFO") or os.path.join(BUILD, "app", "rocetor-info")
# ROCETOR_SIM set and empty: a build without the simulator (-Dsim=false).
SIM = os.environ.get("ROCETOR_SIM")
NO_SIM = SIM == ""
SIM = SIM or os.path.join(BUILD, "tools", "sim", "rocetor-sim")
WORKLOAD = os.path.join(harness.SRC_ROOT, "..", "shared", "data", "workloads",
                        "AliStorage2019.txt")

# At most 63 characters, printable ASCII (the config's rule for switch.name).
NAME = 'q"u\\o"te \\\\ \\" {"x": 1}, \\u0000 \'sw\''
# Any byte a file name may hold; 0xff is not UTF-8.
ODD = b'c"f\\g \t\x01\x1f\x7f\n\xff"'

CONFIG = """switch: {name: %s, role: tor, id: 7, lb: conweave}
ports:
  - {port: 0, role: host}
  - {port: 1, role: fabric}
routes:
  - {prefix: "10.2.0.0/16", paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"}]}
""" % json.dumps(NAME)


def as_json(path):
    """What a path reads as in JSON: bytes that are not UTF-8 are U+FFFD."""
    return path.decode("utf-8", errors="replace")


def parse(t, what, text):
    """text as JSON (bytes: must be UTF-8), or None after a failed check."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        doc = json.loads(text)
    except ValueError as e:
        t.check(False, "%s does not parse: %s: %r" % (what, e, text[:300]))
        return None
    t.check(True)
    return doc


def check_stats(t, doc, what):
    t.eq(doc.get("switch"), NAME, "%s: switch" % what)
    ports = doc.get("ports") or [{}]
    t.eq([p.get("port") for p in ports], [0, 1], "%s: ports" % what)
    t.check(all(isinstance(p.get("classes"), list) and p["classes"] and
                isinstance(p.get("pfc"), dict) for p in ports),
            "%s: the egress report in each port: %r" % (what, ports[0]))


def run_rocetor(t, work, cfg):
    prefix = harness.eal_prefix("jsonnames")
    sj = os.path.join(work, b"stats.json")
    cmd = [harness.ROCETOR, "-l", "0", "--no-pci", "--no-huge", "-m", "512",
           "--file-prefix", prefix, "--log-level", "lib.eal:error",
           "--vdev", "net_null0,size=64", "--vdev", "net_null1,size=64",
           "--", "--config", cfg, "--duration", "3", "--stats-interval", "0.5",
           "--stats-json", sj]
    proc = dpdk.Proc([os.fsdecode(c) if isinstance(c, bytes) else c for c in cmd],
                     who="json-names")
    tel = None
    try:
        tel = harness.Telemetry(prefix)
        # Telemetry answers null until forwarding has started.
        deadline = time.time() + 20
        stats = None
        while stats is None and time.time() < deadline:
            stats = tel.cmd("/rocetor/stats")
            time.sleep(0.05)
        config = tel.cmd("/rocetor/config")
    finally:
        if tel is not None:
            tel.close()
    t.eq(proc.wait(60), 0, "rocetor's exit status: " + proc.text("err")[-500:])
    # Telemetry (DPDK's own encoder: the reply is parsed by rtrpy's client).
    t.check(isinstance(stats, dict), "/rocetor/stats: %r" % (stats,))
    t.eq((stats or {}).get("switch"), NAME, "/rocetor/stats switch")
    t.check(isinstance(config, dict), "/rocetor/config: %r" % (config,))
    config = config or {}
    t.eq(config.get("name"), NAME, "/rocetor/config name")
    # DPDK 22.11's encoder escapes quotes, backslashes, \t \n \r and
    # leaves out the other control characters and the bytes above 0x7f.
    printable = "".join(c for c in os.fsdecode(cfg) if c in "\t\n\r" or " " <= c <= "\x7f")
    t.eq(config.get("file"), printable, "/rocetor/config file (control characters dropped)")
    # --stats-json.
    with open(sj, "rb") as f:
        doc = parse(t, "--stats-json", f.read())
    if doc is not None:
        check_stats(t, doc, "--stats-json")
        # The exit document: every packet net_null gave accounted.
        ok, why = harness.accounted(doc)
        t.check(ok, "--stats-json: accounting: " + why)
    # --stats-interval: the documents on stdout, as tools/bench reads them.
    out = proc.text()
    starts = [m.start() for m in re.finditer(r'^\{"switch"', out, re.M)]
    t.check(len(starts) >= 2, "--stats-interval documents on stdout: %d" % len(starts))
    dec = json.JSONDecoder()
    docs, bad = [], []
    for n, at in enumerate(starts):
        try:
            docs.append(dec.raw_decode(out, at)[0])
        except ValueError as e:
            bad.append("document %d: %s: %r" % (n, e, out[at:at + 200]))
    t.check(not bad, "--stats-interval documents that do not parse: %s" % bad)
    if docs:
        check_stats(t, docs[-1], "the last --stats-interval document")


def run_info(t, cfg):
    p = subprocess.run([INFO, "modes"], capture_output=True, timeout=60)
    t.eq(p.returncode, 0, "rocetor-info modes: %r" % p.stderr)
    modes = parse(t, "rocetor-info modes", p.stdout)
    t.check(modes is not None and len(modes.get("modes", [])) >= 5, "modes: %r" % (modes,))
    p = subprocess.run([INFO, "budget", "--config", cfg, "--workers", "2"],
                       capture_output=True, timeout=60)
    t.eq(p.returncode, 0, "rocetor-info budget: %r" % p.stderr)
    b = parse(t, "rocetor-info budget", p.stdout)
    t.check(b is not None and b.get("mbufs", 0) > 0, "budget: %r" % (b,))


def run_sim(t, work):
    wl = os.path.join(work, b"wl" + ODD + b".txt")
    shutil.copy(WORKLOAD, wl)
    cfg = os.path.join(work, b"sim" + ODD + b".yaml")
    shutil.copy(os.path.join(harness.SRC_ROOT, "conf", "sim", "irn.yaml"), cfg)
    out = os.path.join(work, b"sim" + ODD.replace(b"\n", b""))
    p = subprocess.run([SIM, "--topo", "leafspine", "--tors", "2", "--spines", "2",
                        "--hosts-per-tor", "2", "--link-gbps", "100", "--link-delay-ns", "1000",
                        "--workload", wl, "--load", "0.3", "--duration-ms", "0.5",
                        "--lb", "ecmp", "--transport", "irn", "--config", cfg,
                        "--seed", "1", "--out", out, "--quiet"], capture_output=True, timeout=300)
    t.eq(p.returncode, 0, "rocetor-sim: %r" % p.stderr[-500:])
    try:
        with open(os.path.join(out, b"summary.json"), "rb") as f:
            raw = f.read()
    except OSError as e:
        t.check(False, "summary.json: %s" % e)
        return
    s = parse(t, "summary.json", raw)
    if s is None:
        return
    params = s.get("params", {})
    t.eq(params.get("workload"), as_json(wl), "summary.json params.workload")
    t.eq(params.get("config"), as_json(cfg), "summary.json params.config")
    t.check(s.get("flows", {}).get("started", 0) > 0, "the simulation ran: %r" % s.get("flows"))


def main():
    t = harness.Checker("json-names")
    work = tempfile.mkdtemp(prefix="rocetor-json-").encode()
    try:
        cfg = os.path.join(work, ODD + b".yaml")
        with open(cfg, "w") as f:
            f.write(CONFIG)
        run_info(t, cfg)
        if NO_SIM:
            print("json-names: rocetor-sim not built (-Dsim=false): its summary.json left out")
        else:
            run_sim(t, work)
        run_rocetor(t, work, cfg)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
