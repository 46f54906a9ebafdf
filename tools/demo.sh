#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The no-hardware demo (README command 1): install what is missing, build,
# then run ConWeave end to end through two rocetor ToRs on net_pcap ports,
# one after the other:
#   stage 1, SrcToR (conf/demo-tor.yaml): the host port replays the real RNIC
#     capture (shared/data/roce-rc-send-real.pcap) followed by generated
#     RoCEv2 flows (tools/rocegen.py); RoCE data packets leave the 4 uplinks
#     stamped with ConWeave fields (path, epoch, phase, RTT_REQUEST, TAIL).
#   stage 2, DstToR (conf/demo-dsttor.yaml): fabric port 1 receives every
#     uplink frame of stage 1, merged in TX-timestamp order (one spine), and
#     the host port delivers them, header removed and reordered.
# Prints both switches' counters and the non-zero ConWeave counters, checks
# with tools/rocecheck.py (scapy) that every frame delivered to the DstToR's
# host has a valid ICRC, that every frame was delivered, and that each queue
# pair's packets arrive in the order its host sent them. Exits 1 if a check
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh >/dev/null
OUT=${DEMO_OUT:-out/demo}
SHARED=${ROCETOR_SHARED:-$(cd .. && pwd)/shared}
rm -rf "$OUT"
mkdir -p "$OUT"
PY=/usr/bin/python3
T0=$(date +%s.%N)
EAL="-l 0 --no-huge -m 1024 --no-pci --log-level lib.eal:error"

echo "demo: generating 64 RoCEv2 flows (RC SEND and WRITE) from the host to 10.2.0.0/24"
$PY tools/rocegen.py -o "$OUT/gen-send.pcap" --flows 32 --messages 4 --op send --size 4096 \
	--src-net 10.1.0.0/24 --dst-net 10.2.0.0/24 --dst-mac 02:00:00:00:01:00 --seed 7
$PY tools/rocegen.py -o "$OUT/gen-write.pcap" --flows 32 --messages 4 --op write --size 8192 \
	--src-net 10.1.0.0/24 --dst-net 10.2.0.0/24 --dst-mac 02:00:00:00:01:00 --seed 8
$PY - "$SHARED/data/roce-rc-send-real.pcap" "$OUT/gen-send.pcap" "$OUT/gen-write.pcap" \
	"$OUT/host-in.pcap" "$OUT/empty.pcap" <<'PY'
import sys
sys.path.insert(0, "tools")
import rocegen
frames = [f for name in sys.argv[1:4] for f in rocegen.read_pcap(name)]
rocegen.write_pcap(sys.argv[4], frames)
rocegen.write_pcap(sys.argv[5], [])
print("demo: SrcToR host port input: %d frames (%s + generated)" % (len(frames), sys.argv[1]))
PY

# One switch on 5 pcap ports: run_stage TAG NAME CONFIG PORT0_RX PORT1_RX
# (ports 2-4 receive nothing); outputs $OUT/TAG-port<p>-out.pcap and
# $OUT/TAG-stats.json.
run_stage() {
	local tag=$1 name=$2 cfg=$3 vdevs="" p rx
	for p in 0 1 2 3 4; do
		rx=$OUT/empty.pcap
		[ "$p" = 0 ] && rx=$4
		[ "$p" = 1 ] && rx=$5
		vdevs="$vdevs --vdev net_pcap$p,rx_pcap=$rx,tx_pcap=$OUT/$tag-port$p-out.pcap"
	done
	echo "demo: $name: build/app/rocetor $EAL$vdevs -- --config $cfg --exit-on-idle 500 --stats-json $OUT/$tag-stats.json"
	# shellcheck disable=SC2086
	build/app/rocetor $EAL --file-prefix "rtr_demo_${tag}_$$" $vdevs \
		-- --config "$cfg" --exit-on-idle 500 --stats-json "$OUT/$tag-stats.json" \
		2>&1 | grep -v "USER1: port . is up"
}

# ---- stage 1: the SrcToR
run_stage src "stage 1, SrcToR" conf/demo-tor.yaml "$OUT/host-in.pcap" "$OUT/empty.pcap"

