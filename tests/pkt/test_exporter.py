#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""tools/rocetor-exporter: /metrics parsed line by line against the
Prometheus text format 0.0.4 by a strict parser of our own, before, while
and after a rocetor forwards without end (livesw.py):

- no rocetor: rocetor_up 0 and nothing else;
- rocetor running (spray): rocetor_up 1, rocetor_info names the switch and
  the mode, every counter of /rocetor/stats, /rocetor/ports and /rocetor/lb
  is there under its documented name, and its value lies between the
  values read from telemetry just before and just after the scrape
  (counters only grow); every TYPE and HELP is what /rocetor/counters
  serves, whose LB names, help and gauges are the lib/lb headers' (the
  gauges the "(gauge" ones);
- rocetor stopped: rocetor_up 0 again, the exporter still serving;
  it logged each of the two changes once; SIGTERM stops it (status 0).
"""
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import livesw  # noqa: E402
from rtrpy import dpdk  # noqa: E402
from rtrpy.telemetry import counter_families  # noqa: E402
from test_top import header_counters, header_gauges  # noqa: E402

EXPORTER = os.path.join(harness.SRC_ROOT, "tools", "rocetor-exporter")

# The text format 0.0.4 (Prometheus "Exposition formats").
METRIC = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r"(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)"
HELP_RE = re.compile(r"^# HELP (%s) ((?:[^\\\n]|\\\\|\\n)*)$" % METRIC)
TYPE_RE = re.compile(r"^# TYPE (%s) (counter|gauge|histogram|summary|untyped)$" % METRIC)
SAMPLE_RE = re.compile(r"^(%s)(?:\{(.*)\})? (%s)(?: (-?\d+))?$" % (METRIC, VALUE))
PAIR_RE = re.compile(r'(%s)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"' % LABEL)


class FormatError(Exception):
    pass


def parse_labels(text):
    """'a="x",b="y"' -> (("a", "x"), ("b", "y")); strict: no duplicates,
    nothing between pairs but one comma (a trailing comma is allowed)."""
    out = []
    pos = 0
    while pos < len(text):
        m = PAIR_RE.match(text, pos)
        if not m:
            raise FormatError("bad label at %r" % text[pos:])
        value = re.sub(r"\\(.)", lambda e: {"n": "\n"}.get(e.group(1), e.group(1)), m.group(2))
        out.append((m.group(1), value))
        pos = m.end()
        if pos < len(text):
            if text[pos] != ",":
                raise FormatError("expected , at %r" % text[pos:])
            pos += 1
    names = [k for k, _ in out]
    if len(names) != len(set(names)):
        raise FormatError("duplicate label in {%s}" % text)
    return tuple(out)


def parse(text):
    """{family: {"type", "help", "samples": {labels: value}}} of an
    exposition; raises FormatError at the first line that breaks the format
    or these rules: every line ends with \\n, no blank line, HELP and TYPE
    at most once per family and before its samples, every family typed,
    a family's samples in one group, no series twice, counters >= 0."""
    if not text.endswith("\n"):
        raise FormatError("does not end with a newline")
    fams = {}
    done = set()
    current = None
    for n, line in enumerate(text[:-1].split("\n"), 1):
        where = "line %d %r: " % (n, line)
        if line == "":
            raise FormatError(where + "blank line")
        if line.startswith("#"):
            for rx, key in ((HELP_RE, "help"), (TYPE_RE, "type")):
                m = rx.match(line)
                if m:
                    fam = fams.setdefault(m.group(1), {"samples": {}})
                    if key in fam:
                        raise FormatError(where + key.upper() + " twice")
                    if fam["samples"]:
                        raise FormatError(where + key.upper() + " after samples")
                    fam[key] = m.group(2)
                    break
            else:
                if line.startswith(("# HELP", "# TYPE")):
                    raise FormatError(where + "malformed HELP/TYPE")
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            raise FormatError(where + "not a sample")
        name = m.group(1)
        fam = fams.get(name)
        if fam is None or "type" not in fam:
            raise FormatError(where + "sample before its TYPE")
        if fam["type"] not in ("counter", "gauge", "untyped"):
            raise FormatError(where + "unexpected type " + fam["type"])
        if name != current:
            if name in done:
                raise FormatError(where + "family %s split in two groups" % name)
            if current:
                done.add(current)
            current = name
        labels = parse_labels(m.group(2) or "")
        if labels in fam["samples"]:
            raise FormatError(where + "series twice")
        value = float(m.group(3))
        if fam["type"] == "counter" and (math.isnan(value) or value < 0):
            raise FormatError(where + "counter not >= 0")
        fam["samples"][labels] = value
    return fams


