# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Open vSwitch with DPDK as a peer: the switch a user would run instead,
doing ECMP's job on the same ports and pcap (issue 34).

Debian's `openvswitch-switch-dpdk` (OVS 3.1 on DPDK 22.11), its DPDK build
of ovs-vswitchd run directly (/usr/lib/openvswitch-switch-dpdk/
ovs-vswitchd-dpdk: no `update-alternatives`, the system's OVS untouched),
as a private instance: its own ovsdb-server, database, sockets and logs in
a directory of the run, stopped by the PIDs of its own pidfiles.

The job (an OpenFlow table on a userspace `netdev` bridge): the switch's
routes as prefix matches on the destination address, each decrementing
the TTL (`dec_ttl`: a packet at TTL 1 goes to the controller, none here),
rewriting the source MAC and, for 10.2/16, outputting through a `select`
group of the four uplinks hashing the 5-tuple (`selection_method=hash,
fields(ip_src,ip_dst,udp_src,udp_dst)`, as ECMP hashes; OVS's default
dp_hash recirculates every packet: ~2.6 x the cycles, the peers README)
whose buckets rewrite the destination MAC; 10.1/16 to port 0 with the host
next hop's MAC. Ports in rocetor's order: OpenFlow port p + 1 is rocetor's
port p, the pcap (`net_pcap`, `infinite_rx=1`) on RX_PORT[role], net_null
sinks elsewhere. One PMD thread on CPU 0 (pmd-cpu-mask 0x1), OVS's other
DPDK threads on CPU 1 (dpdk-lcore-mask 0x2): rocetor's -l 0,1
--main-lcore 1.

Measured from outside: `ovs-ofctl dump-ports` (live counters; the
database's statistics column refreshes every 5 s) at the start and the
end of the window: Mpps = delta tx packets of the sink ports / delta time;
on-CPU cycles from the PMD thread's /proc schedstat."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from .common import log
from .config import NEXTHOP_HOST, NEXTHOP_UP, RX_PORT, mem_mb, mtu_for
from .machine import bench_lock
from .runs import err_tail, prefix

VSWITCHD = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"
SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
TOOLS = ("ovsdb-tool", "ovsdb-server", "ovs-vsctl", "ovs-ofctl", "ovs-appctl")
PACKAGE = "openvswitch-switch-dpdk"
SWITCH_MAC = "02:00:00:00:01:00"
N_PORTS = 5
# OVS's shared mempool per MTU and socket holds this many mbufs (OVS 3.1,
# lib/netdev-dpdk.c MAX_NB_MBUF); net_pcap's infinite_rx copies the whole
# pcap into mbufs of the rx queue's pool at start, so a larger pcap cannot
# be replayed through OVS.
OVS_POOL_MBUFS = 262144


def mtu(size):
    """The L3 MTU of OVS's ports for frames of `size` (OVS's default 1500,
    or rocetor's 4 KB one: the 4154-byte frames carry 4140 bytes of IP)."""
    return mtu_for(size) or 1500


def mbuf_room(size):
    """OVS's mbuf for the MTU: the frame (MTU + 18) rounded up to 1024
    (NETDEV_DPDK_MBUF_ALIGN) plus its dp_packet, headroom and slack."""
    return -(-(mtu(size) + 18) // 1024) * 1024 + 512


def mem_need(size):
    """dpdk-socket-mem MB for OVS's shared pool of OVS_POOL_MBUFS mbufs."""
    return mem_mb(OVS_POOL_MBUFS, mbuf_room(size))


def _which(t):
    return shutil.which(t) or (os.path.join("/usr/bin", t) if os.path.exists(
        os.path.join("/usr/bin", t)) else None)


def missing():
    """What of OVS-DPDK is not installed (a list of paths or tool names)."""
    out = [] if os.access(VSWITCHD, os.X_OK) else [VSWITCHD]
    out += [t for t in TOOLS if _which(t) is None]
    if not os.path.exists(SCHEMA):
        out.append(SCHEMA)
    return out


def ensure(install=True):
    """(vswitchd path, version, why not): installs Debian's package when
    it is missing and install is allowed; never starts the system's OVS
    (a policy-rc.d that refuses every service start is put in place for
    the install when there is none, and removed after)."""
    if missing() and install:
        log("ovs: installing %s (apt-get)" % PACKAGE)
        rc_d = "/usr/sbin/policy-rc.d"
        ours = not os.path.exists(rc_d)
        try:
            if ours:
                with open(rc_d, "w") as f:
                    f.write("#!/bin/sh\n# rocetor bench: no service starts during the install\n"
                            "exit 101\n")
                os.chmod(rc_d, 0o755)
            r = subprocess.run(["apt-get", "install", "-y", "-q", PACKAGE],
                               env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                               capture_output=True, text=True)
            if r.returncode != 0:
                return None, None, "apt-get install %s failed: %s" % (
                    PACKAGE, (r.stdout + r.stderr).strip().splitlines()[-1:])
        except OSError as e:
            return None, None, "install: %s" % e
        finally:
            if ours and os.path.exists(rc_d):
                os.unlink(rc_d)
    m = missing()
    if m:
        return None, None, "not installed (%s; `apt-get install %s`)" % (", ".join(m), PACKAGE)
    r = subprocess.run([VSWITCHD, "--version"], capture_output=True, text=True)
    first = (r.stdout.strip().splitlines() or ["?"])[0]
    dpdk_v = re.search(r"DPDK ([0-9.]+)", r.stdout)
    return VSWITCHD, "%s%s" % (first.split()[-1], ", DPDK %s" % dpdk_v.group(1)
                                if dpdk_v else ""), None


def flows_text(role):
    """The OpenFlow rules of the L3 job (ovs-ofctl add-flows input) and the
    group (add-group input): the routes of config.config_text."""
    del role  # the routes do not depend on it: either role's traffic has one
    rt = "dec_ttl,mod_dl_src:%s" % SWITCH_MAC
    flows = ["table=0,priority=0,actions=drop",
             "table=0,priority=100,ip,nw_dst=10.2.0.0/16,actions=%s,group:1" % rt,
             "table=0,priority=100,ip,nw_dst=10.1.0.0/16,actions=%s,mod_dl_dst:%s,output:1" % (
                 rt, NEXTHOP_HOST)]
    group = ("group_id=1,type=select,selection_method=hash,"
             "fields(ip_src,ip_dst,udp_src,udp_dst)" +
             "".join(",bucket=bucket_id:%d,actions=mod_dl_dst:%s,output:%d" % (
                 i + 1, NEXTHOP_UP[i], i + 2) for i in range(4)))
    return "\n".join(flows) + "\n", group


def devargs(meta, role, port):
    if port == RX_PORT[role]:
        return ("net_pcap%d," % port + ",".join("rx_pcap=%s" % f for f in meta["files"]) +
                ",infinite_rx=1")
    return "net_null%d,no-rx=1" % port


class Instance:
    """A private OVS: ovsdb-server and ovs-vswitchd in `base`."""

    def __init__(self, base, vswitchd):
        self.base = base
        self.vswitchd = vswitchd
        self.env = dict(os.environ, OVS_RUNDIR=os.path.join(base, "run"),
                        OVS_LOGDIR=os.path.join(base, "log"),
                        OVS_DBDIR=os.path.join(base, "db"))
        for k in ("OVS_RUNDIR", "OVS_LOGDIR", "OVS_DBDIR"):
            os.makedirs(self.env[k], exist_ok=True)
        self.db = os.path.join(self.env["OVS_DBDIR"], "conf.db")
        self.sock = "unix:" + os.path.join(self.env["OVS_RUNDIR"], "db.sock")
        self.log = os.path.join(self.env["OVS_LOGDIR"], "ovs-vswitchd.log")

    def run(self, *cmd, check=True, timeout=60):
        r = subprocess.run(list(cmd), env=self.env, capture_output=True, text=True,
                           timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError("%s: %s" % (" ".join(cmd), (r.stdout + r.stderr).strip()[-400:]))
        return r.stdout

    def vsctl(self, *args):
        return self.run("ovs-vsctl", "--db=" + self.sock, "--timeout=60", *args)

    def pid(self, daemon):
        try:
            with open(os.path.join(self.env["OVS_RUNDIR"], daemon + ".pid")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def start(self, mem_mb_, file_prefix):
        rd = self.env["OVS_RUNDIR"]
        self.run("ovsdb-tool", "create", self.db, SCHEMA)
        self.run("ovsdb-server", self.db, "--remote=p" + self.sock,
                 "--pidfile=%s/ovsdb-server.pid" % rd, "--detach",
                 "--log-file=%s/ovsdb-server.log" % self.env["OVS_LOGDIR"])
        self.vsctl("--no-wait", "init")
        self.vsctl("--no-wait", "set", "Open_vSwitch", ".",
                   "other_config:dpdk-init=true",
                   'other_config:dpdk-extra=--no-pci --huge-unlink --file-prefix=%s' % file_prefix,
                   "other_config:dpdk-socket-mem=%d" % mem_mb_,
                   "other_config:dpdk-socket-limit=%d" % mem_mb_,
                   "other_config:dpdk-lcore-mask=0x2", "other_config:pmd-cpu-mask=0x1")
        self.run(self.vswitchd, self.sock, "--pidfile=%s/ovs-vswitchd.pid" % rd, "--detach",
                 "--log-file=%s" % self.log, timeout=180)

    def ctl(self, daemon):
        """The control socket of our daemon: RUNDIR/PROGRAM.PID.ctl, PROGRAM
        being the executable's name (ovs-vswitchd-dpdk for the DPDK build,
        so `ovs-appctl -t ovs-vswitchd` would not find it)."""
        p = self.pid(daemon)
        rd = self.env["OVS_RUNDIR"]
        for f in sorted(os.listdir(rd)):
            if f.startswith(daemon) and f.endswith(".%d.ctl" % (p or -1)):
                return os.path.join(rd, f)
        return os.path.join(rd, "%s.%d.ctl" % (daemon, p or 0))

    def stop(self):
        for d in ("ovs-vswitchd", "ovsdb-server"):
            p = self.pid(d)
            if p is None or not _alive(p):
                continue
            self.run("ovs-appctl", "-t", self.ctl(d), "exit", check=False, timeout=30)
            for _ in range(100):
                if not _alive(p):
                    break
                time.sleep(0.1)
            if _alive(p):
                os.kill(p, signal.SIGKILL)

    def log_tail(self, n=4):
        try:
            with open(self.log) as f:
                lines = [l.strip() for l in f if "|ERR|" in l or "|EMER|" in l or "|WARN|" in l]
            return " / ".join(lines[-n:])
        except OSError:
            return ""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    # a zombie of ours is not alive
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def port_counts(text):
    """{OpenFlow port: (rx pkts, tx pkts)} from `ovs-ofctl dump-ports`."""
    out, port, rx = {}, None, None
    for line in text.splitlines():
        m = re.match(r"\s*port\s+\"?(\w+)\"?:\s+rx pkts=(\d+)", line)
        if m:
            port = int(m.group(1)) if m.group(1).isdigit() else None
            rx = int(m.group(2))
            continue
        m = re.match(r"\s*tx pkts=(\d+)", line)
        if m and port is not None:
            out[port] = (rx, int(m.group(1)))
            port = None
    return out


def pmd_tid(pid):
    """The PMD thread of ovs-vswitchd (its comm starts with "pmd")."""
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/comm" % (pid, t)) as f:
                if f.read().startswith("pmd"):
                    return t
    except OSError:
        pass
    return None


def thread_ns(pid, tid):
    try:
        with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def window(d0, d1, t0, t1, rx_port):
    """Mpps forwarded (tx of the sink ports) and received between two
    dump-ports readings."""
    dt = t1 - t0
    if dt <= 0:
        raise ValueError("window of %g s" % dt)
    rxo = rx_port + 1
    fwd = sum(d1[p][1] - d0[p][1] for p in d1 if p != rxo and p in d0)
    rx = d1[rxo][0] - d0[rxo][0] if rxo in d1 and rxo in d0 else 0
    return {"window_s": round(dt, 3), "mpps": fwd / dt / 1e6, "rx_mpps": rx / dt / 1e6,
            "forwarded": fwd, "received": rx,
            "per_port_out": {p - 1: d1[p][1] - d0[p][1] for p in sorted(d1) if p != rxo}}


def run_ovs(ctx, size, flows, meta, role, label):
    """One OVS-DPDK run on the ports and pcap of `role`; returns a record."""
    a = ctx.args
    rxp = RX_PORT[role]
    mem = mem_need(size)
    rec = {"kind": "ovs", "mode": "ovs", "role": role, "size": size, "flows": flows,
           "label": label, "mem_mb": mem, "mpps": None, "ok": False, "problems": [],
           "notes": []}
    if meta["frames"] > OVS_POOL_MBUFS - 16384:
        rec["problems"].append("the pcap's %d frames do not fit OVS's mempool of %d mbufs "
                               "(net_pcap infinite_rx holds them all)" % (
                                   meta["frames"], OVS_POOL_MBUFS))
        return rec
    if a.max_mem and mem > a.max_mem:
        rec["problems"].append("needs %d MB > --max-mem %d" % (mem, a.max_mem))
        return rec
    base = tempfile.mkdtemp(prefix="ovs-%s-" % label, dir=os.path.join(a.out))
    inst = Instance(base, a.ovs)
    fp = prefix("ovs")
    rules, group = flows_text(role)
    with open(os.path.join(base, "flows.txt"), "w") as f:
        f.write(rules)
    with open(os.path.join(base, "group.txt"), "w") as f:
        f.write(group + "\n")
    rec["config_dir"] = base
    rec["loadavg"] = open("/proc/loadavg").read().split()[:3]
    with bench_lock():
        t0 = time.time()
        try:
            inst.start(mem, fp)
            rec["startup_s"] = round(time.time() - t0, 2)
            inst.vsctl("add-br", "br0", "--", "set", "bridge", "br0", "datapath_type=netdev")
            # sinks and rules first, the pcap source last (it starts replaying at once)
            for p in range(N_PORTS):
                if p != rxp:
                    inst.vsctl("add-port", "br0", "p%d" % p, "--", "set", "Interface",
                               "p%d" % p, "type=dpdk", "ofport_request=%d" % (p + 1),
                               "mtu_request=%d" % mtu(size),
                               "options:dpdk-devargs=%s" % devargs(meta, role, p))
            inst.run("ovs-ofctl", "del-flows", "br0")
            inst.run("ovs-ofctl", "-O", "OpenFlow15", "add-groups", "br0",
                     os.path.join(base, "group.txt"))
            inst.run("ovs-ofctl", "-O", "OpenFlow15", "add-flows", "br0",
                     os.path.join(base, "flows.txt"))
            inst.vsctl("add-port", "br0", "p%d" % rxp, "--", "set", "Interface", "p%d" % rxp,
                       "type=dpdk", "ofport_request=%d" % (rxp + 1), "mtu_request=%d" % mtu(size),
                       "options:dpdk-devargs=%s" % devargs(meta, role, rxp))
            vs = inst.pid("ovs-vswitchd")
            time.sleep(a.warmup + 1.0)
            tid = pmd_tid(vs)
            c0 = thread_ns(vs, tid) if tid else None
            d0, s0 = port_counts(inst.run("ovs-ofctl", "dump-ports", "br0")), time.monotonic()
            time.sleep(a.duration)
            d1, s1 = port_counts(inst.run("ovs-ofctl", "dump-ports", "br0")), time.monotonic()
            c1 = thread_ns(vs, tid) if tid else None
            w = window(d0, d1, s0, s1, rxp)
            rec.update(w)
            if c0 is not None and c1 is not None and w["forwarded"] > 0 and ctx.tsc:
                busy = (c1 - c0) / 1e9
                rec["oncpu_cycles_per_packet"] = busy * ctx.tsc / w["forwarded"]
                rec["oncpu_frac"] = busy / w["window_s"]
            if w["forwarded"] <= 0:
                rec["mpps"] = None
                rec["problems"].append("nothing forwarded to the sinks (received %d; %s)" % (
                    w["received"], inst.log_tail()))
            elif w["received"] > 0 and w["forwarded"] < 0.99 * w["received"]:
                rec["notes"].append("forwarded %.1f%% of received" % (
                    100.0 * w["forwarded"] / w["received"]))
            rec["pmd_stats"] = inst.run("ovs-appctl", "-t", inst.ctl("ovs-vswitchd"),
                                        "dpif-netdev/pmd-stats-show", check=False)[:4000]
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
            rec["problems"].append("ovs: %s (%s)" % (e, inst.log_tail()))
        finally:
            t1 = time.time()
            inst.stop()
            rec["stop_s"] = round(time.time() - t1, 2)
    rec["wall_s"] = round(time.time() - t0, 2)
    rec["ok"] = rec["mpps"] is not None and not rec["problems"]
    if rec["ok"]:
        shutil.rmtree(base, ignore_errors=True)
        rec.pop("config_dir")
    else:
        rec["stderr_tail"] = err_tail(inst.log_tail(8), "")
    return rec
