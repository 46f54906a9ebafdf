#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""bench-smoke: the benchmark suite's smoke run (tools/bench/run.py --smoke:
ecmp and ConWeave SrcToR, 1024 B, 1K flows, one round of 1 s, testpmd 5tswap
when dpdk-testpmd is installed, hugepages, -m <= 512 per process) completes,
prints the table, every mode has a positive Mpps, and every run's final stats
document is sane. Not a timed assertion: no Mpps threshold.

DPDK's l3fwd runs too when a full run built it before (the smoke builds
nothing: --smoke).

The runner's own checks (stats sanity, testpmd parsing) are also fed doctored
input here, so that they are seen to fail when they should; so are the
l3fwd peer's parts that need no l3fwd (check_l3fwd: routes, command line,
main.c patches, deb-src entry, the telemetry window's Mpps, the ratio)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

SRC = os.environ.get("ROCETOR_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
RUN = os.path.join(SRC, "tools", "bench", "run.py")
BENCHGEN = os.path.join(SRC, "tools", "bench", "benchgen.py")
MODES = ["ecmp", "conweave-src"]

sys.path.insert(0, os.path.join(SRC, "tools", "bench"))


def stats_doc(rx, fwd, dropped=0, held=0, in_use=0, reason="no_route"):
    return {"ports": [{"port": 0, "rx_packets": rx}, {"port": 1, "rx_packets": 0}],
            "forwarded": fwd, "consumed": 0, "dropped": dropped,
            "drops": {"no_route": dropped if reason == "no_route" else 0,
                      "queue_full": dropped if reason == "queue_full" else 0},
            "held_packets": held, "mempool_in_use": in_use, "lb": {}}


def check_runner_checks(t):
    """run.py's parsers and sanity rules on known input."""
    import run  # tools/bench/run.py
    p, n, frac, top = run.check_final(stats_doc(1000, 1000), 0)
    t.eq(p, [], "(clean stats doc flagged)")
    t.eq(n, [], "(clean stats doc noted)")
    p, n, frac, top = run.check_final(stats_doc(1000, 1000, in_use=7), 0)
    t.check(any("mempool_in_use" in x for x in p), "mempool_in_use 7 not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 1000, held=3), 0)
    t.check(any("held_packets" in x for x in p), "held_packets 3 not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 950, dropped=40), 0)
    t.check(any("forwarded + consumed + dropped" in x for x in p),
            "accounting hole not flagged: %r" % p)
    p, n, frac, top = run.check_final(stats_doc(1000, 950, dropped=50, reason="queue_full"), 0)
    t.eq(p, [], "(5% drops are a warning, not a failure)")
    t.check(any("5.0%" in x and "queue_full" in x for x in n),
            "drops > 1%% must be noted with the top reason: %r" % n)
    p, n, frac, top = run.check_final(stats_doc(1000, 995, dropped=5), 0)
    t.eq(n, [], "(0.5% drops noted)")
    out = ("  ######## NIC statistics for port 0  ########\n  Rx-pps:            0   Rx-bps: 0\n"
           "  ######## NIC statistics for port 1  ########\n  Rx-pps:            0   Rx-bps: 0\n"
           "  ######## NIC statistics for port 0  ########\n  Rx-pps:     17655830   Rx-bps: 1\n"
           "  ######## NIC statistics for port 1  ########\n  Rx-pps:           12   Rx-bps: 1\n")
    t.eq(run.testpmd_samples(out.splitlines(True), 0), [0, 17655830])
    t.eq(run.testpmd_samples(out.splitlines(True), 1), [0, 12])
    docs = run.parse_docs('rocetor: start\n{"switch": "b", "uptime_s": 0.5,\n "ports": []}\n'
                          'noise\n{"switch": "b", "uptime_s": 1.0, "ports": []}\n')
    t.eq([d["uptime_s"] for d in docs], [0.5, 1.0])
    t.eq(run.n_mbufs(16000, 49152), 65535)
    t.eq(run.n_mbufs(1000000, 65536), (1 << 21) - 1)
    t.check(run.data_room(4096) - 128 >= 4158, "4 KB frames must fit one mbuf")


def lpm_port(rules, addr):
    """The port of the longest prefix of `rules` [(net, len, port)] that
    holds addr (None: no route)."""
    best = None
    for net, plen, port in rules:
        mask = ((1 << 32) - 1) ^ ((1 << (32 - plen)) - 1)
        if addr & mask == net & mask and (best is None or plen > best[0]):
            best = (plen, port)
    return None if best is None else best[1]


def check_l3fwd(t):
    """The l3fwd peer's parts that need no l3fwd: its routes, command line,
    pool environment, main.c patches, deb-src entry, the telemetry window
    arithmetic and the ratio it gives every mode."""
    import types
    import benchgen  # tools/bench/benchgen.py
    from rocebench import l3fwd, report, runner

    # Routes: every flow of benchgen's traffic has a route to a port of
    # rocetor's config for that destination: role src's 10.2 hosts to the
    # fabric ports 1-4 (the /16's top two host bits pick the /18), all four
    # used; role dst's 10.1 hosts to the host port 0.
    r4 = l3fwd.parse_rules(l3fwd.rules_v4("src"))
    t.eq(len(r4), 5, "(IPv4 rules: 10.1/16 and four /18 of 10.2/16) %r" % r4)
    fl = benchgen.Flows("src", 1000, 1)
    got = [lpm_port(r4, fl.addrs(i)[1]) for i in range(1000)]
    want = [1 + ((fl.addrs(i)[1] >> 14) & 3) for i in range(1000)]
    t.eq(got, want, "(src flows' egress ports)")
    t.eq(sorted(set(got)), [1, 2, 3, 4], "(src flows reach every fabric port)")
    counts = [got.count(p) for p in (1, 2, 3, 4)]
    t.check(min(counts) > 150, "src flows spread unevenly over the uplinks: %r" % counts)
    fl = benchgen.Flows("dst", 1000, 1)
    t.eq(sorted({lpm_port(l3fwd.parse_rules(l3fwd.rules_v4("dst")), fl.addrs(i)[1])
                 for i in range(1000)}), [0], "(dst flows to the host port 0)")
    t.check(l3fwd.RULES_V6.count("\nR") + l3fwd.RULES_V6.startswith("R") >= 1,
            "l3fwd reads its rule files only when both have a rule")

    # The command line: the pcap on the role's port, one lcore (0) that
    # forwards the receiving port's queue 0, software ptype parsing.
    meta = {"files": ["/x/a.pcap"]}
    for role, rxp in (("src", 0), ("dst", 1)):
        cmd = l3fwd.command("/b/l3fwd", "pfx", 300, meta, role, "/r/v4", "/r/v6")
        t.eq(cmd[:3], ["stdbuf", "-oL", "/b/l3fwd"])
        app = cmd[cmd.index("--") + 1:]
        ealv = cmd[:cmd.index("--")]
        t.eq(ealv[ealv.index("-l") + 1], "0", "(l3fwd lcores, %s)" % role)
        t.check("--main-lcore" not in ealv, "l3fwd: the forwarding lcore is the main one")
        t.eq(app[app.index("--config") + 1], "(%d,0,0)" % rxp, "(%s --config)" % role)
        t.eq(app[app.index("-p") + 1], "0x1f", "(every port enabled)")
        t.eq(app[app.index("--rule_ipv4") + 1], "/r/v4")
        t.eq(app[app.index("--rule_ipv6") + 1], "/r/v6")
        t.eq(app[app.index("--lookup") + 1], "lpm")
        t.check("--parse-ptype" in app, "no --parse-ptype: %r" % app)
        t.eq(ealv[ealv.index("--file-prefix") + 1], "pfx")
        t.eq(ealv[ealv.index("-m") + 1], "300")
        t.check("--huge-unlink" in ealv and "--no-pci" in ealv, "EAL options %r" % ealv)
        vd = [ealv[i + 1] for i, x in enumerate(ealv) if x == "--vdev"]
        t.eq(len(vd), 5, "(five ports)")
        t.eq(vd[rxp], "net_pcap%d,rx_pcap=/x/a.pcap,infinite_rx=1" % rxp)
        t.eq([v for i, v in enumerate(vd) if i != rxp],
             ["net_null%d,no-rx=1" % i for i in range(5) if i != rxp])
    t.eq(l3fwd.environment(65535, 4416, 1024), {l3fwd.ENV_MBUFS: "65535"})
    t.eq(l3fwd.environment(65535, 4416, 4096),
         {l3fwd.ENV_MBUFS: "65535", l3fwd.ENV_MBUF_SIZE: "4416"})

    # The patches: each text found once, or a reason.
    src = ("static struct rte_eth_conf port_conf = {\n\t.rxmode = {\n"
           "\t\t.mq_mode = RTE_ETH_MQ_RX_RSS,\n\t\t.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,\n"
           "\t},\n};\n#define NB_MBUF(n) RTE_MAX(n * 2, \\\n\t(unsigned)8192)\n"
           "pool = rte_pktmbuf_pool_create(s, nb_mbuf, 256, 0,\n"
           "\t\t\tRTE_MBUF_DEFAULT_BUF_SIZE, socketid);\n")
    out = l3fwd.patch_main_c(src)
    t.check("RX_OFFLOAD_CHECKSUM" not in out and "RTE_ETH_MQ_RX_RSS" in out,
            "checksum offload request not removed:\n%s" % out)
    t.check('getenv("%s")' % l3fwd.ENV_MBUFS in out and ": 8192))" in out,
            "pool size not taken from $%s:\n%s" % (l3fwd.ENV_MBUFS, out))
    t.check('getenv("%s")' % l3fwd.ENV_MBUF_SIZE in out, "data room not patched:\n%s" % out)
    for what, old, new in l3fwd.PATCHES:
        try:
            l3fwd.patch_main_c(src.replace(old, ""))
            t.check(False, "patch %r: a main.c without its text was accepted" % what)
        except l3fwd.L3fwdError as e:
            t.check("found 0 times" in str(e), "patch %r: %s" % (what, e))

    # deb-src: mirrored from the deb822 entries, same Signed-By; nothing
    # when one exists.
    deb = ("Types: deb\nURIs: http://a.example/debian\nSuites: bookworm bookworm-updates\n"
           "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n\n"
           "# a comment\nTypes: deb\nURIs: http://a.example/sec\nSuites: bookworm-security\n"
           "Components: main\nSigned-By: /usr/share/keyrings/k.gpg\n")
    new = l3fwd.deb_src_sources([deb])
    st = l3fwd.deb822_stanzas(new or "")
    t.eq([x.get("Types") for x in st], ["deb-src", "deb-src"])
    t.eq([(x.get("URIs"), x.get("Suites"), x.get("Signed-By")) for x in st],
         [("http://a.example/debian", "bookworm bookworm-updates", "/usr/share/keyrings/k.gpg"),
          ("http://a.example/sec", "bookworm-security", "/usr/share/keyrings/k.gpg")])
    # the suites a deb-src stanza already covers are left out
    part = l3fwd.deb_src_sources([deb, "Types: deb-src\nURIs: http://a.example/debian\n"
                                  "Suites: bookworm bookworm-updates\nComponents: main\n"])
    t.eq([(x.get("Types"), x.get("URIs"), x.get("Suites"))
          for x in l3fwd.deb822_stanzas(part or "")],
         [("deb-src", "http://a.example/sec", "bookworm-security")])
    t.eq(l3fwd.deb_src_sources([deb, "Types: deb deb-src\nURIs: http://a.example/debian\n"
                                "Suites: bookworm bookworm-updates\n\nTypes: deb-src\n"
                                "URIs: http://a.example/sec\nSuites: bookworm-security\n"]),
         None)
    t.eq(l3fwd.deb_src_lines(["deb [arch=amd64] http://a.example/d bookworm main\n"
                              "deb-src http://a.example/d bookworm-updates main\n"
                              "deb http://a.example/d bookworm-updates main\n"]),
         ["deb-src [arch=amd64] http://a.example/d bookworm main"])
    # ensure_deb_src on a fresh machine's layout (a temporary sources.list.d,
    # apt stood in for: showsrc knows the version only after the update)
    import tempfile as tf
    d = tf.mkdtemp(prefix="rocetor-bench-apt-")
    with open(os.path.join(d, "debian.sources"), "w") as f:
        f.write(deb)
    calls = []
    updated = []

    def fake_apt(cmd):
        calls.append(cmd[:2])
        if cmd[:2] == ["apt-get", "update"]:
            updated.append(1)
        known = bool(updated)
        return types.SimpleNamespace(returncode=0, stderr="", stdout=(
            "Package: dpdk\nVersion: 9.9-1\n" if known else ""))
    what = l3fwd.ensure_deb_src(fake_apt, "9.9-1", sources_d=d,
                                sources_list=os.path.join(d, "none"))
    added = os.path.join(d, l3fwd.OUR_NAME + ".sources")
    t.check(os.path.isfile(added) and "added" in what, "no deb-src file added: %r" % what)
    t.eq([x.get("Types") for x in l3fwd.deb822_stanzas(open(added).read())],
         ["deb-src", "deb-src"])
    t.eq(calls, [["apt-cache", "showsrc"], ["apt-get", "update"], ["apt-cache", "showsrc"]])
    calls[:] = []
    t.check("knows" in l3fwd.ensure_deb_src(fake_apt, "9.9-1", sources_d=d),
            "a known source must add nothing")
    t.eq(calls, [["apt-cache", "showsrc"]])
    shutil.rmtree(d, ignore_errors=True)

    # The telemetry window: 8e6 packets to the sinks in 2 s = 4 Mpps; the
    # receiving port got 8.1e6 (4.05 Mpps): 98.8% forwarded is noted.
    def stats(ip, op, missed=0):
        return {"ipackets": ip, "opackets": op, "imissed": missed, "rx_nombuf": 0}
    s0 = (100.0, {0: stats(5000, 7), 1: stats(0, 10), 2: stats(0, 20), 3: stats(0, 0),
                  4: stats(0, 0)})
    s1 = (102.0, {0: stats(8105000, 7, 3), 1: stats(0, 3000010), 2: stats(0, 2000020),
                  3: stats(0, 1000000), 4: stats(0, 2000000)})
    w = l3fwd.window(s0, s1, 0)
    t.check(abs(w["mpps"] - 4.0) < 1e-9, "l3fwd Mpps %r, want 4.0" % w["mpps"])
    t.check(abs(w["rx_mpps"] - 4.05) < 1e-9, "l3fwd rx Mpps %r, want 4.05" % w["rx_mpps"])
    t.eq((w["forwarded"], w["received"], w["imissed"], w["back_out"]), (8000000, 8100000, 3, 0))
    probs, notes = l3fwd.problems_of(w)
    t.eq(probs, [])
    t.check(any("98.8%" in n for n in notes) and any("imissed 3" in n for n in notes),
            "notes %r" % notes)
    # on-CPU: the busiest thread's gain over the window (1.6 of 2 s), in
    # TSC cycles per received packet
    c, frac = l3fwd.oncpu({"10": 5, "11": 100}, {"10": 1600000005, "11": 200, "12": 9},
                          2.0, 8100000, 2.6e9)
    t.check(abs(c - 1.6 * 2.6e9 / 8100000) < 1e-6 and abs(frac - 0.8) < 1e-9,
            "l3fwd on-CPU %r %r" % (c, frac))
    t.eq(l3fwd.oncpu({"10": 5}, {"10": 5}, 2.0, 100, 2.6e9), (None, None))
    mine = l3fwd.thread_cpu_ns(os.getpid())
    t.check(mine and all(v >= 0 for v in mine.values()) and str(os.getpid()) in mine,
            "schedstat of this process: %r" % mine)
    # role dst: port 1 receives, port 0 is a sink
    w = l3fwd.window(s0, s1, 1)
    t.eq(w["forwarded"], 8000000 - 3000000 + 0, "(dst: sinks 0, 2, 3, 4)")
    # a peer that drops everything (or sends it back) is a problem, not a figure
    s2 = (102.0, {p: dict(v) for p, v in s0[1].items()})
    s2[1][0]["ipackets"] = 6000000
    s2[1][0]["opackets"] = 5000007
    probs, notes = l3fwd.problems_of(l3fwd.window(s0, s2, 0))
    t.check(any("nothing forwarded" in p and "sent back 5000000" in p for p in probs),
            "a dropping peer not flagged: %r" % probs)

    # The ratio to l3fwd, per round, median over rounds, and its column.
    a = types.SimpleNamespace(modes=["ecmp"], dst_baseline="own", benchgen="", traffic_dir="",
                              packets=None, src_packets=None)
    ctx = runner.Ctx(a)
    ctx.tsc = None

    def rec(kind, mode, rnd, mpps, fwd=None):
        r = {"kind": kind, "mode": mode, "role": "src", "size": 1024, "flows": 1000,
             "round": rnd, "mpps": mpps, "ok": True, "notes": [], "problems": [],
             "label": "%s-r%d" % (mode, rnd)}
        if fwd:
            r["fwd"] = fwd
        return r
    ctx.records = [rec("testpmd", "testpmd-5tswap", 1, 10.0, "5tswap"),
                   rec("l3fwd", "l3fwd", 1, 12.5), rec("rocetor", "ecmp", 1, 9.0),
                   rec("testpmd", "testpmd-5tswap", 2, 7.5, "5tswap"),
                   rec("l3fwd", "l3fwd", 2, 10.0), rec("rocetor", "ecmp", 2, 9.0),
                   rec("testpmd", "testpmd-5tswap", 3, 9.0, "5tswap"),
                   rec("l3fwd", "l3fwd", 3, 15.0), rec("rocetor", "ecmp", 3, 12.0)]
    rows = runner.summarise(ctx)
    t.eq([r["mode"] for r in rows], ["testpmd-5tswap", "l3fwd", "ecmp"])
    e = rows[2]
    # per round 9/12.5 = 0.72, 9/10 = 0.9, 12/15 = 0.8: median 0.8
    t.check(abs(e["ratio_l3fwd"] - 0.8) < 1e-9, "x l3fwd %r, want 0.8" % e["ratio_l3fwd"])
    # 9/10, 9/7.5, 12/9: median 1.2
    t.check(abs(e["ratio_5tswap"] - 1.2) < 1e-9, "x 5tswap %r" % e["ratio_5tswap"])
    tab = report.md_table(ctx, rows).splitlines()
    hdr = [c.strip() for c in tab[0].strip("|").split("|")]
    ecmp = [c.strip() for c in tab[-1].strip("|").split("|")]
    t.eq(ecmp[hdr.index("x l3fwd")], "0.80", "(x l3fwd column) %s" % tab[-1])
    t.eq(ecmp[hdr.index("x 5tswap")], "1.20", "(x 5tswap column) %s" % tab[-1])
    # The same in on-CPU cycles: peer cycles / rocetor cycles per round.
    cyc = {("testpmd", 1): 40, ("l3fwd", 1): 50, ("rocetor", 1): 100,
           ("testpmd", 2): 44, ("l3fwd", 2): 60, ("rocetor", 2): 110,
           ("testpmd", 3): 36, ("l3fwd", 3): 45, ("rocetor", 3): 90}
    for r in ctx.records:
        r["oncpu_cycles_per_packet"] = cyc[(r["kind"], r["round"])]
        r["oncpu_frac"] = 0.8
    rows = runner.summarise(ctx)
    e = rows[2]
    # 5tswap: 0.4, 0.4, 0.4; l3fwd: 0.5, 0.545, 0.5: medians 0.4 and 0.5
    t.check(abs(e["ratio_5tswap_oncpu"] - 0.4) < 1e-9 and abs(e["ratio_l3fwd_oncpu"] - 0.5) < 1e-9,
            "on-CPU ratios %r %r" % (e["ratio_5tswap_oncpu"], e["ratio_l3fwd_oncpu"]))
    tab = report.md_table(ctx, rows).splitlines()
    ecmp = [c.strip() for c in tab[-1].strip("|").split("|")]
    t.eq((ecmp[hdr.index("on-CPU cyc")], ecmp[hdr.index("x 5tswap on-CPU")],
          ecmp[hdr.index("x l3fwd on-CPU")]), ("100 (80%)", "0.40", "0.50"),
         "(on-CPU columns) %s" % tab[-1])


DUMP_PORTS = """OFPST_PORT reply (xid=0x2): 5 ports
  port  "p0": rx pkts=1000, bytes=60000, drop=0, errs=0, frame=0, over=0, crc=0
           tx pkts=0, bytes=0, drop=0, errs=0, coll=0
  port  LOCAL: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0
           tx pkts=0, bytes=0, drop=0, errs=0, coll=0
  port  1: rx pkts=%d, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0
           tx pkts=0, bytes=0, drop=0, errs=0, coll=0
  port  2: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0
           tx pkts=%d, bytes=0, drop=0, errs=0, coll=0
  port  3: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0
           tx pkts=%d, bytes=0, drop=0, errs=0, coll=0
"""


def check_ovs(t):
    """The OVS-DPDK peer's parts that need no OVS (rocebench/ovs.py): the
    OpenFlow job is the switch's routes (the group hashes the 5-tuple over
    the four uplinks with their next hops' MACs), dump-ports parsing and
    the window, the pool's memory; and its ratio columns in the table."""
    import types
    from rocebench import config, ovs, report, runner
    flows, group = ovs.flows_text("src")
    t.check("ip,nw_dst=10.2.0.0/16,actions=dec_ttl,mod_dl_src:02:00:00:00:01:00,group:1" in flows
            and "nw_dst=10.1.0.0/16,actions=dec_ttl,mod_dl_src:02:00:00:00:01:00,mod_dl_dst:%s,"
            "output:1" % config.NEXTHOP_HOST in flows, "ovs flows:\n" + flows)
    t.check("type=select,selection_method=hash,fields(ip_src,ip_dst,udp_src,udp_dst)" in group,
            "ovs group hashes the 5-tuple: " + group)
    for i in range(4):
        t.check("bucket=bucket_id:%d,actions=mod_dl_dst:%s,output:%d" % (
            i + 1, config.NEXTHOP_UP[i], i + 2) in group, "(bucket %d) %s" % (i + 1, group))
    d0 = ovs.port_counts(DUMP_PORTS % (100, 10, 20))
    t.eq(d0, {1: (100, 0), 2: (0, 10), 3: (0, 20)}, "(dump-ports parsed: named ports skipped)")
    d1 = ovs.port_counts(DUMP_PORTS % (2000100, 1000010, 1000020))
    w = ovs.window(d0, d1, 10.0, 12.0, 0)
    t.check(abs(w["mpps"] - 1.0) < 1e-9 and abs(w["rx_mpps"] - 1.0) < 1e-9 and
            w["per_port_out"] == {1: 1000000, 2: 1000000}, "ovs window %r" % w)
    t.eq(ovs.mtu(4096), config.MTU_4K, "(OVS's MTU for 4 KB payloads)")
    t.eq(ovs.mbuf_room(1024), 2048 + 512, "(OVS's mbuf at MTU 1500)")
    t.check(ovs.mem_need(4096) > ovs.mem_need(64) >= ovs.OVS_POOL_MBUFS * 2560 / 2 ** 20,
            "ovs memory %d %d" % (ovs.mem_need(64), ovs.mem_need(4096)))
    a = types.SimpleNamespace(modes=["ecmp"], dst_baseline="own", benchgen="", traffic_dir="",
                              packets=None, src_packets=None)
    ctx = runner.Ctx(a)
    ctx.tsc = None
    ctx.records = [{"kind": k, "mode": m, "role": "src", "size": 64, "flows": 1000,
                    "round": 1, "mpps": v, "ok": True, "notes": [], "problems": [],
                    "label": m, "oncpu_cycles_per_packet": c}
                   for k, m, v, c in (("ovs", "ovs", 3.0, 600), ("rocetor", "ecmp", 7.5, 240))]
    rows = runner.summarise(ctx)
    t.eq([r["mode"] for r in rows], ["ovs", "ecmp"], "(OVS's row before the modes)")
    tab = report.md_table(ctx, rows).splitlines()
    hdr = [c.strip() for c in tab[0].strip("|").split("|")]
    ecmp = [c.strip() for c in tab[-1].strip("|").split("|")]
    t.eq((ecmp[hdr.index("x ovs")], ecmp[hdr.index("x ovs on-CPU")]), ("2.50", "2.50"),
         "(x ovs columns) %s" % tab[-1])


def check_scaling(t, work):
    """--scaling on a DstToR scenario: each worker replays the flows it owns
    (benchgen --split rss, the files in the order rocetor deals the pcap
    port's queues: port 1's queue 0 is worker 1's), so nothing is handed
    over, and the section has its ratio and both runs' on-CPU cycles."""
    out = os.path.join(work, "scaling")
    cmd = ["/usr/bin/python3", RUN, "--smoke", "--no-matrix", "--scaling", "--scaling-modes",
           "conweave-dst", "--scaling-size", "64", "--max-mem", "768", "--out", out,
           "--traffic-dir",
           os.path.join(work, "gen"), "--no-plot"]
    if os.environ.get("ROCETOR"):
        cmd += ["--rocetor", os.environ["ROCETOR"]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    t.eq(r.returncode, 0, "(run.py --scaling exit) %s" % (r.stdout[-1500:] + r.stderr[-1500:]))
    res = t.json_file(os.path.join(out, "results.json"), "scaling: results.json")
    if res is None:
        return
    e = (res.get("scaling") or {}).get("modes", {}).get("conweave-dst")
    if not t.check(e is not None, "scaling: no conweave-dst entry: %r" % res.get("scaling")):
        return
    t.eq(e["handoff_tx"], [0], "(scaling: packets handed between workers)")
    t.check(e["ratio_median"] is not None and e["ratio_median"] > 0 and
            e["w1_oncpu_median"] and e["w2_oncpu_median"],
            "scaling: ratio / on-CPU cycles missing: %r" % e)
    w2 = [x for x in res["runs"] if x.get("section") == "scaling" and x["workers"] == 2]
    t.eq([x.get("rx_queue_workers") for x in w2], [[1, 0]],
         "(the DstToR port's queues: rocetor's deal)")
    for x in w2:
        st = t.json_file(os.path.join(out, "runs", x["label"] + ".stats.json"))
        if st is None:
            continue
        t.eq(st["handoff_tx"], 0, "(%s: hand-offs in its stats)" % x["label"])
        t.eq(st["dropped"], 0, "(%s: drops %r)" % (x["label"],
                                                  {k: v for k, v in st["drops"].items() if v}))


def main():
    t = harness.Checker("bench-smoke")
    check_runner_checks(t)
    check_l3fwd(t)
    check_ovs(t)
    if not os.path.isfile(BENCHGEN):
        print("bench-smoke: SKIP: %s is missing (the benchmark traffic generator)" % BENCHGEN)
        return 77
    work = tempfile.mkdtemp(prefix="rocetor-bench-smoke-")
    env = dict(os.environ)
    cmd = ["/usr/bin/python3", RUN, "--smoke", "--out", work, "--traffic-dir",
           os.path.join(work, "gen"), "--no-plot"]
    if os.environ.get("ROCETOR"):
        cmd += ["--rocetor", os.environ["ROCETOR"]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=540, env=env)
    out = r.stdout
    t.eq(r.returncode, 0, "(run.py --smoke exit) %s" % (r.stdout[-1500:] + r.stderr[-1500:]))
    try:
        with open(os.path.join(work, "results.json")) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        t.check(False, "no results.json: %s" % e)
        return t.done()
    rows = {(x["mode"], x["role"]): x for x in res["summary"]}
    for mode in MODES:
        row = rows.get((mode, "src"))
        if not t.check(row is not None, "no summary row for %s" % mode):
            continue
        t.check(row["mpps"] is not None and row["mpps"] > 0,
                "%s: Mpps %r" % (mode, row["mpps"]))
        t.eq(row["runs"], 1, "(%s runs)" % mode)
        t.eq(row["sane_runs"], row["runs"], "(%s: runs with sane stats) %r" %
             (mode, row["warnings"]))
        # the printed table carries the same positive figure
        m = re.search(r"^\| 1024 \| 1K \| %s \| \*\*([0-9.]+)\*\* \|" % re.escape(mode), out,
                      re.M)
        t.check(m is not None and float(m.group(1)) > 0,
                "table row for %s with a positive Mpps not printed:\n%s" % (mode, out[-2500:]))
    # every rocetor run's final stats document, read here independently
    runs = [x for x in res["runs"] if x["kind"] == "rocetor"]
    t.eq(sorted(x["mode"] for x in runs), sorted(MODES))
    for x in runs:
        st = t.json_file(os.path.join(work, "runs", x["label"] + ".stats.json"))
        if st is None:
            continue
        rx = sum(p["rx_packets"] for p in st["ports"])
        t.check(rx > 0 and st["forwarded"] > 0, "%s: rx %d forwarded %d" %
                (x["label"], rx, st["forwarded"]))
        t.eq(rx, st["forwarded"] + st["consumed"] + st["dropped"], "(%s accounting)" % x["label"])
        t.eq(st["held_packets"], 0, "(%s held at exit)" % x["label"])
        t.eq(st["mempool_in_use"], 0, "(%s mempool at exit)" % x["label"])
        t.check(st["dropped"] <= 0.01 * rx, "%s: %d of %d dropped (%r)" %
                (x["label"], st["dropped"], rx, {k: v for k, v in st["drops"].items() if v}))
        t.check(x["mem_mb"] <= 512, "%s: -m %d > 512" % (x["label"], x["mem_mb"]))
        t.check("--huge-unlink" in x["cmd"] and "infinite_rx=1" in x["cmd"],
                "%s: not the benchmark setup: %s" % (x["label"], x["cmd"]))
    tp = [x for x in res["runs"] if x["kind"] == "testpmd"]
    if shutil.which("dpdk-testpmd"):
        t.eq(len(tp), 1, "(testpmd 5tswap runs)")
        for x in tp:
            t.check(x["mpps"] is not None and x["mpps"] > 0,
                    "testpmd 5tswap: %r %r" % (x["mpps"], x["problems"]))
            t.check(x["mem_mb"] <= 512, "testpmd -m %d > 512" % x["mem_mb"])
        for mode in MODES:
            row = rows.get((mode, "src"))
            if row:
                t.check(row.get("ratio_5tswap") is not None and row["ratio_5tswap"] > 0,
                        "%s: no ratio to testpmd 5tswap" % mode)
    else:
        print("bench-smoke: dpdk-testpmd not installed: no testpmd comparison")
        t.eq(len(tp), 0)
    # l3fwd: the smoke builds nothing; when a full run built it before, it
    # runs once and must forward (its sinks' opackets grow)
    l3 = [x for x in res["runs"] if x["kind"] == "l3fwd"]
    if res["meta"].get("l3fwd"):
        t.eq(len(l3), 1, "(l3fwd runs)")
        for x in l3:
            t.check(x["mpps"] is not None and x["mpps"] > 0 and x["forwarded"] > 0 and
                    x["ok"], "l3fwd: %r %r" % (x["mpps"], x["problems"]))
            t.eq(x["rc"], 0, "(l3fwd exit after SIGINT)")
            t.check(x["mem_mb"] <= 512, "l3fwd -m %d > 512" % x["mem_mb"])
        row = rows.get(("ecmp", "src"))
        if row:
            t.check(row.get("ratio_l3fwd") is not None and row["ratio_l3fwd"] > 0,
                    "ecmp: no ratio to l3fwd")
    else:
        print("bench-smoke: l3fwd not built (%s): no l3fwd run" %
              res["meta"].get("l3fwd_why_not"))
        t.eq(len(l3), 0)
    t.check("net_pcap infinite_rx replay of" in out, "traffic source not named in the output")
    t.check(os.path.isfile(os.path.join(work, "results.md")) and
            os.path.isfile(os.path.join(work, "results.csv")), "results.md/.csv missing")
    check_scaling(t, work)
    rc = t.done()
    if rc == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("bench-smoke: results kept in %s" % work)
    return rc


if __name__ == "__main__":
    sys.exit(main())
