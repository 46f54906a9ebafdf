#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""meson install and the service (doc/user-guide.md "Install and run as a
service"):

1. `meson install --destdir` of this build: the binaries, every example
   config under SYSCONFDIR/rocetor, the man page, the unit template, the
   hugepage helper, README and every doc/*.md under share/doc/rocetor; the
   unit's paths are this build's prefix, bindir and sysconfdir.
2. The man page lists exactly the options `rocetor -h` prints, with the
   same argument names, and every LB mode -h names (they cannot drift); its
   version is the project's and groff renders it without a warning.
3. `systemd-analyze verify` of the installed unit, its paths pointed into
   the DESTDIR (with the installed man page for Documentation=).
4. The unit's ExecStart, expanded as systemd does (%i, $VAR, ${VAR}) with
   an instance environment, runs the installed rocetor on net_null ports;
   SIGTERM stops it with exit 0 and "mempool in use after ports closed: 0".
5. The hugepage helper on a copy of sysfs: reserves, never lowers, 0 does
   nothing, mounts hugetlbfs only when none is mounted, rejects bad counts.
6. rtrpy is installed as a Python 3 package (every module of tools/rtrpy);
   the installed rocetor-top and rocetor-exporter name its directory and
   run on it (not on the source tree's) without a rocetor.
Skips (exit 77, "skipped: ...") only what a missing tool prevents."""
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pkt"))
import harness  # noqa: E402

SRC = harness.SRC_ROOT
BUILD = os.environ.get("ROCETOR_BUILD") or os.path.join(SRC, "build")


def sh_out(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def build_dirs():
    """prefix, bindir, sysconfdir, libexecdir, datadir, mandir of this build
    (absolute), and the unit dir option."""
    out = subprocess.run(["meson", "introspect", "--buildoptions", BUILD], capture_output=True,
                         text=True, check=True).stdout
    opts = {o["name"]: o["value"] for o in json.loads(out)}
    prefix = opts["prefix"]
    d = {k: os.path.join(prefix, opts[k]) for k in
         ("bindir", "sysconfdir", "libexecdir", "datadir", "mandir")}
    d["prefix"] = prefix
    d["sim"] = bool(opts.get("sim", False))
    d["unitdir"] = opts.get("systemd_unit_dir") or os.path.join(prefix, "lib", "systemd",
                                                                 "system")
    return d


def check_file_list(t, dest, d):
    def at(p):
        return dest + p

    for b in ("rocetor", "rocetor-info"):
        p = at(os.path.join(d["bindir"], b))
        t.check(os.path.isfile(p) and os.access(p, os.X_OK), "binary %s" % p)
    etc = at(os.path.join(d["sysconfdir"], "rocetor"))
    confs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SRC, "conf", "*.*")))
    t.check(len(confs) >= 9, "conf/ examples: %r" % confs)
    for c in confs:
        t.check(os.path.isfile(os.path.join(etc, c)), "config %s/%s" % (etc, c))
        # Byte for byte the example.
        if os.path.isfile(os.path.join(etc, c)):
            with open(os.path.join(etc, c), "rb") as a, \
                    open(os.path.join(SRC, "conf", c), "rb") as b:
                t.check(a.read() == b.read(), "%s differs from conf/%s" % (c, c))
    man = at(os.path.join(d["mandir"], "man8", "rocetor.8"))
    t.check(os.path.isfile(man), "man page %s" % man)
    unit = at(os.path.join(d["unitdir"], "rocetor@.service"))
    t.check(os.path.isfile(unit), "unit %s" % unit)
    helper = at(os.path.join(d["libexecdir"], "rocetor", "rocetor-hugepages"))
    t.check(os.path.isfile(helper) and os.access(helper, os.X_OK), "helper %s" % helper)
    docdir = at(os.path.join(d["datadir"], "doc", "rocetor"))
    t.check(os.path.isfile(os.path.join(docdir, "README.md")), "README in %s" % docdir)
    mds = [os.path.basename(p) for p in glob.glob(os.path.join(SRC, "doc", "*.md"))]
    t.check("user-guide.md" in mds and "config.md" in mds, "doc/*.md: %r" % mds)
    for m in mds:
        t.check(os.path.isfile(os.path.join(docdir, "doc", m)), "doc %s" % m)
    t.check(not os.path.exists(os.path.join(docdir, "doc", "rocetor.8")),
            "the man source is not a doc")
    # The simulator with the switch unless -Dsim=false (doc/simulator.md);
    # nothing from the tests or the build tree.
    sim = at(os.path.join(d["bindir"], "rocetor-sim"))
    if d["sim"]:
        t.check(os.path.isfile(sim) and os.access(sim, os.X_OK), "binary %s" % sim)
    for root, _dirs, files in os.walk(dest):
        for f in files:
            t.check(not f.startswith(("test_", "fuzz_", "bench_")) and
                    (f != "rocetor-sim" or d["sim"]),
                    "installed %s" % os.path.join(root, f))
    return unit, man, helper


# Runs an installed Python tool with the installed rtrpy's directory first
# on the path (the DESTDIR stands for the prefix), then names the rtrpy it
# imported.
WRAP = r"""
import runpy, sys
tool, site = sys.argv[1], sys.argv[2]
sys.path.insert(0, site)
sys.argv = [tool] + sys.argv[3:]
try:
    runpy.run_path(tool, run_name="__main__")
    rc = 0
except SystemExit as e:
    rc = e.code if isinstance(e.code, int) else 1
import rtrpy
sys.stderr.write("\nrtrpy from %s\n" % rtrpy.__file__)
sys.exit(rc)
"""


def check_python_tools(t, dest, d):
    """rtrpy installed as a Python 3 package (every module of tools/rtrpy),
    rocetor-top and rocetor-exporter beside rocetor, told where it is, and
    both run on the installed rtrpy, not the source tree's."""
    installed = json.loads(sh_out(["meson", "introspect", "--installed", BUILD]))
    pydir = None
    for src, to in installed.items():
        if src.endswith(os.path.join("tools", "rtrpy", "__init__.py")):
            pydir = os.path.dirname(os.path.dirname(to))
    t.check(pydir is not None and "python3" in pydir, "rtrpy's install dir: %r" % pydir)
    if pydir is None:
        return
    tree = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SRC, "tools", "rtrpy",
                                                                       "*.py")))
    got = sorted(os.listdir(dest + os.path.join(pydir, "rtrpy")))
    t.eq(got, tree, "installed rtrpy modules")
    site = dest + pydir
    for tool, args, want in (("rocetor-exporter", ["--once", "-s", "/nonexistent/sock"],
                              "rocetor_up 0\n"),
                             ("rocetor-top", ["--once", "-s", "/nonexistent/sock"], "")):
        path = dest + os.path.join(d["bindir"], tool)
        t.check(os.path.isfile(path) and os.access(path, os.X_OK), "%s installed" % path)
        with open(path) as f:
            text = f.read()
        t.check('RTRPY_DIR = "%s"' % pydir in text.replace(pydir + "/", pydir),
                "%s does not name %s" % (tool, pydir))
        p = subprocess.run(["/usr/bin/python3", "-c", WRAP, path, site] + args, cwd="/",
                           capture_output=True, text=True, timeout=60)
        t.eq(p.returncode, 1, "%s without rocetor: %s" % (tool, p.stderr[-500:]))
        t.check(want in p.stdout and "Traceback" not in p.stderr and
                ("%s: /nonexistent/sock" % tool) in p.stderr, "%s: %r %r" % (tool, p.stdout,
                                                                        p.stderr[-500:]))
        t.check(("rtrpy from %s/rtrpy/__init__.py" % site) in p.stderr,
                "%s did not use the installed rtrpy: %s" % (tool, p.stderr[-300:]))


def check_unit_text(t, unit, d):
    with open(unit) as f:
        text = f.read()
    t.check("@" not in re.sub(r"rocetor@|%i", "", text.split("[Unit]", 1)[1]),
            "unsubstituted @VAR@ in the unit")
    es = re.search(r"^ExecStart=(.*)$", text, re.M)
    t.check(es is not None and es.group(1).startswith(os.path.join(d["bindir"], "rocetor") + " "),
            "ExecStart runs %s/rocetor" % d["bindir"])
    t.check("ROCETOR_CONFIG=%s/rocetor/%%i.yaml" % d["sysconfdir"] in text,
            "config path %s/rocetor/%%i.yaml" % d["sysconfdir"])
    t.check("EnvironmentFile=-%s/rocetor/%%i.env" % d["sysconfdir"] in text, "env file")
    t.check(re.search(r"^ExecStartPre=%s/rocetor/rocetor-hugepages$" % re.escape(d["libexecdir"]),
                      text, re.M) is not None, "ExecStartPre helper")
    for line in ("Restart=on-failure", "RestartPreventExitStatus=2", "KillSignal=SIGTERM",
                 "StandardOutput=journal", "StandardError=journal"):
        t.check(re.search("^%s$" % line, text, re.M) is not None, "unit: %s" % line)
    return text


def help_options():
    """{option: argument or None} from rocetor -h (the part after the EAL's
    usage), and the LB modes it names."""
    p = subprocess.run([harness.ROCETOR, "-h"], capture_output=True, text=True, timeout=30)
    out = (p.stdout + p.stderr).split("rocetor options", 1)[-1]
    opts = {}
    for m in re.finditer(r"^  (?:-h, )?--([a-z][a-z-]*)(?: ([A-Z]+))?\s", out, re.M):
        opts[m.group(1)] = m.group(2)
    modes = re.search(r"--lb MODE .*: ([a-z| ]+)$", out, re.M)
    return p.returncode, opts, modes.group(1).split(" | ") if modes else []


def man_options(man):
    """{option: argument or None} of the man page's OPTIONS section."""
    with open(man) as f:
        text = f.read()
    sect = text.split(".SH OPTIONS", 1)[1].split("\n.SH ", 1)[0]
    opts = {}
    for m in re.finditer(r"^\.TP\n\.(?:BI|BR|B) (.*)$", sect, re.M):
        line = m.group(1).replace("\\-", "-")
        for o in re.finditer(r"--([a-z][a-z-]*)", line):
            arg = re.search(r'" ([A-Z]+)"', line)
            opts[o.group(1)] = arg.group(1) if arg else None
    return opts, text.replace("\\-", "-")


def expand_exec(line, instance, env):
    """An Exec line as systemd runs it: %i, then $VAR split into words,
    ${VAR} as one word."""
    words = []
    for w in shlex.split(line.replace("%i", instance)):
        m = re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", w)
        if m:
            words += env.get(m.group(1), "").split()
            continue
        words.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda x: env.get(x.group(1), ""),
                            w))
    return words


def unit_env(text, instance, envfile_text):
    """The environment systemd gives the service: Environment= lines, then
    the EnvironmentFile."""
    env = {}
    for m in re.finditer(r"^Environment=(.*)$", text, re.M):
        for kv in shlex.split(m.group(1).replace("%i", instance)):
            k, v = kv.split("=", 1)
            env[k] = v
    for line in envfile_text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = shlex.split(v)[0] if v else ""
    return env


def run_unit_and_sigterm(t, text, dest, d):
    """ExecStart of the unit with an instance environment, net_null ports,
    the installed spine example; SIGTERM once it forwards."""
    instance = "t%d" % os.getpid()
    etc = dest + os.path.join(d["sysconfdir"], "rocetor")
    envfile = ('ROCETOR_EAL="-l 0 --no-pci --no-huge -m 1024 --log-level lib.eal:error '
               '--vdev net_null0 --vdev net_null1 --vdev net_null2 --vdev net_null3"\n'
               'ROCETOR_ARGS="--stats-interval 0.5"\n'
               "ROCETOR_CONFIG=%s/spine.yaml\n" % etc)
    env = unit_env(text, instance, envfile)
    line = re.search(r"^ExecStart=(.*)$", text, re.M).group(1)
    cmd = expand_exec(line, instance, env)
    cmd[0] = dest + cmd[0]
    t.check("--file-prefix=rocetor-%s" % instance in cmd and "--config" in cmd and
            cmd[cmd.index("--config") + 1] == os.path.join(etc, "spine.yaml"),
            "expanded ExecStart: %r" % cmd)
    work = tempfile.mkdtemp(prefix="rocetor-svc-")
    outp, errp = os.path.join(work, "out"), os.path.join(work, "err")
    with open(outp, "w") as so, open(errp, "w") as se:
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, stdin=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        running = False
        while time.time() < deadline and proc.poll() is None:
            with open(outp) as f:
                out = f.read()
            # The summary, then a --stats-interval document: forwarding.
            if "rocetor: switch spine1" in out and '"uptime_s"' in out:
                running = True
                break
            time.sleep(0.2)
        t.check(running, "the unit's command did not start: %s" % open(errp).read()[-500:])
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        harness.dpdk.drop_runtime_dir("rocetor-%s" % instance)
    with open(outp) as f:
        out = f.read()
    t.eq(rc, 0, "(exit status after SIGTERM) " + open(errp).read()[-300:])
    t.check("rocetor: stopping (SIGTERM)" in out, "stop reason: " + out[-300:])
    t.check(re.search(r"^rocetor: mempool in use after ports closed: 0 of \d+$", out, re.M)
            is not None, "mempool line: " + out[-300:])
    shutil.rmtree(work, ignore_errors=True)


def check_hugepages(t, helper):
    work = tempfile.mkdtemp(prefix="rocetor-huge-")
    nrdir = os.path.join(work, "sys", "kernel", "mm", "hugepages", "hugepages-2048kB")
    os.makedirs(nrdir)
    nr = os.path.join(nrdir, "nr_hugepages")
    mounts = os.path.join(work, "mounts")
    fakebin = os.path.join(work, "bin")
    os.makedirs(fakebin)
    # A mount(8) that records its arguments instead of mounting.
    with open(os.path.join(fakebin, "mount"), "w") as f:
        f.write('#!/bin/sh\necho "$@" >> %s/mount.log\n' % work)
    os.chmod(os.path.join(fakebin, "mount"), 0o755)
    env = dict(os.environ, ROCETOR_SYSFS=os.path.join(work, "sys"), ROCETOR_MOUNTS=mounts,
               ROCETOR_HUGE_MNT=os.path.join(work, "huge"),
               PATH=fakebin + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
    env.pop("ROCETOR_HUGEPAGES", None)

    def run(*args, pages_env=None):
        e = dict(env)
        if pages_env is not None:
            e["ROCETOR_HUGEPAGES"] = pages_env
        return subprocess.run([helper] + list(args), capture_output=True, text=True, env=e,
                              timeout=30)

    def nr_now():
        with open(nr) as f:
            return int(f.read())

    def mount_log():
        p = os.path.join(work, "mount.log")
        return open(p).read().splitlines() if os.path.exists(p) else []

    with open(nr, "w") as f:
        f.write("0\n")
    with open(mounts, "w") as f:
        f.write("proc /proc proc rw 0 0\n")
    p = run("16")
    t.eq(p.returncode, 0, "(reserve 16) " + p.stderr)
    t.eq(nr_now(), 16, "(pages after reserving 16)")
    t.eq(mount_log(), ["-t hugetlbfs -o pagesize=2M nodev %s" % os.path.join(work, "huge")],
         "(mounted when none was)")
    t.check(os.path.isdir(os.path.join(work, "huge")), "mount point made")
    with open(mounts, "a") as f:
        f.write("nodev %s hugetlbfs rw,pagesize=2M 0 0\n" % os.path.join(work, "huge"))
    p = run("8")
    t.eq(p.returncode, 0, "(fewer asked) " + p.stderr)
    t.eq(nr_now(), 16, "(never lowered)")
    t.check("already reserved" in p.stdout, p.stdout)
    t.eq(len(mount_log()), 1, "(no second mount)")
    p = run(pages_env="32")
    t.eq(p.returncode, 0, "(from ROCETOR_HUGEPAGES) " + p.stderr)
    t.eq(nr_now(), 32, "(ROCETOR_HUGEPAGES=32)")
    p = run()
    t.eq(p.returncode, 0, "(default) " + p.stderr)
    t.eq(nr_now(), 1024, "(default 1024 pages)")
    p = run("0")
    t.eq((p.returncode, nr_now()), (0, 1024), "(0 leaves them)")
    p = run("lots")
    t.eq(p.returncode, 2, "(bad count) " + p.stderr)
    t.check('got "lots"' in p.stderr, p.stderr)
    os.unlink(nr)
    p = run("16")
    t.eq(p.returncode, 1, "(no 2 MiB support) " + p.stderr)
    shutil.rmtree(work, ignore_errors=True)


def main():
    t = harness.Checker("install")
    for tool in ("meson",):
        if shutil.which(tool) is None:
            print("install: skipped: %s not found" % tool)
            return 77
    d = build_dirs()
    dest = tempfile.mkdtemp(prefix="rocetor-destdir-")
    try:
        p = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest, "--no-rebuild",
                            "--quiet"], capture_output=True, text=True, timeout=120)
        t.eq(p.returncode, 0, "(meson install) " + p.stderr[-500:])
        unit, man, helper = check_file_list(t, dest, d)
        check_python_tools(t, dest, d)
        text = check_unit_text(t, unit, d)

        rc, hopts, modes = help_options()
        t.eq(rc, 0, "(rocetor -h)")
        mopts, mtext = man_options(man)
        t.check(len(hopts) >= 10, "options in -h: %r" % hopts)
        for o in sorted(set(hopts) | set(mopts)):
            if o not in mopts:
                t.check(False, "--%s is in rocetor -h, not in the man page" % o)
            elif o not in hopts:
                t.check(False, "--%s is in the man page, not in rocetor -h" % o)
            else:
                t.eq(mopts[o], hopts[o], "(--%s's argument: man page vs -h)" % o)
        t.check(len(modes) >= 5, "LB modes in -h: %r" % modes)
        for mode in modes:
            t.check(re.search(r"^\.BR? %s\b" % mode, mtext, re.M) is not None,
                    "LB mode %s missing from the man page" % mode)

        # The man page's version is the project's; groff has no complaint.
        info = json.loads(sh_out(["meson", "introspect", "--projectinfo", BUILD]))
        t.check(re.search(r'^\.TH ROCETOR 8 "[^"]*" "rocetor %s"' % re.escape(info["version"]),
                          mtext, re.M) is not None, "man page .TH version != %s" % info["version"])
        if shutil.which("groff"):
            g = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", man],
                               capture_output=True, text=True, timeout=30)
            t.check(g.returncode == 0 and g.stderr.strip() == "", "groff: " + g.stderr[-300:])

        sa = shutil.which("systemd-analyze")
        if sa is None:
            print("install: skipped: systemd-analyze not found (unit not verified)")
        else:
            units = tempfile.mkdtemp(prefix="rocetor-unit-")
            with open(os.path.join(units, "rocetor@.service"), "w") as f:
                f.write(text.replace(d["prefix"] + "/", dest + d["prefix"] + "/")
                        if not d["prefix"] == "/" else text)
            env = dict(os.environ, MANPATH=dest + d["mandir"])
            p = subprocess.run([sa, "verify", os.path.join(units, "rocetor@tor1.service")],
                               capture_output=True, text=True, env=env, timeout=60)
            t.eq(p.returncode, 0, "(systemd-analyze verify) " + p.stderr[-800:])
            t.check("rocetor" not in p.stderr, "verify warnings: " + p.stderr[-800:])
            # And it does fail on a broken unit: a helper path that is not there.
            with open(os.path.join(units, "rocetor@.service"), "w") as f:
                f.write(text.replace(d["prefix"] + "/", dest + d["prefix"] + "/")
                        .replace("rocetor-hugepages", "rocetor-hugepages-nope"))
            p = subprocess.run([sa, "verify", os.path.join(units, "rocetor@tor1.service")],
                               capture_output=True, text=True, env=env, timeout=60)
            t.check(p.returncode != 0 and "rocetor-hugepages-nope" in p.stderr,
                    "verify accepted a missing ExecStartPre: %s" % p.stderr[-300:])
            shutil.rmtree(units, ignore_errors=True)

        run_unit_and_sigterm(t, text, dest, d)
        check_hugepages(t, helper)
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
