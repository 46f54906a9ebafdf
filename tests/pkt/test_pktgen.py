#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The pktgen source of tools/bench (tools/pktgen/README.md), short: pktgen
replays a 64-byte benchgen pcap over two memif links into dpdk-testpmd io
and into rocetor ECMP, 3 stats periods each, through `run.py --pktgen-only`.

pktgen-DPDK is not a Debian package and is never installed on the PATH by
this project: the test runs when $ROCETOR_PKTGEN names a pktgen binary
(tools/pktgen/build.sh prints where it put it) or `pktgen` is on the PATH,
and otherwise prints "skipped: no pktgen" and exits 77 (meson: SKIP).
Before that, with or without pktgen, the bad-input errors of
tools/pktgen/build.sh (including a git checkout with local changes) and of
run.py's pktgen options are checked (a failure there fails the test rather
than skipping it). With pktgen, the runs must leave no hugepages taken:
HugePages_Free back to its value before and no new file in hugetlbfs."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

PERIODS = 3
BUILD = os.path.join(harness.SRC_ROOT, "tools", "pktgen", "build.sh")
RUN = os.path.join(harness.SRC_ROOT, "tools", "bench", "run.py")


def hugepages_free():
    """HugePages_Free of /proc/meminfo (the default page size's pool)."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                return int(line.split()[1])
    return None


def hugepage_files():
    """The files in every hugetlbfs mount (a DPDK process that does not
    unlink its pages leaves PREFIXmap_N files there)."""
    out = []
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 2 and parts[2] == "hugetlbfs":
                try:
                    out += [os.path.join(parts[1], n) for n in os.listdir(parts[1])]
                except OSError:
                    pass
    return out


def bad_input(t):
    """Clear errors, exit status 2, before anything is installed or run."""
    work = tempfile.mkdtemp(prefix="rocetor-pktgen-args-")

    def fake_tree(name, version):
        """What build.sh takes for a Pktgen-DPDK tree of that VERSION."""
        d = os.path.join(work, name)
        os.makedirs(os.path.join(d, "app"))
        for f in ("meson.build", "app/pktgen-port-cfg.c"):
            open(os.path.join(d, f), "w").close()
        with open(os.path.join(d, "VERSION"), "w") as f:
            f.write(version + "\n")
        return d

    try:
        fake = fake_tree("Pktgen-DPDK", "24.10.3")
        cases = [
            ([BUILD], "usage: "),
            ([BUILD, os.path.join(work, "none")], "not a Pktgen-DPDK source tree"),
            ([BUILD, fake], "is pktgen 24.10.3; this script and its patch are for 23.03.0"),
            ([BUILD, fake, os.path.join(fake, "build")], "is pktgen 24.10.3"),
            (["/usr/bin/python3", RUN, "--pktgen-only", "--pktgen", os.path.join(work, "none")],
             "not an executable"),
            (["/usr/bin/python3", RUN, "--pktgen-only", "--pktgen-duts", "testpmd-io,l3fwd"],
             "--pktgen-duts: l3fwd: not one of"),
            (["/usr/bin/python3", RUN, "--pktgen-only", "--pktgen-sizes", "4096"],
             "--pktgen-sizes: [4096]: only 64 and 1024"),
        ]
        # A git checkout whose tracked files were changed: refused before
        # anything is installed (only the commit's files are ever built).
        gitsrc = fake_tree("Pktgen-git", "23.03.0")
        git = ["git", "-C", gitsrc, "-c", "user.email=t@t", "-c", "user.name=t"]
        if shutil.which("git") and all(
                subprocess.run(git + c, capture_output=True).returncode == 0
                for c in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "23.03.0"])):
            with open(os.path.join(gitsrc, "meson.build"), "w") as f:
                f.write("# changed\n")
            cases.append(([BUILD, gitsrc, os.path.join(work, "gitbuild")],
                          "has local changes to pktgen's own files"))
        else:
            t.check(False, "git: cannot make the test's checkout")
        for cmd, msg in cases:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            what = " ".join(os.path.basename(c) for c in cmd[-3:])
            t.eq(r.returncode, 2, "(%s exit status) %s" % (what, r.stderr[-300:]))
            t.check(msg in r.stderr, "%s: stderr lacks %r: %s" % (what, msg, r.stderr[-300:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    t = harness.Checker("pktgen")
    bad_input(t)
    pktgen = os.environ.get("ROCETOR_PKTGEN") or shutil.which("pktgen")
    if not pktgen:
        if t.failed:
            return t.done()
        print("pktgen: %d passed (bad input)" % t.passed)
        print("skipped: no pktgen ($ROCETOR_PKTGEN or pktgen on the PATH; "
              "tools/pktgen/build.sh builds it)")
        return 77
    t.check(os.access(pktgen, os.X_OK), "%s is not an executable" % pktgen)
    free0, files0 = hugepages_free(), hugepage_files()
    out = tempfile.mkdtemp(prefix="rocetor-pktgen-test-")
    try:
        cmd = ["/usr/bin/python3", os.path.join(harness.SRC_ROOT, "tools", "bench", "run.py"),
               "--pktgen-only", "--pktgen", pktgen, "--pktgen-runs", "1",
               "--pktgen-sizes", "64", "--pktgen-seconds", str(PERIODS),
               "--pktgen-warmup", "1", "--pktgen-duts", "testpmd-io,rocetor-ecmp",
               "--pktgen-packets", "4096", "--pktgen-flows", "256",
               "--traffic-dir", out, "--out", out, "--no-snapshot",
               "--rocetor", harness.ROCETOR]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=420)
        sys.stdout.write(r.stdout[-3000:])
        t.eq(r.returncode, 0, "run.py --pktgen-only: %s" % r.stderr[-2000:])
        try:
            with open(os.path.join(out, "pktgen.json")) as f:
                res = json.load(f)
        except (OSError, ValueError) as e:
            t.check(False, "no pktgen.json: %s" % e)
            return t.done()
        recs = {r["dut"]: r for r in res["records"]}
        t.eq(sorted(recs), ["rocetor-ecmp", "testpmd-io"], "(one run per DUT)")
        for dut, rec in sorted(recs.items()):
            t.check(rec["ok"], "%s: %s" % (dut, rec["problems"]))
            t.eq(rec.get("periods"), PERIODS, "(%s: stats periods measured)" % dut)
            t.eq(len(rec["lines"]), PERIODS, "(%s: one line per period)" % dut)
            tx, rx = rec["tx_mpps"] or 0, rec["rx_mpps"] or 0
            t.check(tx > 0.1, "%s: pktgen sent %.3f Mpps" % (dut, tx))
            # memif does not lose: a full ring makes the sender wait.
            t.check(tx > 0 and 0.98 <= rx / tx <= 1.02,
                    "%s: rx %.3f of tx %.3f Mpps over memif" % (dut, rx, tx))
            t.eq(rec.get("dut_rc"), 0, "(%s exit status)" % dut)
        ecmp = recs.get("rocetor-ecmp", {})
        fwd = ecmp.get("forwarded") or 0
        # Everything pktgen counted back in the window went through rocetor.
        t.check(fwd >= (ecmp.get("rx_mpps") or 0) * 1e6 * PERIODS * 0.99,
                "rocetor forwarded %d, pktgen counted %.3f Mpps x %d s" % (
                    fwd, ecmp.get("rx_mpps") or 0, PERIODS))
        drops = ecmp.get("drops") or {}
        t.check(sum(drops.values()) <= 0.01 * max(fwd, 1),
                "rocetor dropped more than 1%%: %s" % drops)
        md = open(os.path.join(out, "pktgen.md")).read()
        t.check("| rocetor-ecmp | 64 B | 1/1 |" in md, "pktgen.md table: " + md[-800:])
        # Nothing left taken: every process unlinked its hugepage files
        # (--huge-unlink), so the free count is back and no file remains.
        for dut, rec in sorted(recs.items()):
            t.check("--huge-unlink" in rec.get("pktgen_cmd", "") and
                    "--huge-unlink" in rec.get("dut_cmd", ""),
                    "%s: a command without --huge-unlink" % dut)
        t.eq(hugepages_free(), free0, "(HugePages_Free after the runs, before: %s)" % free0)
        t.eq(sorted(set(hugepage_files()) - set(files0)), [], "(files left in hugetlbfs)")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
