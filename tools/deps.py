#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""File-level dependency check of the C code (doc/architecture.md "Layers"):

    tools/deps.py BUILD_DIR [--dot]

Reads the object files meson built (nm: the symbols each one defines and the
ones it uses), links every use to the source file that defines it, and
fails (exit 1) when files call each other in a circle (a strongly connected
component of more than one file), naming the files and one symbol each way.
A file that includes another's header ("rtr_x.h" of rtr_x.c) depends on
it too, so that a header-level circle counts as one (a.c includes b.h, b.c
calls a.c). Test programs, fuzz drivers and tools are left out: they use the libraries,
nothing uses them. --dot prints the graph for graphviz.

Two source checks of the forwarding step (doc/architecture.md "The packet's
walk"), which inline functions hide from nm: outside lib/lb, no C file calls
an LB fast-path hook itself (they go through lib/lb/rtr_lb_worker.h); and the
three forwarders (the pipeline, the simulator, the LB fuzzer) run the step of
lib/fwd/rtr_fwd.h and none has its own pick, control-packet, out-hook or TTL
code.
"""
import os
import re
import subprocess
import sys


def objects(build, src_root):
    """(source path relative to src_root, object path) of every library and
    app object. Meson names an object after its source's path relative to
    the folder of the meson.build that builds it, '/' flattened to '_'
    (lib/lb/conweave/rtr_conweave.c of lib/lb/meson.build is
    conweave_rtr_conweave.c.o): undo that by looking for the source."""
    for root, _dirs, files in os.walk(build):
        for f in files:
            if not f.endswith(".c.o") or ".p" not in root:
                continue
            rel = os.path.relpath(root, build).split(".p")[0].rsplit("/", 1)[0]
            flat = f[:-2]
            src = None
            base = os.path.join(src_root, rel)
            for sroot, dirs, sfiles in os.walk(base):
                dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
                for sf in sfiles:
                    cand = os.path.relpath(os.path.join(sroot, sf), base)
                    if cand.replace("/", "_") == flat:
                        src = os.path.join(rel, cand)
                        break
                if src:
                    break
            if src is None:
                continue
            name = os.path.basename(src)
            if name.startswith(("test_", "fuzz_", "bench_")) or name in ("replay.c", "info.c"):
                continue
            if src.startswith(("tools/", "fuzz/", "tests/")):
                continue
            yield src, os.path.join(root, f)


def symbols(obj):
    out = subprocess.run(["nm", "--defined-only", "-g", obj], capture_output=True,
                         text=True, check=True).stdout
    defined = {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    out = subprocess.run(["nm", "-u", obj], capture_output=True, text=True,
                         check=True).stdout
    used = {l.split()[-1] for l in out.splitlines() if l.strip()}
    return defined, used


def sccs(graph):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


HOOK_CALL = re.compile(r"->(pick|prefetch|deliver|post_route|queued|depart|control_rx|"
                       r"tick|flush|held)\(")
FORWARDERS = ["pipelines/rtr_pipeline.c", "tools/sim/sim_net.c", "fuzz/fuzz_lb.c"]
STEP_PARTS = re.compile(r"\b(rtr_lb_pick|rtr_lb_ctrl_rx|rtr_lb_out|rtr_lb_queued|"
                        r"rtr_ipv4_dec_ttl|rtr_nh_mac_store8)\(|hop_limits--")


def step_findings(src_root):
    """Where the forwarding step is not the one of lib/fwd (see the top)."""
    found = []
    for top in ("app", "pipelines", "lib", "tools", "fuzz"):
        for root, dirs, files in os.walk(os.path.join(src_root, top)):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            rel_root = os.path.relpath(root, src_root)
            if rel_root == "lib/lb" or rel_root.startswith("lib/lb/"):
                continue
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(rel_root, f)
                with open(os.path.join(src_root, path)) as fh:
                    for n, line in enumerate(fh, 1):
                        if HOOK_CALL.search(line) and not re.search(r"\bio->|\bio\.", line):
                            found.append("%s:%d calls an LB hook directly: %s"
                                         % (path, n, line.strip()))
    for path in FORWARDERS:
        with open(os.path.join(src_root, path)) as fh:
            text = fh.read()
        if "rtr_fwd_" not in text:
            found.append("%s does not run the forwarding step (rtr_fwd_*)" % path)
        for m in STEP_PARTS.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append("%s:%d has its own forwarding code: %s (lib/fwd/rtr_fwd.h has it)"
                         % (path, line, m.group(0)))
    return found


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    build = argv[1]
    src_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = {}
    for src, obj in objects(build, src_root):
        files[src] = symbols(obj)
    paths = {}
    for root, dirs, fs in os.walk(src_root):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for f in fs:
            if f.endswith((".c", ".h")):
                paths.setdefault(f, os.path.join(root, f))
    owner = {}
    for f, (defined, _used) in files.items():
        for s in defined:
            owner.setdefault(s, f)
    graph, why = {}, {}
    for f, (_defined, used) in files.items():
        for s in used:
            g = owner.get(s)
            if g is not None and g != f:
                graph.setdefault(f, set()).add(g)
                why.setdefault((f, g), s)
        graph.setdefault(f, set())
        # Include edges: "rtr_x.h" -> the file implementing it (rtr_x.c).
        try:
            text = open(os.path.join(src_root, f)).read()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.strip()
            if not line.startswith("#include \""):
                continue
            h = line.split('"')[1]
            impl = [g for g in files if os.path.basename(g) == h[:-2] + ".c"]
            for g in impl:
                if g != f:
                    graph[f].add(g)
                    why.setdefault((f, g), "#include " + h)
    if "--dot" in argv:
        print("digraph deps {")
        for f in sorted(graph):
            for g in sorted(graph[f]):
                print('  "%s" -> "%s";' % (f, g))
        print("}")
    bad = [c for c in sccs(graph) if len(c) > 1]
    for c in bad:
        members = set(c)
        edges = ["%s -> %s (%s)" % (f, g, why[(f, g)]) for f in sorted(c)
                 for g in sorted(graph[f]) if g in members]
        print("deps: files call each other: " + "; ".join(edges))
    step = step_findings(src_root)
    for f in step:
        print("deps: " + f)
    print("deps: the forwarding step: %d forwarders on lib/fwd, %d finding%s"
          % (len(FORWARDERS), len(step), "" if len(step) == 1 else "s"))
    print("deps: %d files, %d dependencies, %d circle%s" % (
        len(graph), sum(len(v) for v in graph.values()), len(bad), "" if len(bad) == 1 else "s"))
    return 1 if bad or step else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
