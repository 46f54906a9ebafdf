#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The no-hardware demo (README command 1): install what is missing, build,
# then run rocetor as a ToR with 1 host port and 4 uplinks on net_pcap
# ports. The host port replays the real RNIC capture
# (shared/data/roce-rc-send-real.pcap) followed by generated RoCEv2 flows
# (tools/rocegen.py); the output pcaps are checked with tools/rocecheck.py
# (scapy) for valid ICRCs, and per-port / per-path counters are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh >/dev/null
OUT=${DEMO_OUT:-out/demo}
SHARED=${ROCETOR_SHARED:-$(cd .. && pwd)/shared}
rm -rf "$OUT"
mkdir -p "$OUT"
PY=/usr/bin/python3

echo "demo: generating 64 RoCEv2 flows (RC SEND and WRITE) from the host to 10.2.0.0/24"
$PY tools/rocegen.py -o "$OUT/gen-send.pcap" --flows 32 --messages 4 --op send --size 4096 \
	--src-net 10.1.0.0/24 --dst-net 10.2.0.0/24 --dst-mac 02:00:00:00:01:00 --seed 7
$PY tools/rocegen.py -o "$OUT/gen-write.pcap" --flows 32 --messages 4 --op write --size 8192 \
	--src-net 10.1.0.0/24 --dst-net 10.2.0.0/24 --dst-mac 02:00:00:00:01:00 --seed 8
$PY - "$SHARED/data/roce-rc-send-real.pcap" "$OUT/gen-send.pcap" "$OUT/gen-write.pcap" \
	"$OUT/host-in.pcap" <<'PY'
import sys
from scapy.utils import rdpcap, wrpcap
frames = [f for name in sys.argv[1:4] for f in rdpcap(name)]
wrpcap(sys.argv[4], frames)
print("demo: host port input: %d frames (%s + generated)" % (len(frames), sys.argv[1]))
PY

VDEVS="--vdev net_pcap0,rx_pcap=$OUT/host-in.pcap,tx_pcap=$OUT/port0-out.pcap"
for p in 1 2 3 4; do
	$PY -c "open('$OUT/empty.pcap','wb').write(bytes.fromhex('d4c3b2a1020004000000000000000000ffff000001000000'))"
	VDEVS="$VDEVS --vdev net_pcap$p,rx_pcap=$OUT/empty.pcap,tx_pcap=$OUT/port$p-out.pcap"
done
echo "demo: build/app/rocetor -l 0 --no-huge -m 1024 --no-pci $VDEVS -- --config conf/demo-tor.yaml --exit-on-idle 500 --stats-json $OUT/stats.json"
# shellcheck disable=SC2086
build/app/rocetor -l 0 --no-huge -m 1024 --no-pci --file-prefix rtr_demo_$$ \
	--log-level lib.eal:error $VDEVS \
	-- --config conf/demo-tor.yaml --exit-on-idle 500 --stats-json "$OUT/stats.json"

$PY - "$OUT" <<'PY'
import json, subprocess, sys
out = sys.argv[1]
s = json.load(open(out + "/stats.json"))
print("\nswitch %s, lb %s, %.2f s" % (s["switch"], s["lb_mode"], s["uptime_s"]))
print("%-5s %-7s %10s %10s %12s %12s %7s" % ("port", "role", "rx_pkts", "tx_pkts", "rx_bytes",
                                           "tx_bytes", "drops"))
for p in s["ports"]:
    print("%-5d %-7s %10d %10d %12d %12d %7d" % (p["port"], p["role"], p["rx_packets"],
          p["tx_packets"], p["rx_bytes"], p["tx_bytes"], p["drops"]))
for g in s["paths"]:
    print("group %s: tx per path %s (ports %s)" % (g["prefix"], g["tx_packets"], g["ports"]))
print("forwarded %d, consumed %d, dropped %d %s, originated %d, held %d"
      % (s["forwarded"], s["consumed"], s["dropped"],
         {k: v for k, v in s["drops"].items() if v}, s["originated"], s["held_packets"]))
bad = 0
for p in range(5):
    r = subprocess.run(["/usr/bin/python3", "tools/rocecheck.py", "--summary",
                        "%s/port%d-out.pcap" % (out, p)], capture_output=True, text=True)
    try:
        summ = json.loads(r.stdout)
        summ = summ.get("summary", summ)
        print("port %d output: %s/port%d-out.pcap: %d packets, %d RoCE, %d bad ICRC"
              % (p, out, p, summ["packets"], summ["roce"], summ["icrc_bad"]))
        bad += summ["icrc_bad"]
    except Exception:
        print("port %d: rocecheck: %s" % (p, (r.stdout + r.stderr)[-300:]))
        bad += 1
sys.exit(1 if bad else 0)
PY