def scrape(url):
    """(status, Content-Type, body)."""
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def read_all(tel):
    return {"stats": tel.cmd("/rocetor/stats"), "ports": tel.cmd("/rocetor/ports"),
            "lb": tel.cmd("/rocetor/lb")}


def json_value(doc, name, labels):
    """The telemetry value a sample stands for, by the documented mapping;
    KeyError when there is none."""
    lab = dict(labels)
    short = name[len("rocetor_"):]
    if short == "drops":
        return doc["stats"]["drops"][lab["reason"]]
    if short.startswith("port_"):
        return doc["ports"][lab["port"]][short[5:]]
    if short == "path_tx_packets":
        return doc["lb"]["group_%s_path_tx" % lab["group"]][int(lab["path"])]
    if short.startswith("lb_") and short[3:] in doc["lb"]["counters"]:
        return doc["lb"]["counters"][short[3:]]
    return doc["stats"][short]


def json_counters(doc):
    """Every number of the three replies, by the metric name it maps to."""
    names = set()
    for k, v in doc["stats"].items():
        if k == "drops":
            names |= {("rocetor_drops", r) for r in v}
        elif isinstance(v, (int, float)) and k != "uptime_ms":
            names.add(("rocetor_" + k, None))
    for p, e in doc["ports"].items():
        names |= {("rocetor_port_" + k, p) for k, v in e.items() if isinstance(v, (int, float))}
    names |= {("rocetor_lb_" + k, None) for k in doc["lb"]["counters"]}
    return names


def exported_keys(fams):
    keys = set()
    for name, fam in fams.items():
        for labels in fam["samples"]:
            lab = dict(labels)
            keys.add((name, lab.get("reason", lab.get("port"))))
    return keys


def check_down(t, url, when):
    status, ctype, body = scrape(url)
    t.eq(status, 200, "%s: status" % when)
    try:
        fams = parse(body)
    except FormatError as e:
        t.check(False, "%s: %s" % (when, e))
        return
    t.eq(sorted(fams), ["rocetor_up"], "%s: only rocetor_up" % when)
    t.eq(fams.get("rocetor_up", {}).get("samples"), {(): 0.0}, "%s: rocetor_up 0" % when)
    t.eq(fams.get("rocetor_up", {}).get("type"), "gauge", "%s: rocetor_up is a gauge" % when)


