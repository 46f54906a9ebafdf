#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The format gate (meson test "lint", doc/testing.md): every C file of the
# tree as the repo's .clang-format formats it (clang-format 14), and every
# Python file clean under flake8's pyflakes checks (--select=F: unused
# imports and names, undefined names; "# noqa: F401" marks a re-export).
#   tools/lint.sh          check, print what differs, exit 1 on any finding
#   tools/lint.sh --fix    reformat the C files in place (then review, commit)
set -uo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = --fix ] && fix=1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t cfiles < <(git ls-files '*.c' '*.h')
	mapfile -t pyfiles < <(git ls-files '*.py'; git ls-files tools | while read -r f; do
		case "$f" in *.py) ;; *) head -c 64 "$f" 2>/dev/null | head -1 | grep -q '^#!.*python' && echo "$f" ;; esac
	done)
else
	mapfile -t cfiles < <(find app lib pipelines fuzz tools tests -name '*.[ch]' | sort)
	mapfile -t pyfiles < <(find tools tests fuzz -name '*.py' | sort)
fi
rc=0
for tool in clang-format flake8; do
	command -v "$tool" >/dev/null || { echo "lint: $tool is missing (tools/setup.sh installs it)"; exit 1; }
done
if [ $fix = 1 ]; then
	clang-format -i "${cfiles[@]}"
	exit 0
fi
# One line per file that differs, then clang-format's own first findings.
bad=()
for f in "${cfiles[@]}"; do
	clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
	echo "lint: ${#bad[@]} of ${#cfiles[@]} C files not formatted (tools/lint.sh --fix):"
	for f in "${bad[@]}"; do
		echo "  $f"
		clang-format --dry-run "$f" 2>&1 | grep -m 3 'warning:' | sed 's/^/    /'
	done
	rc=1
else
	echo "lint: ${#cfiles[@]} C files formatted"
fi
if ! out=$(flake8 --select=F "${pyfiles[@]}" 2>&1); then
	echo "lint: flake8 (pyflakes) findings in ${#pyfiles[@]} Python files:"
	echo "$out" | sed 's/^/  /'
	rc=1
else
	echo "lint: ${#pyfiles[@]} Python files clean (flake8 --select=F)"
fi
exit $rc
