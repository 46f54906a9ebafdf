#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""The Debian package (tools/mkdeb.sh; doc/user-guide.md "Install and run
as a service"):

1. mkdeb.sh builds it (a --prefix=/usr build without the tests in a
   temporary directory, -march=native, 2 jobs: about 10 s here).
2. dpkg-deb -I: name, version, architecture; Depends names the package of
   every library the packaged rocetor links (found here independently:
   readelf, then dpkg -S) and the ring mempool plugin; conffiles are the
   files under /etc/rocetor.
3. dpkg-deb -c: the binaries in /usr/bin, the configs in /etc/rocetor, the
   unit in /usr/lib/systemd/system, the helper, the man page, the docs.
4. dpkg -i on this machine; /usr/bin/rocetor -h, the installed unit
   verified where it lies, the installed rocetor run on net_null ports with
   /etc/rocetor/spine.yaml; then dpkg -r (the configs stay: conffiles) and
   dpkg --purge: nothing left behind.
Skipped (exit 77, "skipped: ...") without dpkg-deb or root, or when a
rocetor package or /etc/rocetor is already on the machine (never touched)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pkt"))
import harness  # noqa: E402

SRC = harness.SRC_ROOT


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def dpkg(args):
    """dpkg, waiting a little for its lock if another dpkg runs."""
    for _ in range(30):
        p = sh(["dpkg"] + args, timeout=300)
        if p.returncode == 0 or "lock" not in p.stderr:
            return p
        time.sleep(2)
    return p


def status():
    """dpkg's status of the rocetor package, "" when it knows none."""
    return sh(["dpkg-query", "-W", "-f", "${Status}", "rocetor"]).stdout.strip()


def needed_packages(binary):
    """The Debian package of every library binary links (NEEDED)."""
    out = sh(["readelf", "-d", binary], check=True).stdout
    pkgs = set()
    for lib in re.findall(r"\(NEEDED\).*\[(.*)\]", out):
        ld = sh(["ldconfig", "-p"]).stdout
        m = re.search(r"^\s*%s \(.*\) => (\S+)$" % re.escape(lib), ld, re.M)
        path = m.group(1) if m else None
        owner = None
        for cand in filter(None, [path, path and os.path.realpath(path)]):
            p = sh(["dpkg", "-S", cand])
            if p.returncode == 0:
                owner = p.stdout.split(":")[0]
                break
        pkgs.add(owner or "?" + lib)
    return pkgs


