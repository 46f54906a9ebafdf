#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# First throughput figure (until the benchmark suite of doc/benchmarks.md):
# one worker core, ECMP, net_pcap infinite_rx=1 replaying the real RNIC
# capture into the host port, 4 net_null uplinks as sinks (no-rx=1), with
# hugepages. Prints Mpps per run and the median. Usage: tools/quick-mpps.sh [RUNS] [SEC]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
SEC=${2:-4}
CAP=${ROCETOR_SHARED:-$(cd .. && pwd)/shared}/data/roce-rc-send-real.pcap
CFG=$(mktemp --suffix=.yaml)
cat > "$CFG" <<'Y'
switch: {name: bench, id: 1, lb: ecmp}
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
Y
for i in $(seq "$RUNS"); do
	build/app/rocetor -l 0 --file-prefix qm$$_$i --huge-unlink -m 512 --no-pci \
		--log-level lib.eal:error \
		--vdev net_pcap0,rx_pcap="$CAP",infinite_rx=1 \
		--vdev net_null1,no-rx=1 --vdev net_null2,no-rx=1 --vdev net_null3,no-rx=1 \
		--vdev net_null4,no-rx=1 \
		-- --config "$CFG" --duration "$SEC" --stats-json "$CFG.$i.json" >/dev/null
done
/usr/bin/python3 - "$CFG" "$RUNS" <<'PY'
import json, statistics, sys
r = []
for i in range(1, int(sys.argv[2]) + 1):
    s = json.load(open("%s.%d.json" % (sys.argv[1], i)))
    rx = s["ports"][0]["rx_packets"]
    r.append(rx / s["uptime_s"] / 1e6)
    print("run %d: %.2f Mpps (rx %d, forwarded %d, consumed %d, dropped %d)"
          % (i, r[-1], rx, s["forwarded"], s["consumed"], s["dropped"]))
print("median %.2f Mpps per core, min %.2f, max %.2f" % (statistics.median(r), min(r), max(r)))
PY
rm -f "$CFG" "$CFG".*.json
