#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A/B of two rocetor binaries, alternating order each pair: on-CPU cycles per
# packet at 64 B (AB_SIZES: e.g. 64,1024), 1K flows, ecmp / conweave-src /
# conweave-dst (AB_MODES: another comma list; AB_FLOWS: e.g. 1K,1M: the
# table then has a row per flow count). B_ARGS / A_ARGS: extra run.py arguments of each side (e.g.
# the same binary with A_ARGS="--port-keys 'speed_gbps: 400, nic_ring_kb: 32'").
# usage: tools/bench/ab.sh BEFORE AFTER PAIRS OUTDIR (doc/performance.md)
set -u
B=$1; A=$2; N=$3; OUT=$4
SIZES=${AB_SIZES:-64}
mkdir -p $OUT
for i in $(seq 1 $N); do
	if [ $((i % 2)) = 1 ]; then order="before after"; else order="after before"; fi
	for w in $order; do
		bin=$B; extra=${B_ARGS:-}; [ $w = after ] && bin=$A && extra=${A_ARGS:-}
		eval python3 "$(dirname "$0")/run.py" --modes ${AB_MODES:-ecmp,conweave-src,conweave-dst} --sizes $SIZES --flows ${AB_FLOWS:-1K} --runs 1 --duration 2 --no-testpmd --no-l3fwd --no-plot --no-install --rocetor $bin --out $OUT/$w-$i "$extra" >/dev/null 2>&1 || echo "run $w-$i failed"
	done
done
python3 - "$OUT" "$N" <<'PY'
import json, sys, statistics as st
out, n = sys.argv[1], int(sys.argv[2])
res = {}
for w in ("before", "after"):
    for i in range(1, n + 1):
        try:
            d = json.load(open("%s/%s-%d/results.json" % (out, w, i)))
        except Exception:
            continue
        for r in d["summary"]:
            sc = r.get("stage_cycles") or {}
            own = sum(v for k, v in sc.items() if k not in ("rx", "tx"))
            res.setdefault((r["mode"], "%s B %s flows" % (r.get("size"), r.get("flows")), w), []).append(
                (r["oncpu_cycles_per_packet"], r["mpps"], r.get("busy_cycles_per_packet") or 0, own, sc.get("lb", 0.0)))
print("| mode | size | before on-CPU cyc (median, n) | after | after/before | before busy cyc | after busy cyc | "
      "own (busy - rx - tx) before / after | lb stage before / after | per-pair after/before on-CPU |")
print("|---|---|---|---|---|---|---|---|---|---|")
for mode, size in sorted({(k[0], k[1]) for k in res}):
    b = res.get((mode, size, "before"), []); a = res.get((mode, size, "after"), [])
    if not a or not b:
        continue
    mb = st.median(x[0] for x in b); ma = st.median(x[0] for x in a)
    pairs = ["%.2f" % (a[k][0] / b[k][0]) for k in range(min(len(a), len(b)))]
    print("| %s | %s | %.0f (%d) | %.0f (%d) | %.3f | %.0f | %.0f | %.0f / %.0f | %.0f / %.0f | %s |" % (
          mode, size, mb, len(b), ma, len(a), ma / mb,
          st.median(x[2] for x in b), st.median(x[2] for x in a),
          st.median(x[3] for x in b), st.median(x[3] for x in a),
          st.median(x[4] for x in b), st.median(x[4] for x in a), " ".join(pairs)))
PY
