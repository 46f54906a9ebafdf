#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The pktgen source of tools/bench (tools/pktgen/README.md), short: pktgen
replays a 64-byte benchgen pcap over two memif links into dpdk-testpmd io
and into rocetor ECMP, 3 stats periods each, through `run.py --pktgen-only`;
then the README's memif lab runs as its commands are written.

pktgen-DPDK is not a Debian package and is never installed on the PATH by
this project: the test runs when $ROCETOR_PKTGEN names a pktgen binary
(tools/pktgen/build.sh prints where it put it) or `pktgen` is on the PATH,
and otherwise prints "skipped: no pktgen" and exits 77 (meson: SKIP).
Before that, with or without pktgen, the bad-input errors of
tools/pktgen/build.sh (including a git checkout with local changes) and of
run.py's pktgen options are checked, and that build.sh copies only a git
checkout's commit, not its untracked files (a failure there fails the test
rather than skipping it). With pktgen, the bench's runs and the lab must
each leave no hugepage taken: no hugetlbfs file of their --file-prefixes
and HugePages_Free back to its value before."""
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
import harness  # noqa: E402

sys.path.insert(0, os.path.join(harness.SRC_ROOT, "tools", "bench"))
from rocebench.common import LOCK  # noqa: E402
from rocebench.machine import Hugepages  # noqa: E402
from rocebench.pktgen import LINE_RE, RESULT_RE  # noqa: E402

PERIODS = 3
BUILD = os.path.join(harness.SRC_ROOT, "tools", "pktgen", "build.sh")
RUN = os.path.join(harness.SRC_ROOT, "tools", "bench", "run.py")
README = os.path.join(harness.SRC_ROOT, "tools", "pktgen", "README.md")
# Where the README's commands say pktgen is (its section 1 builds it there).
README_PKTGEN = "/work/pktgen-build/build/app/pktgen"
# build.sh's Debian build dependencies (it installs those missing).
BUILD_DEPS = ("meson", "ninja-build", "pkg-config", "gcc", "patch", "libdpdk-dev",
              "libpcap-dev", "libnuma-dev", "libbsd-dev", "liblua5.3-dev")


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


def hugepages_before():
    """(HugePages_Free, pages in hugetlbfs files) before the runs. Files
    there now are other processes' pages, or pages some process left
    behind, which any DPDK process's start removes (the EAL clears the
    files no live process holds): the free count may come back higher by
    at most that many pages."""
    pages = 0
    for f in hugepage_files():
        try:
            st = os.stat(f)
            pages += -(-st.st_size // os.statvfs(f).f_bsize)
        except OSError:
            pass
    return hugepages_free(), pages


def hugepages_back(t, before, prefixes, what):
    """Nothing left taken by the processes of these EAL --file-prefixes: no
    hugetlbfs file of theirs, and HugePages_Free back to its value before
    (up to the pages of files that were there: hugepages_before). The count
    is polled for up to 10 s: other users of a shared machine may hold
    pages for a moment, while pages left taken stay taken."""
    free0, spare = before
    left = [f for f in hugepage_files()
            if any(os.path.basename(f).startswith(p + "map_") for p in prefixes)]
    t.eq(left[:8], [], "(%s: hugetlbfs files left by its processes, %d)" % (what, len(left)))
    free, end = hugepages_free(), time.time() + 10
    while not free0 <= free <= free0 + spare and time.time() < end:
        time.sleep(0.5)
        free = hugepages_free()
    t.check(free0 <= free <= free0 + spare,
            "%s: HugePages_Free %s after, %s before (+%d in files then); hugetlbfs "
            "holds %s" % (what, free, free0, spare, hugepage_files()[:8]))


def eal_prefixes(cmd):
    """The --file-prefix values of a command line (a string)."""
    return re.findall(r"--file-prefix[ =](\S+)", cmd)


def fake_tree(work, name, version):
    """What build.sh takes for a Pktgen-DPDK tree of that VERSION."""
    d = os.path.join(work, name)
    os.makedirs(os.path.join(d, "app"))
    for f in ("meson.build", "app/pktgen-port-cfg.c"):
        open(os.path.join(d, f), "w").close()
    with open(os.path.join(d, "VERSION"), "w") as f:
        f.write(version + "\n")
    return d


def bad_input(t):
    """Clear errors, exit status 2, before anything is installed or run."""
    work = tempfile.mkdtemp(prefix="rocetor-pktgen-args-")
    try:
        fake = fake_tree(work, "Pktgen-DPDK", "24.10.3")
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
        gitsrc = fake_tree(work, "Pktgen-git", "23.03.0")
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


def checkout_copy(t):
    """build.sh on a git checkout copies its commit (git archive), not the
    untracked files another checkout left behind (with those a checkout
    that once had a later release fails to build). The fake source is not
    pktgen, so the patch after the copy fails (exit 1) and nothing is
    built; run only when build.sh would install nothing."""
    missing = [c for c in ("git", "dpkg-query") if not shutil.which(c)]
    missing = missing or [p for p in BUILD_DEPS if "install ok installed" not in subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True).stdout]
    if missing:
        print("pktgen: build.sh's copy of a checkout not tried (missing: %s)" %
              " ".join(missing))
        return
    work = tempfile.mkdtemp(prefix="rocetor-pktgen-copy-")
    try:
        src = fake_tree(work, "Pktgen-DPDK", "23.03.0")
        committed = ["VERSION", "meson.build", "app/pktgen-port-cfg.c"]
        git = ["git", "-C", src, "-c", "user.email=t@t", "-c", "user.name=t"]
        for c in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "23.03.0"]):
            subprocess.run(git + c, capture_output=True, check=True)
        with open(os.path.join(src, "app", "l2p.h"), "w") as f:
            f.write("/* a later release's file, untracked here */\n")
        out = os.path.join(work, "build")
        # A session of its own: patch, failing, may not ask on a terminal.
        r = subprocess.run([BUILD, src, out], capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL, start_new_session=True)
        t.check("leaving out 1 untracked file(s)" in r.stdout,
                "build.sh did not say it left the untracked file out: %s" % r.stdout[-300:])
        for name in committed:
            t.check(os.path.isfile(os.path.join(out, "src", name)),
                    "build.sh's copy lacks the committed %s" % name)
        t.check(not os.path.exists(os.path.join(out, "src", "app", "l2p.h")),
                "build.sh copied an untracked file (app/l2p.h)")
        t.check(not os.path.exists(os.path.join(out, "build", "build.ninja")),
                "build.sh configured a build of the fake source (exit %d)" % r.returncode)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def readme_lab(t, pktgen, before):
    """tools/pktgen/README.md's memif lab (section 2), its commands run as
    written but for where things are: the rocetor and pktgen binaries, /tmp
    (a directory of this test's) and the two --file-prefixes (unique). It
    must print the script's per-second t= lines, RESULT and DONE, stop
    rocetor cleanly before pktgen quits, and leave no hugepage taken."""
    m = re.search(r"## 2\. The lab over memif.*?```sh\n(.*?)```", open(README).read(), re.S)
    if not t.check(m is not None, "%s: no sh block in section 2" % README):
        return
    script = m.group(1)
    work = tempfile.mkdtemp(prefix="rocetor-pktgen-lab-")
    fp_rtr, fp_pg = harness.eal_prefix("pglabr"), harness.eal_prefix("pglab")
    for old, new in (("/tmp/", work + "/"), (README_PKTGEN, pktgen),
                     ("build/app/rocetor ", harness.ROCETOR + " "),
                     ("--file-prefix rtrpg ", "--file-prefix %s " % fp_rtr),
                     ("--file-prefix pg ", "--file-prefix %s " % fp_pg)):
        t.check(old in script, "README lab: its commands lack %r" % old)
        script = script.replace(old, new)
    periods = int((re.search(r"ROCETOR_PG_SECONDS=(\d+)", script) or [0, 0])[1])
    # The order of the end: pktgen waits for its quit file, which is
    # touched only once rocetor has been stopped and waited for.
    t.check("ROCETOR_PG_QUIT_FILE=" in script and
            0 <= script.find("kill -INT $rtr; wait $rtr") < script.find("touch "),
            "README lab: pktgen is let go before rocetor is stopped")
    hp = Hugepages()
    lock = os.open(LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # no benchmark beside it
        hp.ensure(2048 + 3072)  # the README's rocetor -m and pktgen -m
        p = subprocess.Popen(["bash", "-c", script], cwd=harness.SRC_ROOT,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace",
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the lab's shell and its children
            out, _ = p.communicate()
            t.check(False, "README lab: still running after 300 s")
    finally:
        hp.restore()
        os.close(lock)
    lines = LINE_RE.findall(out)
    result = RESULT_RE.search(out)
    print("README lab: %d t= lines, %s" % (len(lines), result.group(0) if result else
                                            "no RESULT line"))
    t.eq(p.returncode, 0, "(README lab exit status) %s" % out[-1500:])
    t.check(periods > 0 and len(lines) == periods,
            "README lab: %d t= lines, %d periods asked: %s" % (len(lines), periods, out[-1500:]))
    t.check(result is not None and int(result.group(1)) == periods and
            float(result.group(2)) > 0.1, "README lab: RESULT %s" % (
                result.group(0) if result else None))
    t.check("rocetor-replay: DONE" in out, "README lab: no DONE")
    # rocetor stopped by the lab's SIGINT and closed its ports itself.
    t.check("rocetor: stopping (SIGINT)" in out and
            "rocetor: mempool in use after ports closed" in out,
            "README lab: rocetor did not stop on SIGINT: %s" % out[-1500:])
    err = os.path.join(work, "pktgen.err")
    if os.path.exists(err):
        t.check("panic" not in open(err, errors="replace").read().lower(),
                "README lab: pktgen panicked: %s" % open(err, errors="replace").read()[-800:])
    hugepages_back(t, before, [fp_rtr, fp_pg], "README lab")
    shutil.rmtree(work, ignore_errors=True)


def main():
    t = harness.Checker("pktgen")
    bad_input(t)
    checkout_copy(t)
    pktgen = os.environ.get("ROCETOR_PKTGEN") or shutil.which("pktgen")
    if not pktgen:
        if t.failed:
            return t.done()
        print("pktgen: %d passed (bad input)" % t.passed)
        print("skipped: no pktgen ($ROCETOR_PKTGEN or pktgen on the PATH; "
              "tools/pktgen/build.sh builds it)")
        return 77
    t.check(os.access(pktgen, os.X_OK), "%s is not an executable" % pktgen)
    before = hugepages_before()
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
        # (--huge-unlink), so no file remains and the free count is back.
        prefixes = []
        for dut, rec in sorted(recs.items()):
            t.check("--huge-unlink" in rec.get("pktgen_cmd", "") and
                    "--huge-unlink" in rec.get("dut_cmd", ""),
                    "%s: a command without --huge-unlink" % dut)
            prefixes += eal_prefixes(rec.get("pktgen_cmd", "")) + \
                eal_prefixes(rec.get("dut_cmd", ""))
        t.eq(len(prefixes), 2 * len(recs), "(--file-prefix of each command: %s)" % prefixes)
        hugepages_back(t, before, prefixes, "run.py --pktgen-only")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    readme_lab(t, pktgen, before)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