# ---- the spine: the four uplinks merged in TX-timestamp order
$PY - "$OUT" "${DEMO_SKEW_US:-0}" <<'PY'
import sys
sys.path.insert(0, "tools")
import rocegen
out, skew = sys.argv[1], float(sys.argv[2])
frames = []
for p in range(1, 5):
    # DEMO_SKEW_US=N: uplink p's path is (p - 1) x N us slower (default 0).
    frames += [(ts + (p - 1) * skew * 1e-6, p, i, f) for i, (ts, f) in
               enumerate(rocegen.read_pcap("%s/src-port%d-out.pcap" % (out, p), with_ts=True))]
frames.sort(key=lambda x: x[:3])
dst_mac = rocegen.mac_bytes("02:00:00:00:02:01")      # the DstToR's port 1
rocegen.write_pcap(out + "/dst-in.pcap", [dst_mac + f[6:] for _, _, _, f in frames])
print("demo: DstToR fabric port 1 input: %d frames, the SrcToR's 4 uplinks merged in "
      "TX-timestamp order%s" % (len(frames), ", uplink p delayed by (p - 1) x %g us" % skew
                                 if skew else ""))
PY

# ---- stage 2: the DstToR
run_stage dst "stage 2, DstToR" conf/demo-dsttor.yaml "$OUT/empty.pcap" "$OUT/dst-in.pcap"

# ---- report and checks
$PY - "$OUT" "$T0" <<'PY'
import json, struct, subprocess, sys, time
sys.path.insert(0, "tools")
import rocegen
out, t0 = sys.argv[1], float(sys.argv[2])
CW = ["rtt_requests", "tails", "reply_timeouts", "reroutes", "idle_moves", "cw_packets",
      "ecmp_packets", "rtt_requests_rx", "tails_rx", "reorder_held", "reorder_flush_tail",
      "reorder_flush_timeout", "reorder_overflow", "reorder_queues_max", "reorder_hold_max_ns",
      "epoch_overrun", "late_epoch_packets", "rtt_replies", "clears", "notifies",
      "ctrl_no_flow", "lb_bypass_resv7", "flow_table_full"]
fails = []