def main():
    t = harness.Checker("deb")
    for tool in ("dpkg-deb", "dpkg", "meson", "ninja", "readelf"):
        if shutil.which(tool) is None:
            print("deb: skipped: %s not found" % tool)
            return 77
    if os.geteuid() != 0:
        print("deb: skipped: dpkg -i needs root")
        return 77
    st = status()
    if st and "not-installed" not in st:
        print("deb: skipped: a rocetor package is already on this machine (%s)" % st)
        return 77
    if os.path.exists("/etc/rocetor"):
        print("deb: skipped: /etc/rocetor exists (not ours to touch)")
        return 77

    out = tempfile.mkdtemp(prefix="rocetor-deb-")
    try:
        p = sh([os.path.join(SRC, "tools", "mkdeb.sh"), "--build-dir",
                os.path.join(out, "build"), "--out", out, "--march", "native", "--jobs", "2"],
               timeout=900)
        t.eq(p.returncode, 0, "(mkdeb.sh) " + p.stderr[-800:])
        debs = [f for f in os.listdir(out) if f.endswith(".deb")]
        t.eq(len(debs), 1, "(one .deb) %r" % debs)
        if not debs:
            return t.done()
        deb = os.path.join(out, debs[0])
        t.eq(p.stdout.strip(), deb, "(mkdeb prints the .deb)")

        # -I: the control fields.
        info = sh(["dpkg-deb", "-I", deb]).stdout
        fields = dict(re.findall(r"^ ([A-Z][A-Za-z-]+): (.*)$", info, re.M))
        t.eq(fields.get("Package"), "rocetor")
        arch = sh(["dpkg", "--print-architecture"]).stdout.strip()
        t.eq(fields.get("Architecture"), arch)
        t.check(re.fullmatch(r"0\.1\.0(\+git\d{12}\.[0-9a-f]{7})?", fields.get("Version", "")),
                "version %r" % fields.get("Version"))
        t.check(("rocetor_%s_%s.deb" % (fields.get("Version"), arch)) == debs[0], debs[0])
        deps = {re.sub(r"\s*\(.*\)", "", d.strip()) for d in fields.get("Depends", "").split(",")}
        for must in ("libconfig9", "libyaml-0-2", "librte-eal23", "librte-ethdev23",
                     "librte-mempool-ring23", "python3"):
            t.check(must in deps, "Depends lacks %s: %r" % (must, fields.get("Depends")))
        xdir = tempfile.mkdtemp(prefix="rocetor-debx-")
        sh(["dpkg-deb", "-x", deb, xdir], check=True)
        linked = needed_packages(os.path.join(xdir, "usr", "bin", "rocetor"))
        t.check(len(linked) >= 5 and linked <= deps,
                "linked libraries' packages %r not all in Depends %r" % (linked - deps, deps))
        shutil.rmtree(xdir, ignore_errors=True)
        ctl = tempfile.mkdtemp(prefix="rocetor-debc-")
        sh(["dpkg-deb", "-e", deb, ctl], check=True)
        with open(os.path.join(ctl, "conffiles")) as f:
            conf = f.read().split()
        t.check("/etc/rocetor/tor-100g.yaml" in conf and "/etc/rocetor/tor-100g.env" in conf
                and all(c.startswith("/etc/rocetor/") for c in conf), "conffiles %r" % conf)
        shutil.rmtree(ctl, ignore_errors=True)

        # -c: the files.
        listing = sh(["dpkg-deb", "-c", deb]).stdout
        files = {line.split()[-1].lstrip(".") for line in listing.splitlines() if line}
        for f in ("/usr/bin/rocetor", "/usr/bin/rocetor-info", "/etc/rocetor/spine.yaml",
                  "/etc/rocetor/tor-100g.yaml", "/etc/rocetor/tor-100g.cfg",
                  "/etc/rocetor/demo-tor.yaml", "/etc/rocetor/tor-100g.env",
                  "/usr/lib/systemd/system/rocetor@.service",
                  "/usr/libexec/rocetor/rocetor-hugepages",
                  "/usr/share/man/man8/rocetor.8.gz", "/usr/share/doc/rocetor/README.md",
                  "/usr/share/doc/rocetor/copyright",
                  "/usr/share/doc/rocetor/doc/user-guide.md",
                  "/usr/share/doc/rocetor/doc/config.md",
                  "/usr/bin/rocetor-top", "/usr/bin/rocetor-exporter",
                  "/usr/lib/python3/dist-packages/rtrpy/__init__.py",
                  "/usr/lib/python3/dist-packages/rtrpy/telemetry.py"):
            t.check(f in files, "%s not in the package" % f)
        t.check(not any(f.startswith("/usr/local") for f in files), "files under /usr/local")
        t.check(re.search(r"^-rwxr-xr-x root/root .* \./usr/bin/rocetor$", listing, re.M)
                is not None, "rocetor mode and owner")

        # Install it, use it, purge it.
        p = dpkg(["-i", deb])
        t.eq(p.returncode, 0, "(dpkg -i) " + p.stderr[-800:])
        try:
            h = sh(["/usr/bin/rocetor", "-h"], timeout=30)
            t.eq(h.returncode, 0, "(/usr/bin/rocetor -h) " + h.stderr[-300:])
            t.check("--config FILE" in h.stdout + h.stderr, "-h text")
            i = sh(["/usr/bin/rocetor-info", "modes"], timeout=30)
            t.check(i.returncode == 0 and "conweave" in i.stdout,
                    "rocetor-info modes: %s %s" % (i.stdout[-200:], i.stderr[-200:]))
            # The live tools run on the installed rtrpy (Debian's python3
            # finds /usr/lib/python3/dist-packages by itself).
            e = sh(["/usr/bin/rocetor-exporter", "--once", "-s", "/nonexistent/sock"],
                   timeout=60, cwd="/")
            t.eq(e.returncode, 1, "(/usr/bin/rocetor-exporter without rocetor) " + e.stderr[-300:])
            t.check("rocetor_up 0\n" in e.stdout and "Traceback" not in e.stderr,
                    "installed exporter: %r %r" % (e.stdout, e.stderr[-300:]))
            m = sh(["/usr/bin/python3", "-c", "import rtrpy.telemetry as m; print(m.__file__)"],
                   timeout=60, cwd="/")
            t.eq(m.stdout.strip(), "/usr/lib/python3/dist-packages/rtrpy/telemetry.py",
                 "(the installed rtrpy) " + m.stderr[-300:])
            if shutil.which("systemd-analyze"):
                v = sh(["systemd-analyze", "verify",
                        "/usr/lib/systemd/system/rocetor@tor1.service"], timeout=60)
                t.eq(v.returncode, 0, "(verify installed unit) " + v.stderr[-500:])
            prefix = harness.eal_prefix("deb")
            r = sh(["/usr/bin/rocetor", "-l", "0", "--no-pci", "--no-huge", "-m", "1024",
                    "--file-prefix", prefix, "--log-level", "lib.eal:error"] +
                   sum((["--vdev", "net_null%d" % n] for n in range(4)), []) +
                   ["--", "--config", "/etc/rocetor/spine.yaml", "--duration", "0.5"],
                   timeout=60)
            t.eq(r.returncode, 0, "(installed rocetor on the installed spine.yaml) " +
                 r.stderr[-500:])
            t.check("mempool in use after ports closed: 0 of" in r.stdout, r.stdout[-300:])
            if shutil.which("man"):
                m = sh(["man", "-w", "rocetor"])
                t.eq(m.stdout.strip(), "/usr/share/man/man8/rocetor.8.gz", "(man -w rocetor)")
        finally:
            # -r keeps the conffiles (an operator's edits), --purge removes them.
            p = dpkg(["-r", "rocetor"])
            t.eq(p.returncode, 0, "(dpkg -r) " + p.stderr[-500:])
            t.check(not os.path.exists("/usr/bin/rocetor"), "/usr/bin/rocetor left after -r")
            t.check(os.path.isfile("/etc/rocetor/tor-100g.yaml"), "dpkg -r removed a conffile")
            p = dpkg(["--purge", "rocetor"])
            t.eq(p.returncode, 0, "(dpkg --purge) " + p.stderr[-500:])
        for f in ("/usr/bin/rocetor", "/etc/rocetor", "/usr/lib/systemd/system/rocetor@.service",
                  "/usr/share/doc/rocetor", "/usr/libexec/rocetor",
                  "/usr/lib/python3/dist-packages/rtrpy"):
            t.check(not os.path.exists(f), "%s left after purge" % f)
        st = status()
        t.check(st == "" or "not-installed" in st, "dpkg status after purge %r" % st)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
