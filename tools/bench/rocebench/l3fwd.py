# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""DPDK's l3fwd (LPM) as the peer router: built by the bench from Debian's
`dpdk` source package of the installed libdpdk-dev's version, outside the
checkout, and run like testpmd on the same ports and pcap.

Build (once per version and patch level, cached in --l3fwd-build DIR):
deb-src entries are added when apt does not know the source (a deb822 file
with the Signed-By of the existing entries), `apt-get source --download-only
dpdk=VERSION`, `dpkg-source -x`, examples/l3fwd and examples/common copied
out, PATCHES applied to the copy's main.c, `make shared` against the
installed library (pkg-config libdpdk).

Run: -l 0 (l3fwd's main lcore forwards: it makes one TX queue per lcore
and net_pcap has one), --config (RXPORT,0,0), -p 0x1f, --parse-ptype,
--rule_ipv4 / --rule_ipv6 files. Measured from outside through DPDK
telemetry: /ethdev/stats of every port at the start and end of the window;
Mpps = delta opackets of the sink ports / delta time."""

import json
import os
import re
import shutil
import signal
import subprocess
import time

from rtrpy import dpdk
from rtrpy.telemetry import Telemetry

from .common import log, oncpu, thread_cpu_ns
from .config import RX_PORT, mem_mb, testpmd_pool
from .machine import bench_lock
from .runs import err_tail, prefix, vdevs

DEFAULT_BUILD = "/var/cache/rocetor-bench/l3fwd"
# Bump when PATCHES or the build change: a cached binary of another level
# is rebuilt.
PATCH_LEVEL = 1
ENV_MBUFS = "RTRBENCH_L3FWD_MBUFS"
ENV_MBUF_SIZE = "RTRBENCH_L3FWD_MBUF_SIZE"
N_PORTS = 5

# (what, text in examples/l3fwd/main.c of 22.11, replacement). Each must
# be found exactly once: a source that differs stops the build with a
# reason instead of building something else.
PATCHES = [
    # net_pcap offers no RX checksum offload: rte_eth_dev_configure()
    # refuses the request (-EINVAL). l3fwd checks the IPv4 header itself
    # (DO_RFC_1812_CHECKS) either way.
    ("no RX checksum offload request",
     "\t\t.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,\n", ""),
    # net_pcap infinite_rx keeps every frame of the pcap in an mbuf of the
    # RX queue's pool for the whole run: the pool must hold the pcap, not
    # only l3fwd's descriptors (NB_MBUF's floor of 8192).
    ("pool size from $" + ENV_MBUFS,
     "(unsigned)8192)",
     "(unsigned)(getenv(\"%s\") ? atoi(getenv(\"%s\")) : 8192))" % (ENV_MBUFS, ENV_MBUFS)),
    # 4 KB frames in one segment (infinite_rx refuses chained mbufs), as
    # testpmd's --mbuf-size.
    ("mbuf data room from $" + ENV_MBUF_SIZE,
     "RTE_MBUF_DEFAULT_BUF_SIZE, socketid);",
     "(getenv(\"%s\") ? atoi(getenv(\"%s\")) : RTE_MBUF_DEFAULT_BUF_SIZE), socketid);"
     % (ENV_MBUF_SIZE, ENV_MBUF_SIZE)),
]


class L3fwdError(RuntimeError):
    pass


def patch_main_c(text):
    """main.c with PATCHES applied (L3fwdError when a text is not found
    exactly once)."""
    for what, old, new in PATCHES:
        n = text.count(old)
        if n != 1:
            raise L3fwdError("patching l3fwd main.c (%s): %r found %d times, expected once"
                             % (what, old.strip(), n))
        text = text.replace(old, new)
    return text


# --------------------------------------------------------------------------
# Routes

def rules_v4(role):
    """The LPM rules: 10.1/16 (the hosts of role src, the destinations of
    role dst) to the host port 0; 10.2/16 (role src's destinations) split
    in four /18 to the fabric ports 1-4, as rocetor's config spreads it
    over four paths (benchgen draws the 10.2 hosts uniformly). The role
    does not change them: the traffic of either role has a route."""
    lines = ["# rocetor bench: l3fwd LPM rules (%s traffic)" % role,
             "R10.1.0.0/16 0"]
    for i in range(4):
        lines.append("R10.2.%d.0/18 %d" % (64 * i, i + 1))
    return "\n".join(lines) + "\n"


# l3fwd reads its rule files only when both are given; no IPv6 traffic.
RULES_V6 = "# rocetor bench: no IPv6 traffic\nR2001:db8::/32 0\n"


def parse_rules(text):
    """[(network as int, prefix length, port)] of an LPM rules text (the
    'R' lines; what l3fwd's lpm_route_parse.c reads)."""
    out = []
    for line in text.splitlines():
        if not line.startswith("R") or ":" in line:
            continue
        net, port = line[1:].split()
        addr, plen = net.split("/")
        a = 0
        for b in addr.split("."):
            a = (a << 8) | int(b)
        out.append((a, int(plen), int(port)))
    return out


# --------------------------------------------------------------------------
# Build

def installed_version():
    """libdpdk-dev's Debian version, None when it is not installed."""
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libdpdk-dev"],
                       capture_output=True, text=True)
    v = r.stdout.strip()
    return v if r.returncode == 0 and v else None


def stamp_path(build_dir):
    return os.path.join(build_dir, "l3fwd.json")


def cached(build_dir, version):
    """The binary built for `version` at PATCH_LEVEL, else None."""
    try:
        with open(stamp_path(build_dir)) as f:
            st = json.load(f)
    except (OSError, ValueError):
        return None
    b = os.path.join(build_dir, "l3fwd")
    if st.get("version") == version and st.get("patch_level") == PATCH_LEVEL and \
            os.access(b, os.X_OK):
        return b
    return None


def deb822_stanzas(text):
    """The stanzas of a deb822 sources file: [{field: value}] (comments
    and continuation lines dropped: a sources stanza's fields are one
    line each)."""
    out, cur = [], {}
    for line in text.splitlines() + [""]:
        if not line.strip():
            if cur:
                out.append(cur)
            cur = {}
            continue
        if line.startswith("#") or line[0] in " \t" or ":" not in line:
            continue
        k, v = line.split(":", 1)
        cur[k.strip()] = v.strip()
    return out


def deb_src_sources(texts):
    """A deb822 file of deb-src entries for the suites of the "Types: deb"
    stanzas of `texts` that no deb-src stanza covers yet (same URIs,
    Components and Signed-By: apt refuses two entries of one URI whose
    Signed-By differ), None when every one is covered."""
    stanzas = [s for t in texts for s in deb822_stanzas(t)
               if s.get("Enabled", "yes").lower() != "no"]
    covered = {(u, su) for s in stanzas if "deb-src" in s.get("Types", "").split()
               for u in s.get("URIs", "").split() for su in s.get("Suites", "").split()}
    out = []
    for s in stanzas:
        if "deb" not in s.get("Types", "").split():
            continue
        uris = s.get("URIs", "").split()
        suites = [su for su in s.get("Suites", "").split()
                  if any((u, su) not in covered for u in uris)]
        if not uris or not suites:
            continue
        e = ["Types: deb-src", "URIs: " + " ".join(uris), "Suites: " + " ".join(suites)]
        for k in ("Components", "Signed-By"):
            if k in s:
                e.append("%s: %s" % (k, s[k]))
        out.append("\n".join(e))
    return "\n\n".join(out) + "\n" if out else None


def deb_src_lines(texts):
    """One-line sources (sources.list): a deb-src line for each deb line
    that has none (same options, URI, suite and components)."""
    lines = [l.strip() for t in texts for l in t.splitlines()]
    have = {re.sub(r"^deb-src\s+", "", l) for l in lines if re.match(r"deb-src\s", l)}
    return ["deb-src " + re.sub(r"^deb\s+", "", l) for l in lines
            if re.match(r"deb\s", l) and re.sub(r"^deb\s+", "", l) not in have]


SOURCES_D = "/etc/apt/sources.list.d"
SOURCES_LIST = "/etc/apt/sources.list"
OUR_NAME = "rocetor-bench-src"


def has_source(run, version):
    r = run(["apt-cache", "showsrc", "dpdk"])
    return r.returncode == 0 and re.search(r"^Version: %s$" % re.escape(version), r.stdout,
                                           re.M) is not None


def ensure_deb_src(run, version, sources_d=SOURCES_D, sources_list=SOURCES_LIST):
    """Make apt know dpdk's source package of `version`: when it does not
    (apt-cache showsrc), add deb-src entries for the deb entries that have
    none (a deb822 file next to deb822 sources: a one-line deb-src next to
    them makes apt fail with "Conflicting values set for option
    Signed-By"; one-line entries otherwise) and apt-get update. Returns
    what was done."""
    if has_source(run, version):
        return "apt knows dpdk %s's source package" % version
    texts, legacy = [], []
    for fn in sorted(os.listdir(sources_d)) if os.path.isdir(sources_d) else []:
        p = os.path.join(sources_d, fn)
        if fn.endswith(".sources"):
            texts.append(open(p).read())
        elif fn.endswith(".list"):
            legacy.append(open(p).read())
    if os.path.exists(sources_list):
        legacy.append(open(sources_list).read())
    head = "# added by tools/bench/run.py (rocetor): Debian's dpdk source for l3fwd\n"
    new = deb_src_sources(texts)
    if new is not None:
        path = os.path.join(sources_d, OUR_NAME + ".sources")
        body = new
    else:
        lines = deb_src_lines(legacy)
        if not lines:
            raise L3fwdError("apt has no dpdk %s source and no deb entry lacks a deb-src one"
                             % version)
        path = os.path.join(sources_d, OUR_NAME + ".list")
        body = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(head + body)
    r = run(["apt-get", "update", "-q"])
    if r.returncode != 0:
        raise L3fwdError("apt-get update after adding %s: %s" % (path, r.stderr[-300:]))
    if not has_source(run, version):
        raise L3fwdError("added %s, yet apt has no source of dpdk %s" % (path, version))
    return "added %s (deb-src), apt-get update" % path


def build(build_dir, version, install=True):
    """Build l3fwd for `version` into build_dir; returns its path
    (L3fwdError with the reason otherwise). Logs each step."""
    def run(cmd, cwd=None):
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)

    if os.geteuid() != 0:
        raise L3fwdError("not root: cannot add a deb-src entry or write %s" % build_dir)
    for tool, pkg in (("dpkg-source", "dpkg-dev"), ("make", "make"), ("cc", "gcc"),
                      ("pkg-config", "pkg-config")):
        if shutil.which(tool):
            continue
        if not install:
            raise L3fwdError("%s missing (apt-get install %s; --no-install)" % (tool, pkg))
        log("l3fwd: installing %s" % pkg)
        r = run(["apt-get", "install", "-y", "-q", pkg])
        if r.returncode != 0:
            raise L3fwdError("apt-get install %s: %s" % (pkg, r.stderr[-300:]))
    log("l3fwd: %s" % ensure_deb_src(run, version))
    work = os.path.join(build_dir, "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    log("l3fwd: apt-get source dpdk=%s into %s" % (version, work))
    r = run(["apt-get", "source", "--download-only", "dpdk=%s" % version], cwd=work)
    if r.returncode != 0:
        raise L3fwdError("apt-get source dpdk=%s: %s" % (version, (r.stderr or r.stdout)[-400:]))
    dsc = [f for f in os.listdir(work) if f.endswith(".dsc")]
    if len(dsc) != 1:
        raise L3fwdError("apt-get source gave %d .dsc files" % len(dsc))
    r = run(["dpkg-source", "-x", dsc[0], "dpdk"], cwd=work)
    if r.returncode != 0:
        raise L3fwdError("dpkg-source -x %s: %s" % (dsc[0], (r.stderr or r.stdout)[-400:]))
    src = os.path.join(build_dir, "src")
    shutil.rmtree(src, ignore_errors=True)
    for d in ("l3fwd", "common"):
        shutil.copytree(os.path.join(work, "dpdk", "examples", d),
                        os.path.join(src, "examples", d))
    shutil.rmtree(work, ignore_errors=True)
    main_c = os.path.join(src, "examples", "l3fwd", "main.c")
    with open(main_c) as f:
        text = patch_main_c(f.read())
    with open(main_c, "w") as f:
        f.write(text)
    log("l3fwd: patched %s (%s); make shared" % (main_c, "; ".join(p[0] for p in PATCHES)))
    r = run(["make", "shared"], cwd=os.path.dirname(main_c))
    if r.returncode != 0:
        raise L3fwdError("make shared in %s: %s" % (os.path.dirname(main_c),
                                                    (r.stderr or r.stdout)[-600:]))
    out = os.path.join(build_dir, "l3fwd")
    shutil.copy2(os.path.join(os.path.dirname(main_c), "build", "l3fwd-shared"), out + ".tmp")
    os.replace(out + ".tmp", out)
    with open(stamp_path(build_dir), "w") as f:
        json.dump({"version": version, "patch_level": PATCH_LEVEL,
                   "patches": [p[0] for p in PATCHES],
                   "built": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}, f)
        f.write("\n")
    return out


def ensure(build_dir, may_build=True, install=True):
    """(path, version, why): the cached or newly built l3fwd, or (None,
    version, why not)."""
    version = installed_version()
    if version is None:
        return None, None, "libdpdk-dev is not installed"
    b = cached(build_dir, version)
    if b is not None:
        return b, version, None
    if not may_build:
        return None, version, "not built in %s (the smoke builds nothing; a full run " \
            "builds it)" % build_dir
    t0 = time.time()
    try:
        b = build(build_dir, version, install)
    except (L3fwdError, OSError) as e:
        return None, version, str(e)
    log("l3fwd: built %s in %.0f s" % (b, time.time() - t0))
    return b, version, None


# --------------------------------------------------------------------------
# Run and measure

def eal(file_prefix, mem):
    # l3fwd makes one TX queue per lcore on every port and net_pcap has one:
    # a single lcore 0, the main one, forwards (rocetor's forwarding lcore
    # is lcore 0 too); the EAL's control threads run on the other CPU, as
    # rocetor's main lcore 1 does.
    return ["-l", "0", "--file-prefix", file_prefix, "--huge-unlink", "-m", str(mem),
            "--no-pci", "--log-level", "lib.eal:error"]


def command(binary, file_prefix, mem, meta, role, rules4, rules6):
    """l3fwd's command line (under stdbuf -oL, as testpmd): the pcap on
    RX_PORT[role], sinks elsewhere, every port enabled (-p), the receiving
    port's queue 0 on lcore 0."""
    return ["stdbuf", "-oL", binary] + eal(file_prefix, mem) + vdevs(meta, role) + \
        ["--", "-p", "0x%x" % ((1 << N_PORTS) - 1), "--config", "(%d,0,0)" % RX_PORT[role],
         "--lookup", "lpm", "--parse-ptype", "--rule_ipv4", rules4, "--rule_ipv6", rules6]


def environment(mbufs, data_room, size):
    """The patched l3fwd's pool: testpmd's mbufs; testpmd's data room for
    4 KB frames (l3fwd's default 2176 B otherwise, as testpmd's)."""
    env = {ENV_MBUFS: str(mbufs)}
    if size >= 4096:
        env[ENV_MBUF_SIZE] = str(data_room)
    return env


def snapshot(tel, ports=N_PORTS):
    """(time, {port: /ethdev/stats}); the time is the middle of the
    commands."""
    t0 = time.monotonic()
    st = {p: tel.cmd("/ethdev/stats,%d" % p) for p in range(ports)}
    return (t0 + time.monotonic()) / 2, st


def window(s0, s1, rx_port):
    """What a window between two snapshots (time, {port: stats}) says:
    mpps = delta opackets of every port but rx_port (forwarded) / delta t;
    rx_mpps from rx_port's ipackets; the receiving port's imissed and
    rx_nombuf, and its own opackets (l3fwd's route miss sends back out of
    the receiving port), as deltas."""
    (t0, a), (t1, b) = s0, s1
    dt = t1 - t0
    if dt <= 0:
        raise ValueError("window of %g s" % dt)

    def d(port, key):
        return b[port][key] - a[port][key]

    fwd = sum(d(p, "opackets") for p in sorted(b) if p != rx_port)
    rx = d(rx_port, "ipackets")
    return {"window_s": round(dt, 3), "mpps": fwd / dt / 1e6, "rx_mpps": rx / dt / 1e6,
            "forwarded": fwd, "received": rx, "imissed": d(rx_port, "imissed"),
            "rx_nombuf": d(rx_port, "rx_nombuf"), "back_out": d(rx_port, "opackets"),
            "per_port_out": {p: d(p, "opackets") for p in sorted(b) if p != rx_port}}


def problems_of(w):
    """(problems, notes) of a window: nothing forwarded is a problem (a
    peer that drops everything is fast and meaningless); forwarding less
    than 99% of what was received is noted."""
    problems, notes = [], []
    if w["forwarded"] <= 0:
        problems.append("nothing forwarded to the sinks (received %d, sent back %d)" %
                        (w["received"], w["back_out"]))
    elif w["received"] > 0 and w["forwarded"] < 0.99 * w["received"]:
        notes.append("forwarded %.1f%% of received" % (100.0 * w["forwarded"] / w["received"]))
    if w["imissed"] or w["rx_nombuf"]:
        notes.append("rx imissed %d, rx_nombuf %d" % (w["imissed"], w["rx_nombuf"]))
    return problems, notes


def run_l3fwd(ctx, size, flows, meta, role, label):
    """One l3fwd run on the ports and pcap of `role`; returns a record."""
    a = ctx.args
    rxp = RX_PORT[role]
    mbufs, budget = testpmd_pool(role, size, flows, meta["frames"], a.mbuf_headroom,
                                 a.mbuf_rounding)
    mem = mem_mb(mbufs, budget["data_room"])
    rec = {"kind": "l3fwd", "mode": "l3fwd", "role": role, "size": size, "flows": flows,
           "label": label, "mbufs": mbufs, "mem_mb": mem, "mpps": None, "ok": False,
           "problems": [], "notes": []}
    if a.max_mem and mem > a.max_mem:
        rec["problems"].append("needs -m %d > --max-mem %d" % (mem, a.max_mem))
        return rec
    rdir = os.path.join(a.out, "configs")
    os.makedirs(rdir, exist_ok=True)
    rules4 = os.path.join(rdir, "l3fwd-%s.rules_v4" % role)
    rules6 = os.path.join(rdir, "l3fwd.rules_v6")
    with open(rules4, "w") as f:
        f.write(rules_v4(role))
    with open(rules6, "w") as f:
        f.write(RULES_V6)
    fp = prefix("l")
    cmd = command(a.l3fwd, fp, mem, meta, role, rules4, rules6)
    env = environment(mbufs, budget["data_room"], size)
    rec["cmd"] = " ".join(["%s=%s" % kv for kv in sorted(env.items())] + cmd)
    start_allow = 60 + meta["bytes"] / 40e6 + mem / 1000.0
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    rc = None
    with bench_lock():
        t0 = time.time()
        p = dpdk.Proc(cmd, env=dict(os.environ, **env), who="run.py")
        ctx.current = p
        tel = None
        try:
            started = p.wait_for(lambda: "entering main loop" in p.text() + p.text("err"),
                                 start_allow)
            rec["startup_s"] = round(time.time() - t0, 2)
            if started and p.alive():
                tel = Telemetry(fp, timeout=10)
                time.sleep(a.warmup)
                c0 = thread_cpu_ns(p.pid)
                s0 = snapshot(tel)
                time.sleep(a.duration)
                s1 = snapshot(tel)
                c1 = thread_cpu_ns(p.pid)
                w = window(s0, s1, rxp)
                rec.update(w)
                rec["oncpu_cycles_per_packet"], rec["oncpu_frac"] = oncpu(
                    c0, c1, w["window_s"], w["received"], ctx.tsc)
                probs, notes = problems_of(w)
                rec["problems"] += probs
                rec["notes"] += notes
                if w["forwarded"] <= 0:
                    rec["mpps"] = None
            else:
                rec["problems"].append("did not start forwarding: %s" %
                                       err_tail(p.text("err"), p.text()))
        except (OSError, ValueError, TypeError, KeyError) as e:
            rec["problems"].append("telemetry: %s" % e)
        finally:
            if tel is not None:
                tel.close()
            t1 = time.time()
            rc = p.stop(signal.SIGINT)
            rec["stop_s"] = round(time.time() - t1, 2)
            ctx.current = None
            dpdk.drop_runtime_dir(fp)
    rec["wall_s"] = round(time.time() - t0, 2)
    rec["rc"] = rc
    if rc != 0:
        rec["problems"].append("exit status %s: %s" % (rc, err_tail(p.text("err"), p.text())))
        rec["stderr_tail"] = (p.text() + p.text("err"))[-2000:]
    rec["ok"] = rec["mpps"] is not None and not rec["problems"]
    return rec
