# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The rocetor authors
"""Rules over rocetor's stats document (the --stats-json file, the
/rocetor/stats telemetry reply; doc/counters.md): every packet received is
forwarded, consumed or dropped, and at exit nothing is held and every mbuf
is back in the pool."""


def rx_total(st):
    """Packets received on all ports."""
    return sum(p["rx_packets"] for p in st["ports"])


def balance_problem(st, rx=None):
    """The accounting hole, as text, or None: rx = forwarded + consumed +
    dropped."""
    rx = rx_total(st) if rx is None else rx
    out = st["forwarded"] + st["consumed"] + st["dropped"]
    if rx != out:
        return "rx %d != forwarded + consumed + dropped %d" % (rx, out)
    return None


def exit_problems(st):
    """What is wrong with a document written at exit, in the words the
    benchmark reports: packets still held, mbufs not back in the pool, an
    accounting hole. Needs only the ports' rx_packets of the document."""
    problems = []
    if st.get("held_packets", 0) != 0:
        problems.append("held_packets %d at exit" % st["held_packets"])
    if st.get("mempool_in_use", 0) != 0:
        problems.append("mempool_in_use %d at exit" % st["mempool_in_use"])
    hole = balance_problem(st)
    if hole:
        problems.append(hole)
    return problems


def accounted(st):
    """(ok, figures as text): rx = forwarded + consumed + dropped, tx -
    originated = forwarded, dropped = the sum of the drops by reason = the
    sum of the ports' drops, nothing held, nothing leaked (mempool_in_use
    0)."""
    rx = rx_total(st)
    fwd_tx = sum(p["tx_packets"] for p in st["ports"]) - st["originated"]
    ok = (balance_problem(st, rx) is None
          and fwd_tx == st["forwarded"]
          and st["dropped"] == sum(st["drops"].values())
          and st["dropped"] == sum(p["drops"] for p in st["ports"])
          and st["held_packets"] == 0 and st["mempool_in_use"] == 0)
    return ok, ("rx %d = forwarded %d + consumed %d + dropped %d; tx-originated %d; held %d; "
                "mempool_in_use %d" % (rx, st["forwarded"], st["consumed"], st["dropped"],
                                       fwd_tx, st["held_packets"], st["mempool_in_use"]))


def mempool_back(output):
    """(ok, the lines that say it) from rocetor's output: at exit, after
    the ports closed, every mbuf is back in the pool ("mempool in use after
    ports closed: 0 of N")."""
    lines = [line for line in output.splitlines() if "mempool in use" in line]
    return "mempool in use after ports closed: 0 of" in output, lines
