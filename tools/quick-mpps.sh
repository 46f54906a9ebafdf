#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# First throughput figure (until the benchmark suite of doc/benchmarks.md):
# one worker core, ECMP (or the LB mode given), net_pcap infinite_rx=1
# replaying the real RNIC capture into the host port, 4 net_null uplinks as
# sinks (no-rx=1), with hugepages. Prints Mpps per run and the median, and
# the busy cycles per packet read from telemetry (/rocetor/stats) one second
# before each run ends.
# Usage: tools/quick-mpps.sh [RUNS] [SEC] [LB]   (or LB=conweave tools/quick-mpps.sh)
# LB is ecmp (default), conweave, seqbalance or caver, each as a SrcToR (the
# capture's ACKs get CAVER shims, the data PathTags); conweave with a flow
# table of 65536 and 64 reorder rings of 1023 (the defaults, 1M flows x 128 B
# and 1024 rings of 2048, also start in -m 512 but take most of it).
# ROCETOR=path runs another binary (A/B of two builds; default build/app/rocetor).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SEC=${2:-4}
LB=${3:-${LB:-ecmp}}
ROCETOR=${ROCETOR:-build/app/rocetor}
CAP=${ROCETOR_SHARED:-$(cd .. && pwd)/shared}/data/roce-rc-send-real.pcap
case "$LB" in
ecmp) EXTRA="" ;;
conweave) EXTRA="conweave: {flow_table_size: 65536, reorder_queues_per_port: 64, reorder_queue_depth: 1023}" ;;
seqbalance) EXTRA="seqbalance: {flow_table_size: 65536}" ;;
caver) EXTRA="caver: {flow_table_size: 65536}" ;;
*) echo "quick-mpps: LB must be ecmp, conweave, seqbalance or caver, got '$LB'" >&2; exit 2 ;;
esac
CFG=$(mktemp --suffix=.yaml)
cat > "$CFG" <<Y
switch: {name: bench, id: 1, lb: $LB}
ports:
  - {port: 0, role: host, l2_filter: false}
  - {port: 1, role: fabric}
  - {port: 2, role: fabric}
  - {port: 3, role: fabric}
  - {port: 4, role: fabric}
routes:
  - prefix: "192.168.70.0/24"
    paths: [{port: 1, nexthop_mac: "02:00:00:00:bb:01"}, {port: 2, nexthop_mac: "02:00:00:00:bb:02"},
            {port: 3, nexthop_mac: "02:00:00:00:bb:03"}, {port: 4, nexthop_mac: "02:00:00:00:bb:04"}]
$EXTRA
Y
for i in $(seq "$RUNS"); do
	prefix=qm$$_$i
	"$ROCETOR" -l 0 --file-prefix "$prefix" --huge-unlink -m 512 --no-pci \
		--log-level lib.eal:error \
		--vdev net_pcap0,rx_pcap="$CAP",infinite_rx=1 \
		--vdev net_null1,no-rx=1 --vdev net_null2,no-rx=1 --vdev net_null3,no-rx=1 \
		--vdev net_null4,no-rx=1 \
		-- --config "$CFG" --duration "$SEC" --stats-json "$CFG.$i.json" >/dev/null &
	pid=$!
	# Telemetry is answered on the control-thread CPU (not lcore 0).
	if [ "$SEC" -gt 1 ] && [ -x /usr/bin/dpdk-telemetry.py ]; then
		sleep $((SEC - 1))
		echo /rocetor/stats | /usr/bin/dpdk-telemetry.py -f "$prefix" 2>/dev/null \
			>"$CFG.$i.tel" || true
	fi
	wait "$pid"
done
/usr/bin/python3 - "$CFG" "$RUNS" "$LB" <<'PY'
import json, re, statistics, sys
r, cyc = [], []
for i in range(1, int(sys.argv[2]) + 1):
    s = json.load(open("%s.%d.json" % (sys.argv[1], i)))
    rx = s["ports"][0]["rx_packets"]
    r.append(rx / s["uptime_s"] / 1e6)
    c = None
    try:
        m = re.search(r'"busy_cycles_per_packet": (\d+)', open("%s.%d.tel" % (sys.argv[1], i)).read())
        c = int(m.group(1)) if m else None
    except OSError:
        pass
    if c:
        cyc.append(c)
    print("run %d: %.2f Mpps (rx %d, forwarded %d, consumed %d, dropped %d%s)%s"
          % (i, r[-1], rx, s["forwarded"], s["consumed"], s["dropped"],
             ", cw_packets %d" % s["lb"]["cw_packets"] if s["lb"].get("cw_packets") else "",
             ", %d busy cycles/packet" % c if c else ""))
print("%s: median %.2f Mpps per core, min %.2f, max %.2f%s"
      % (sys.argv[3], statistics.median(r), min(r), max(r),
         ", median %d busy cycles/packet" % statistics.median(cyc) if cyc else ""))
PY
rm -f "$CFG" "$CFG".*.json "$CFG".*.tel
