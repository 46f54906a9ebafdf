#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A/B of two rocetor binaries, alternating order each pair: on-CPU cycles per
# packet at 64 B, 1K flows, ecmp / conweave-src / conweave-dst.
# usage: tools/bench/ab.sh BEFORE AFTER PAIRS OUTDIR (doc/performance.md)
set -u
B=$1; A=$2; N=$3; OUT=$4
mkdir -p $OUT
for i in $(seq 1 $N); do
	if [ $((i % 2)) = 1 ]; then order="before after"; else order="after before"; fi
	for w in $order; do
		bin=$B; [ $w = after ] && bin=$A
		python3 "$(dirname "$0")/run.py" --modes ecmp,conweave-src,conweave-dst --sizes 64 --flows 1K --runs 1 --duration 2 --no-testpmd --no-l3fwd --no-plot --no-install --rocetor $bin --out $OUT/$w-$i >/dev/null 2>&1 || echo "run $w-$i failed"
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
            res.setdefault((r["mode"], w), []).append((r["oncpu_cycles_per_packet"], r["mpps"], r["busy_cycles_per_packet"]))
print("| mode | before on-CPU cyc (median, n) | after | after/before | before busy cyc | after busy cyc | per-pair after/before on-CPU |")
print("|---|---|---|---|---|---|---|")
for mode in ("ecmp", "conweave-src", "conweave-dst"):
    b = res.get((mode, "before"), []); a = res.get((mode, "after"), [])
    if not a or not b:
        continue
    mb = st.median(x[0] for x in b); ma = st.median(x[0] for x in a)
    pairs = ["%.2f" % (a[k][0] / b[k][0]) for k in range(min(len(a), len(b)))]
    print("| %s | %.0f (%d) | %.0f (%d) | %.3f | %.0f | %.0f | %s |" % (mode, mb, len(b), ma, len(a), ma / mb,
          st.median(x[2] for x in b), st.median(x[2] for x in a), " ".join(pairs)))
PY
