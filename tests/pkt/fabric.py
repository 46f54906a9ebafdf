# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Two rocetor ToRs on one machine, joined by four DPDK net_memif links.

    ToR A                                        ToR B
    port 0  net_pcap  hosts 10.1.0.0/24          port 0  net_pcap  hosts 10.2.0.0/24
    ports 1..4  memif CLIENT  <--  4 links  -->  ports 1..4  memif SERVER

A routes 10.2.0.0/16 over an uplink group of its ports 1..4, B routes
10.1.0.0/16 over its ports 1..4 (link i of A is link i of B). Next hops are
static MACs (no ARP). Usage:

    import fabric
    a, b = fabric.run_pair(fabric.tor_config("a"), fabric.tor_config("b"),
                           frames, lb="ecmp")
    a.rc, a.stats, b.outputs[0]      # B's host port: what the hosts behind B got

run_pair() returns two harness.Result objects (rc, stdout, stderr, stats,
outputs, outputs_ts, workdir) where outputs[0] / outputs_ts[0] are the frames
the process sent on its host port (its only pcap TX port; the memif links
are not captured). Extra attributes: cmd, elapsed_s (seconds from start to
exit), links_up_ms (from "--wait-links: all links up after N ms", else
None), timed_out (killed by the harness).

How the pair is started (DPDK 22.11 memif, see doc/user-guide.md "Two
switches on one machine"):
- B is the memif server of all four links: one socket FILE
  (socket-abstract=no) in the run's temp dir, link i = memif id=i.
- A 22.11 client does not retry: its rte_eth_dev_start() fails when no
  server listens, and a server whose device is not started yet answers
  "ID not found" (PMD source), which leaves the client's link down for
  good. So A is
  started only once B's socket file exists AND B printed its
  "--wait-links: waiting" line (B's ports are started by then).
- Both run with --wait-links, so neither forwards before its four links are
  up, and with --exit-on-idle: A (fed by its pcap) goes idle first; B gets a
  longer idle time (default idle_ms + 1000) so it outlives A and forwards
  everything A sent. When A exits, B's memif links go down (it logs
  "port N is down"); stats of B therefore report link_up false on 1..4.
- --no-huge -m 1024 for both: memif (zero-copy=no, the default) keeps its
  rings and buffers in a memfd region of its own and works without hugepages.
- One lcore each, pinned to different cores (A 0@0, B 0@1), and
  switch.idle_sleep_us (default 20 here) so the two processes and the test
  share this 2-core machine.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

N_LINKS = 4
SIDES = ("a", "b")
# port 0 = host port, 1..4 = fabric links
MACS = {"a": ["02:00:00:00:01:%02x" % i for i in range(N_LINKS + 1)],
        "b": ["02:00:00:00:02:%02x" % i for i in range(N_LINKS + 1)]}
# the hosts behind each ToR (rocegen's default --src-mac is HOST_MAC["a"])
HOST_MAC = {"a": "02:00:00:00:aa:01", "b": "02:00:00:00:bb:01"}
HOST_NET = {"a": "10.1.0.0/24", "b": "10.2.0.0/24"}
REMOTE_PREFIX = {"a": "10.2.0.0/16", "b": "10.1.0.0/16"}
SWITCH_ID = {"a": 1, "b": 2}
PEER = {"a": "b", "b": "a"}

# A's uplinks: different lengths (ConWeave reorders across them) and one
# bottleneck; B's are plain.
DEFAULT_LINKS = {
    "a": ({"delay_us": 0}, {"delay_us": 20}, {"delay_us": 60},
          {"delay_us": 150, "shape_gbps": 1}),
    "b": ({}, {}, {}, {}),
}

STARTUP_TIMEOUT = 30.0  # s for B to create its socket and start its ports
KILL_GRACE = 5.0        # s between SIGTERM and SIGKILL on timeout


def _yaml(v):
    """A YAML flow value: bool, number, string (quoted), dict or list."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, _yaml(x)) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_yaml(x) for x in v) + "]"
    return json.dumps(str(v))


def tor_config(side, lb="ecmp", links=None, conweave=None, switch=None,
               idle_sleep_us=20, extra=""):
    """YAML config of ToR "a" or "b".

    links: N_LINKS dicts of extra keys for fabric ports 1..N_LINKS (delay_us,
      shape_gbps, shape_burst_kb, loss, loss_seed, admin_down, ...); None =
      DEFAULT_LINKS[side]. Pass ({},) * 4 for plain links.
    conweave: dict of conweave: keys (ALGORITHMS.md 2.4), e.g.
      {"theta_reply_us": 40}; None = no conweave: section.
    switch: extra switch: keys (seed, idle_threshold, ...), override the
      defaults (idle_sleep_us among them).
    extra: YAML text appended as is (a qos: section, ...).
    """
    if side not in SIDES:
        raise ValueError("side must be 'a' or 'b'")
    links = DEFAULT_LINKS[side] if links is None else links
    if len(links) != N_LINKS:
        raise ValueError("links: need %d dicts" % N_LINKS)
    sw = {"name": "tor" + side, "id": SWITCH_ID[side], "lb": lb}
    if idle_sleep_us:
        sw["idle_sleep_us"] = idle_sleep_us
    sw.update(switch or {})
    mac = MACS[side]
    peer = MACS[PEER[side]]
    lines = ["switch: " + _yaml(sw), "ports:",
             "  - " + _yaml({"port": 0, "role": "host", "mac": mac[0]})]
    for i in range(1, N_LINKS + 1):
        port = {"port": i, "role": "fabric", "mac": mac[i]}
        port.update(links[i - 1])
        lines.append("  - " + _yaml(port))
    lines += ["routes:",
              "  - " + _yaml({"prefix": HOST_NET[side], "port": 0,
                              "nexthop_mac": HOST_MAC[side]}),
              "  - prefix: " + _yaml(REMOTE_PREFIX[side]),
              "    paths:"]
    for i in range(1, N_LINKS + 1):
        lines.append("      - " + _yaml({"port": i, "nexthop_mac": peer[i]}))
    if conweave:
        lines.append("conweave: " + _yaml(conweave))
    return "\n".join(lines) + "\n" + extra


def _memif_vdevs(role, sock):
    return sum((["--vdev", "net_memif%d,role=%s,id=%d,socket=%s,socket-abstract=no"
                 % (i, role, i, sock)] for i in range(N_LINKS)), [])


def _stop(p, why, log):
    """SIGTERM by PID, SIGKILL after KILL_GRACE: only our own child."""
    log.append("%s: pid %d, sending SIGTERM" % (why, p.pid))
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(KILL_GRACE)
    except subprocess.TimeoutExpired:
        log.append("pid %d ignored SIGTERM, sending SIGKILL" % p.pid)
        p.kill()
        p.wait()


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _links_up_ms(stdout):
    for line in stdout.splitlines():
        if "--wait-links: all links up after" in line:
            try:
                return int(line.split("after")[1].split()[0])
            except (IndexError, ValueError):
                return None
    return None


def run_pair(config_a, config_b, host_frames_a, host_frames_b=(), lb="ecmp",
             idle_ms=500, idle_ms_b=None, wait_links_ms=5000, timeout=60,
             lcores=("0@0", "0@1"), args_a=(), args_b=(), tag="fabric",
             keep=False, env=None):
    """Run ToR A and ToR B (configs as YAML text) until both exit.

    host_frames_a: frames (bytes) A's host port receives (its rx_pcap);
    host_frames_b: same for B (default none: an empty pcap).
    lb: passed to both as --lb (None: each config's switch.lb).
    idle_ms: A's --exit-on-idle; idle_ms_b: B's (default idle_ms + 1000, so
    B outlives A). wait_links_ms: --wait-links of both. timeout: seconds
    for each process to exit before it is stopped by PID (SIGTERM, then
    SIGKILL). lcores: EAL --lcores of A and B. args_a/args_b: extra rocetor
    arguments. keep: leave the work dir (result.workdir) in place.

    Returns (result_a, result_b), harness.Result objects; when B fails
    before A could start, result_a.rc is None and its stderr says why.
    """
    if idle_ms_b is None:
        idle_ms_b = idle_ms + 1000
    work = tempfile.mkdtemp(prefix="rocetor-%s-" % tag)
    sock = os.path.join(work, "memif.sock")
    files = {}
    for s, cfg, frames in (("a", config_a, host_frames_a), ("b", config_b, host_frames_b)):
        f = {k: os.path.join(work, "%s-%s" % (s, k))
             for k in ("switch.yaml", "in.pcap", "out.pcap", "stats.json",
                       "stdout", "stderr")}
        with open(f["switch.yaml"], "w") as fh:
            fh.write(cfg)
        harness.rocegen.write_pcap(f["in.pcap"], [bytes(x) for x in frames])
        files[s] = f
    cmds = {}
    for s, role, lc, extra_args, idle in (("a", "client", lcores[0], args_a, idle_ms),
                                          ("b", "server", lcores[1], args_b, idle_ms_b)):
        f = files[s]
        cmd = [harness.ROCETOR, "--lcores", lc, "--no-pci", "--no-huge", "-m", "1024",
               "--file-prefix", harness.eal_prefix(tag + s), "--log-level", "lib.eal:error",
               "--vdev", "net_pcap0,rx_pcap=%s,tx_pcap=%s" % (f["in.pcap"], f["out.pcap"])]
        cmd += _memif_vdevs(role, sock)
        cmd += ["--", "--config", f["switch.yaml"], "--wait-links", str(wait_links_ms),
                "--exit-on-idle", str(idle), "--stats-json", f["stats.json"]]
        if lb is not None:
            cmd += ["--lb", lb]
        cmds[s] = cmd + list(extra_args)

    log = []
    procs, t_start, t_end, timed_out = {}, {}, {}, {"a": False, "b": False}

    def start(s):
        f = files[s]
        t_start[s] = time.monotonic()
        with open(f["stdout"], "w") as out, open(f["stderr"], "w") as err:
            procs[s] = subprocess.Popen(cmds[s], stdout=out, stderr=err, env=env)

    def wait(s, secs):
        try:
            procs[s].wait(max(secs, 0.1))
        except subprocess.TimeoutExpired:
            timed_out[s] = True
            _stop(procs[s], "timeout after %.0f s" % secs, log)
        t_end[s] = time.monotonic()

    start("b")
    ready = False
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline and procs["b"].poll() is None:
        if os.path.exists(sock) and "--wait-links:" in _read(files["b"]["stdout"]):
            ready = True
            break
        time.sleep(0.01)
    if ready:
        start("a")
        wait("a", timeout)
        if procs["a"].returncode != 0 and procs["b"].poll() is None:
            # A failed: B would wait out --wait-links and its idle time.
            _stop(procs["b"], "ToR A exited %d" % procs["a"].returncode, log)
        wait("b", timeout)
    else:
        if procs["b"].poll() is None:
            timed_out["b"] = True
            _stop(procs["b"], "ToR B not ready after %.0f s" % STARTUP_TIMEOUT, log)
        t_end["b"] = time.monotonic()

    results = []
    for s in SIDES:
        f = files[s]
        stats = None
        if os.path.exists(f["stats.json"]):
            with open(f["stats.json"]) as fh:
                stats = json.load(fh)
        stdout, stderr = _read(f["stdout"]), _read(f["stderr"])
        if s in procs:
            rc = procs[s].returncode
        else:
            rc = None
            stderr = ("fabric: ToR A not started: ToR B exited %s before its memif "
                      "socket and ports were ready\n" % procs["b"].returncode)
        if log:
            stderr += "".join("fabric: %s\n" % m for m in log)
        r = harness.Result(rc, stdout, stderr, stats, [harness.read_pcap_ts(f["out.pcap"])], work)
        r.cmd = cmds[s]
        r.elapsed_s = t_end[s] - t_start[s] if s in t_start else None
        r.links_up_ms = _links_up_ms(stdout)
        r.timed_out = timed_out[s]
        results.append(r)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return results[0], results[1]


def check_pair(t, a, b, tag):
    """The checks every two-ToR run shares: both exited 0 with stats, in
    time; then (only then) exact accounting and nothing held at exit on
    each. Returns whether both ran (the caller's checks make sense)."""
    ok = True
    for name, r in (("A", a), ("B", b)):
        ok &= t.check(r.rc == 0 and r.stats is not None and not r.timed_out,
                      "%s: ToR %s exit %s: %s" % (tag, name, r.rc, r.stderr[-2000:]))
    if not ok:
        return False
    for name, r in (("A", a), ("B", b)):
        good, why = harness.accounted(r.stats)
        t.check(good, "%s: accounting on ToR %s: %s" % (tag, name, why))
        t.eq(r.stats["held_packets"], 0, "(%s: %s holds nothing at exit)" % (tag, name))
    return True


def not_available(res_a, res_b, mode):
    """The message when rocetor refused lb `mode` as not built yet, else None."""
    for r in (res_b, res_a):
        if r.rc != 2:
            continue
        for line in r.stderr.splitlines():
            if 'mode "%s" is not available in this build yet' % mode in line:
                return line.strip()
    return None


# ---------------------------------------------------------------------------
# Any number of rocetor processes joined by memif links (ToR -- spine -- ToR,
# with host emulators in front of the ToRs).

def run_nodes(nodes, wait_links_ms=5000, timeout=90, tag="fab", keep=False):
    """Run several rocetor processes joined by memif links until all exit.

    nodes: list of dicts, in start order:
      name    unique name (file names, results key)
      config  YAML text
      ports   the node's DPDK ports in order (port id = index):
              ("pcap", frames) a net_pcap port whose rx_pcap holds frames
              (bytes) and whose tx_pcap is captured; ("link", NAME) one end
              of the memif link NAME (exactly two nodes name each link)
      lcore   EAL --lcores value (default "0@0")
      idle_ms --exit-on-idle (give the sinks longer than the sources)
      args    extra rocetor arguments
      wrap    command prefix (debugging: ["gdb", "-batch", "-ex", "run",
              "-ex", "bt", "--args"])
    Of each link, the node listed first is the memif server (one socket
    file per server node, memif id = link index); a node is started only
    once every node before it printed its --wait-links line, so its servers
    listen (DPDK 22.11 memif clients do not retry).

    Returns {name: harness.Result}; outputs[i] is the capture of the
    node's i-th pcap port (in port order, pcap ports only).
    """
    work = tempfile.mkdtemp(prefix="rocetor-%s-" % tag)
    ends = {}
    for i, n in enumerate(nodes):
        for kind, arg in n["ports"]:
            if kind == "link":
                ends.setdefault(arg, []).append(i)
    for name, e in ends.items():
        if len(e) != 2 or e[0] == e[1]:
            raise ValueError("link %s: needs two different nodes, has %s" % (name, e))
    link_id = {name: k for k, name in enumerate(sorted(ends))}
    files, cmds = [], []
    for i, n in enumerate(nodes):
        f = {k: os.path.join(work, "%s-%s" % (n["name"], k))
             for k in ("switch.yaml", "stats.json", "stdout", "stderr")}
        with open(f["switch.yaml"], "w") as fh:
            fh.write(n["config"])
        vdevs, f["out"] = [], []
        for p, (kind, arg) in enumerate(n["ports"]):
            if kind == "pcap":
                rx = os.path.join(work, "%s-p%d-in.pcap" % (n["name"], p))
                tx = os.path.join(work, "%s-p%d-out.pcap" % (n["name"], p))
                harness.rocegen.write_pcap(rx, [bytes(x) for x in arg])
                vdevs += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (p, rx, tx)]
                f["out"].append(tx)
            elif kind == "link":
                server = nodes[ends[arg][0]]["name"]
                role = "server" if ends[arg][0] == i else "client"
                sock = os.path.join(work, "memif-%s.sock" % server)
                vdevs += ["--vdev", "net_memif%d,role=%s,id=%d,socket=%s,socket-abstract=no"
                          % (p, role, link_id[arg], sock)]
            else:
                raise ValueError("port kind %r" % kind)
        cmd = [harness.ROCETOR, "--lcores", n.get("lcore", "0@0"), "--no-pci", "--no-huge",
               "-m", "1024", "--file-prefix", harness.eal_prefix(tag + n["name"]),
               "--log-level", "lib.eal:error"] + vdevs
        cmd += ["--", "--config", f["switch.yaml"], "--wait-links", str(wait_links_ms),
                "--exit-on-idle", str(n.get("idle_ms", 1000)), "--stats-json", f["stats.json"]]
        cmds.append(list(n.get("wrap", ())) + cmd + list(n.get("args", ())))
        files.append(f)

    log, procs, t_start, t_end = [], [], {}, {}
    failed = None
    for i, n in enumerate(nodes):
        t_start[i] = time.monotonic()
        with open(files[i]["stdout"], "w") as out, open(files[i]["stderr"], "w") as err:
            procs.append(subprocess.Popen(cmds[i], stdout=out, stderr=err))
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while procs[i].poll() is None and time.monotonic() < deadline:
            if "--wait-links:" in _read(files[i]["stdout"]):
                break
            time.sleep(0.01)
        else:
            failed = "%s not ready (exit %s)" % (n["name"], procs[i].poll())
            break
    timed_out = [False] * len(procs)
    end_by = time.monotonic() + timeout
    while failed is None and any(p.poll() is None for p in procs):
        for i, p in enumerate(procs):
            if p.poll() is not None and p.returncode != 0:
                failed = "%s exited %d" % (nodes[i]["name"], p.returncode)
        if time.monotonic() > end_by:
            failed = "timeout after %.0f s" % timeout
            for i, p in enumerate(procs):
                timed_out[i] = p.poll() is None
        time.sleep(0.02)
    for i, p in enumerate(procs):
        if p.poll() is None:
            _stop(p, failed or "left running", log)
        t_end[i] = time.monotonic()

    results = {}
    for i, n in enumerate(nodes):
        f = files[i]
        stats = None
        if os.path.exists(f["stats.json"]):
            with open(f["stats.json"]) as fh:
                stats = json.load(fh)
        stdout, stderr = _read(f["stdout"]), _read(f["stderr"])
        rc = procs[i].returncode if i < len(procs) else None
        if rc is None:
            stderr += "fabric: %s not started (%s)\n" % (n["name"], failed)
        if log:
            stderr += "".join("fabric: %s\n" % m for m in log)
        r = harness.Result(rc, stdout, stderr, stats,
                           [harness.read_pcap_ts(o) if os.path.exists(o) else [] for o in f["out"]],
                           work)
        r.cmd = cmds[i]
        r.elapsed_s = t_end[i] - t_start[i] if i in t_end else None
        r.links_up_ms = _links_up_ms(stdout)
        r.timed_out = timed_out[i] if i < len(timed_out) else False
        results[n["name"]] = r
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return results