def check(ok, what):
    print("  [%s] %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        fails.append(what)


def switch(tag, name):
    s = json.load(open("%s/%s-stats.json" % (out, tag)))
    print("\n%s: switch %s (%s), lb %s, %.2f s" % (name, s["switch"],
          "conf/demo-tor.yaml" if tag == "src" else "conf/demo-dsttor.yaml",
          s["lb_mode"], s["uptime_s"]))
    print("%-5s %-7s %10s %10s %12s %12s %7s" % ("port", "role", "rx_pkts", "tx_pkts",
                                               "rx_bytes", "tx_bytes", "drops"))
    for p in s["ports"]:
        print("%-5d %-7s %10d %10d %12d %12d %7d" % (p["port"], p["role"], p["rx_packets"],
              p["tx_packets"], p["rx_bytes"], p["tx_bytes"], p["drops"]))
    for g in s["paths"]:
        print("group %s: tx per path %s (ports %s)" % (g["prefix"], g["tx_packets"], g["ports"]))
    print("forwarded %d, consumed %d, dropped %d %s, originated %d, held %d"
          % (s["forwarded"], s["consumed"], s["dropped"],
             {k: v for k, v in s["drops"].items() if v}, s["originated"], s["held_packets"]))
    lb = s["lb"]
    nz = ["%s %d" % (k, lb[k]) for k in CW if lb.get(k)]
    nz += ["%s %d" % (k, v) for k, v in lb.items() if v and k not in CW]
    print("conweave (non-zero): " + ", ".join(nz))
    return s


def rocecheck(path, full=False):
    r = subprocess.run(["/usr/bin/python3", "tools/rocecheck.py"] + ([] if full else ["--summary"])
                       + [path], capture_output=True, text=True)
    try:
        d = json.loads(r.stdout)
    except ValueError:
        print("rocecheck %s: %s" % (path, (r.stdout + r.stderr)[-300:]))
        return None
    return d


def qp_order(frames):
    """PSNs per queue pair (IPv4 src, dst, UDP sport, dest QP) and stream, in
    frame order. A QP's requests, its responses (ACK/NAK, read responses)
    and CNPs are separate streams: ConWeave keeps the requests in order, the
    others go by ECMP (ALGORITHMS.md 2.2) and may pass the requests."""
    seq = {}
    for f in frames:
        off, et = rocegen.l3_offset(f)
        if et != 0x0800 or f[off + 9] != 17:
            continue
        l4 = off + (f[off] & 15) * 4
        if struct.unpack_from("!H", f, l4 + 2)[0] != 4791:
            continue
        b = l4 + 8
        op = f[b]
        kind = "resp" if 13 <= op <= 18 else "cnp" if op == 0x81 else "req"
        key = (f[off + 12:off + 16], f[off + 16:off + 20], f[l4:l4 + 2], f[b + 5:b + 8], kind)
        seq.setdefault(key, []).append(int.from_bytes(f[b + 9:b + 12], "big"))
    return seq


src = switch("src", "stage 1, SrcToR")
fed = rocegen.read_pcap(out + "/dst-in.pcap")
up = rocecheck(out + "/dst-in.pcap")
if up:
    up = up.get("summary", up)
    print("uplinks -> DstToR: %s/dst-in.pcap: %d frames, %d RoCE, %d with an ICRC that does "
          "not check: expected between the ToRs, the SrcToR inserts a 4-byte ConWeave header "
          "after the BTH and leaves the ICRC and IP length as they were (ALGORITHMS.md 2.1)"
          % (out, up["packets"], up["roce"], up["icrc_bad"]))
dst = switch("dst", "stage 2, DstToR")
ctrl = sum(len(rocegen.read_pcap("%s/dst-port%d-out.pcap" % (out, p))) for p in range(1, 5))
print("DstToR uplink output: %d ConWeave control packets toward the generated flows' SrcToR "
      "(RTT_REPLY, CLEAR, NOTIFY: no payload, no ICRC); %d for the capture's flow consumed "
      "(its sender .6 is behind this demo's DstToR too)" % (ctrl, dst["lb"]["ctrl_no_flow"]))

print("\nchecks:")
got = rocegen.read_pcap(out + "/dst-port0-out.pcap")
host = rocecheck(out + "/dst-port0-out.pcap", full=True)
if host is None:
    check(False, "rocecheck of the DstToR's host output")
else:
    s = host["summary"]
    check(s["roce"] > 0 and s["icrc_bad"] == 0,
          "DstToR host port: %s/dst-port0-out.pcap: %d frames, %d RoCE, %d bad ICRC "
          "(rocecheck, scapy)" % (out, s["packets"], s["roce"], s["icrc_bad"]))
    check(all(f.get("bth", {}).get("resv7", 0) == 0 and f.get("bth", {}).get("byte4", 0) == 0
              for f in host["frames"]), "no ConWeave field left on a delivered frame")
check(len(got) == len(fed), "every frame the SrcToR sent up was delivered to a host: %d of %d"
      % (len(got), len(fed)))
sent = qp_order(rocegen.read_pcap(out + "/host-in.pcap"))
recv = qp_order(got)
late = sum(1 for k, v in qp_order(fed).items() if sent.get(k) != v)
print("  (%d queue-pair streams reached the DstToR out of order, %d packets held for reordering%s)"
      % (late, dst["lb"]["reorder_held"], "" if late else "; DEMO_SKEW_US=20 makes the four "
         "paths unequal so that rerouted packets overtake their TAIL"))
same = sum(1 for k, v in sent.items() if recv.get(k) == v)
check(same == len(sent), "%d of %d queue-pair streams (requests; ACKs and responses; CNPs) "
      "delivered complete and in the order their host sent them, the capture's included"
      % (same, len(sent)))
check(dst["lb"]["tails_rx"] == src["lb"]["tails"] and
      dst["lb"]["rtt_requests_rx"] == src["lb"]["rtt_requests"],
      "the DstToR saw every TAIL (%d) and RTT_REQUEST (%d) the SrcToR sent"
      % (src["lb"]["tails"], src["lb"]["rtt_requests"]))
drops = {k: v for k, v in src["drops"].items() if v}
check(drops == {"no_route": 2}, "the SrcToR dropped only the capture's 2 IPv6 multicast frames "
      "(no_route): %s" % drops)
drops = {k: v for k, v in dst["drops"].items() if v}
check(not drops, "the DstToR dropped nothing: %s" % (drops or "none"))
print("\ndemo: %s in %.1f s; outputs in %s/ (src-port*-out.pcap, dst-in.pcap, dst-port*-out.pcap, "
      "*-stats.json)" % ("PASS" if not fails else "FAIL: %d check(s)" % len(fails),
                         time.time() - t0, out))
sys.exit(1 if fails else 0)
PY