def esc_help(text):
    """A HELP text as the text format writes it."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def served(tel):
    """{metric: (type, help)} as the exporter must write them: rocetor's
    /rocetor/counters under the documented names, and its own two."""
    fam_help, fams = counter_families(tel)
    out = {"rocetor_up": ("gauge", None), "rocetor_info": ("gauge", None)}
    for k, v in fams["stats"].items():
        out["rocetor_" + ("uptime_s" if k == "uptime_ms" else k)] = v
    out["rocetor_drops"] = ("counter", fam_help["drops"])
    for k, v in fams["ports"].items():
        out["rocetor_port_" + k] = v
    for k, v in fams["lb"].items():
        out["rocetor_lb_" + k] = v
    out["rocetor_path_tx_packets"] = fams["paths"]["path_tx"]
    out["rocetor_path_live"] = fams["paths"]["live_mask"]
    return fams, out


def check_up(t, url, prefix):
    tel = harness.Telemetry(prefix)
    try:
        described, want_meta = served(tel)
        before = read_all(tel)
        status, ctype, body = scrape(url)
        # A little later, so that the traffic shows between the two reads
        # even if the worker was off its CPU during the scrape (a shared
        # machine); the bounds hold all the same.
        time.sleep(0.2)
        after = read_all(tel)
    finally:
        tel.close()
    t.eq(status, 200, "scrape status")
    t.check(ctype.startswith("text/plain") and "version=0.0.4" in ctype, "Content-Type " + ctype)
    try:
        parse_result = parse(body)
    except FormatError as e:
        t.check(False, "exposition: %s" % e)
        return
    t.check(True)
    # What rocetor serves is what lib/lb's lists say (the gauges are the
    # "(gauge" ones), and the exporter's HELP is rocetor's.
    t.eq({k for k, (kind, _) in described["lb"].items() if kind == "gauge"}, header_gauges(),
         "/rocetor/counters' LB gauges vs lib/lb headers")
    t.eq({k: text for k, (_, text) in described["lb"].items()}, header_counters(),
         "/rocetor/counters' LB help vs lib/lb headers")
    fams = parse_result
    wrong_help = [n for n, f in fams.items() if want_meta.get(n, (0, None))[1] is not None
                  and f.get("help") != esc_help(want_meta[n][1])]
    t.check(not wrong_help, "HELP not rocetor's: %s" % wrong_help[:5])
    t.eq(fams["rocetor_up"]["samples"], {(): 1.0}, "rocetor_up 1")
    t.eq(fams["rocetor_info"]["samples"],
         {(("switch", "exp1"), ("lb_mode", "spray")): 1.0}, "rocetor_info")
    t.check(before["stats"]["forwarded"] < after["stats"]["forwarded"],
            "traffic runs during the scrape")
    up = fams["rocetor_uptime_s"]["samples"][()]
    t.check(before["stats"]["uptime_ms"] / 1000 <= up <= after["stats"]["uptime_ms"] / 1000,
            "uptime_s %r between the reads" % up)
    # Every number of telemetry is exported, and nothing unexplained.
    want = json_counters(after)
    have = exported_keys(fams)
    missing = want - have
    t.check(not missing, "missing from /metrics: %s" % sorted(missing)[:10])
    # Counters: between the telemetry reads before and after the scrape.
    compared = 0
    for name, fam in fams.items():
        kind = fam["type"]
        t.eq(kind, want_meta.get(name, ("a metric rocetor does not describe",))[0],
             "TYPE of " + name)
        if not fam.get("help"):
            t.check(False, "no HELP for " + name)
        if kind != "counter":
            continue
        for labels, v in fam["samples"].items():
            try:
                lo, hi = json_value(before, name, labels), json_value(after, name, labels)
            except (KeyError, IndexError, ValueError) as e:
                t.check(False, "%s%r: no telemetry value (%s)" % (name, labels, e))
                continue
            if not lo <= v <= hi:
                t.check(False, "%s%r = %r not in [%r, %r]" % (name, labels, v, lo, hi))
            compared += 1
    t.check(compared >= 100, "%d counters compared" % compared)
    # Labels: every drop reason, every port with its role.
    t.eq({dict(k)["reason"] for k in fams["rocetor_drops"]["samples"]},
         set(after["stats"]["drops"]), "drop reasons")
    t.eq({(dict(k)["port"], dict(k)["role"]) for k in fams["rocetor_port_rx_packets"]["samples"]},
         {(p, e["role"]) for p, e in after["ports"].items()}, "port labels")
    t.check(fams["rocetor_port_rx_packets"]["samples"][(("port", "0"), ("role", "host"))] > 0,
            "port 0 received")
    live = fams["rocetor_path_live"]["samples"]
    t.eq(sorted(live.items()), [((("group", "0"), ("path", "0")), 1.0),
                                ((("group", "0"), ("path", "1")), 1.0)], "path_live")
    t.eq(fams["rocetor_lb_windows_in_use"]["type"], "gauge", "spray gauge")


def main():
    t = harness.Checker("exporter")
    t.check(os.access(EXPORTER, os.X_OK), "tools/rocetor-exporter is executable")
    # The parser itself refuses what it must (else the checks above prove
    # nothing).
    for bad in ("# TYPE a counter\na 1\n# TYPE a counter\n", "a 1\n",
                "# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n", "# TYPE a gauge\na 1x\n",
                "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na{l=\"2\"} 1\n",
                "# TYPE a counter\na -1\n", "# TYPE a gauge\na 1", "# TYPE a gauge\n\na 1\n",
                "# TYPE a gauge\na{1x=\"1\"} 1\n", "# TYPE a gauge\na 1\na 2\n"):
        try:
            parse(bad)
            t.check(False, "parser accepted %r" % bad)
        except FormatError:
            t.check(True)
    t.eq(parse('# HELP a x\\\\y\n# TYPE a gauge\na{l="q\\"\\n"} -Inf\na{l="r",} 2.5e3 17\n')
         ["a"]["samples"], {(("l", 'q"\n'),): float("-inf"), (("l", "r"),): 2500.0},
         "parser reads a valid exposition")

    work = tempfile.mkdtemp(prefix="rocetor-exporter-")
    prefix = harness.eal_prefix("exp")
    ex = dpdk.Proc(["/usr/bin/python3", EXPORTER, "--listen", "127.0.0.1:0", "-f", prefix],
                   who="exporter")
    sw = None
    try:
        ok = ex.wait_for(lambda: "serving http://" in ex.text(), 20)
        t.check(ok, "exporter started: " + ex.text("err"))
        m = re.search(r"serving (http://[\d.]+:\d+)/metrics", ex.text())
        if not m:
            return t.done()
        base = m.group(1)
        check_down(t, base + "/metrics", "before rocetor")
        status, _, _ = scrape(base + "/nothing")
        t.eq(status, 404, "/nothing")
        sw = livesw.Switch(work, "exp", lb="spray", name="exp1", prefix=prefix)
        if t.check(sw.wait_forwarding(), "rocetor forwarding:\n" + sw.output()):
            check_up(t, base + "/metrics", prefix)
        t.eq(sw.stop(), 0, "rocetor's exit status")
        check_down(t, base + "/metrics", "after rocetor stopped")
        t.check(ex.alive(), "exporter still serving")
        # Logged once per change of rocetor's state, not once per scrape.
        # (The last line may still be on its way through the pipe reader
        # when the scrape that saw rocetor down has returned.)
        def state_changes():
            return [line.split(" ", 2)[2].split(" on ")[0] for line in ex.lines("err")
                    if line.startswith("rocetor-exporter: ") and " rocetor " in line]

        ex.wait_for(lambda: len(state_changes()) >= 3, 5)
        changes = state_changes()
        t.eq(changes, ["rocetor does not answer", "rocetor answers", "rocetor does not answer"],
             "state changes logged: " + ex.text("err"))
        t.eq(ex.stop(signal.SIGTERM), 0, "exporter's exit status on SIGTERM")
    finally:
        if sw is not None and sw.proc.alive():
            sw.stop()
        if ex.alive():
            ex.stop()
        shutil.rmtree(work, ignore_errors=True)
    # --once: exit status 1 and rocetor_up 0 without rocetor.
    p = subprocess.run(["/usr/bin/python3", EXPORTER, "--once", "-f", prefix + "_none"],
                       capture_output=True, text=True, timeout=30)
    t.eq(p.returncode, 1, "--once without rocetor")
    t.check("rocetor_up 0\n" in p.stdout, "--once: rocetor_up 0")
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
