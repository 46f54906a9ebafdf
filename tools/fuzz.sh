#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the libFuzzer targets (doc/fuzzing.md).
#
#   tools/fuzz.sh [-t SECONDS] [--replay] [TARGET...]
#
# Builds build-fuzz/ when needed (clang, -Dfuzz=true; installs clang with
# apt-get when it is missing), then runs each TARGET (default: all) for
# SECONDS (default 60), one after the other, with its working corpus in
# out/fuzz/corpus/<target> seeded from fuzz/seeds/<target> and
# fuzz/regress/<target>; what a run finds lands in out/fuzz/findings/<target>.
# --replay runs the seed and regression corpora once instead (no fuzzing).
# Prints one line per target (time, executions, exec/s, coverage, corpus,
# findings), appends it to out/fuzz/results.tsv, and exits non-zero when
# any target crashed, leaked, hit a sanitizer report or a timeout.
set -uo pipefail
cd "$(dirname "$0")/.."

# Every target has its seed corpus fuzz/seeds/<target> (the LB targets one
# per stateful mode: lb_<mode>, fuzz/meson.build).
ALL=$(cd fuzz/seeds && echo *)
secs=60
replay=0
targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	-t) secs="$2"; shift 2 ;;
	--replay) replay=1; shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	-*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -eq 0 ] && read -r -a targets <<< "$ALL"
for t in "${targets[@]}"; do
	case " $ALL " in *" $t "*) ;; *) echo "fuzz.sh: no target $t (targets: $ALL)" >&2; exit 2 ;; esac
done

# ---- build
if ! command -v clang >/dev/null; then
	echo "fuzz.sh: installing clang"
	apt-get install -y clang >/dev/null || { echo "fuzz.sh: cannot install clang" >&2; exit 1; }
fi
if [ ! -f build-fuzz/build.ninja ]; then
	CC=clang meson setup build-fuzz -Dfuzz=true -Dtests=false >/dev/null ||
		{ echo "fuzz.sh: meson setup build-fuzz failed" >&2; exit 1; }
fi
ninja -C build-fuzz $(for t in "${targets[@]}"; do echo "fuzz/fuzz_$t"; done) >/dev/null ||
	{ echo "fuzz.sh: build failed (ninja -C build-fuzz)" >&2; exit 1; }

# UBSan stops at its first report (the code is also built with
# -fno-sanitize-recover=all); ASan's leak check runs at exit of each input
# set; a stack for every report.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
# Leaks of the libraries we use but do not own (fuzz/lsan.supp says why).
export LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"

mkdir -p out/fuzz
rc=0
printf "%-14s %6s %11s %8s %6s %7s %6s %s\n" target secs execs exec/s cov ft corpus findings
for t in "${targets[@]}"; do
	bin=build-fuzz/fuzz/fuzz_$t
	corpus=out/fuzz/corpus/$t
	finds=out/fuzz/findings/$t
	log=out/fuzz/$t.log
	mkdir -p "$corpus" "$finds" fuzz/regress/$t
	before=$(ls "$finds" | wc -l)
	t0=$(date +%s)
	if [ $replay = 1 ]; then
		"$bin" -runs=0 -artifact_prefix="$finds/" fuzz/seeds/$t fuzz/regress/$t > "$log" 2>&1
	else
		nice -n 10 "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="$finds/" \
			"$corpus" fuzz/seeds/$t fuzz/regress/$t > "$log" 2>&1
	fi
	frc=$?
	el=$(( $(date +%s) - t0 ))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	last=$(grep -aE '^#[0-9]+' "$log" | tail -1)
	[ -z "$execs" ] && execs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	new=$(( $(ls "$finds" | wc -l) - before ))
	what=$new
	if [ $frc -ne 0 ] || [ $new -gt 0 ]; then
		rc=1
		what="$new FAILED (exit $frc): $(grep -a -m1 -E 'ERROR: |runtime error|FUZZ FINDING|ERROR: libFuzzer' "$log" | cut -c1-120); log $log, inputs in $finds/"
	fi
	printf "%-14s %6s %11s %8s %6s %7s %6s %s\n" "$t" "$el" "${execs:-?}" "${eps:-?}" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "$what"
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$(date -u +%FT%TZ)" "$t" "$el" "${execs:-}" \
		"${eps:-}" "${cov:-}" "${ft:-}" "$new" "$([ $replay = 1 ] && echo replay || echo fuzz)" \
		>> out/fuzz/results.tsv
done
exit $rc
