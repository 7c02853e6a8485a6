#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Configuration checker tests: runs `dpr -- -c FILE --check` (which never
# starts DPDK, so no root, hugepages or EAL are needed) on every file in
# bad/ and good/, plus a few command-line cases.
#
#   bad/*.json     must exit 1 with exactly one stderr line that starts with
#                  "dpr: config: FILE" and contains the substring given for
#                  the file in bad/expected.txt (FILE<TAB>SUBSTRING);
#                  nothing on stdout.
#   good/*.json    must exit 0, print "configuration OK", nothing on stderr.
#
# Usage: run.sh PATH_TO_DPR
# Prints "ok - NAME" or "not ok - NAME: why" per case, then
# "N passed, N failed"; exits 1 if any case failed, 2 on bad usage.
set -u

if [ $# -ne 1 ]; then
	echo "usage: $0 PATH_TO_DPR" >&2
	exit 2
fi
dpr=$1
if [ ! -x "$dpr" ]; then
	echo "$0: $dpr: not an executable file (build it with: ninja -C build)" >&2
	exit 2
fi
case $dpr in
/*) ;;
*) dpr=$PWD/$dpr ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpr-config-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

ok() {
	echo "ok - $1"
	passed=$((passed + 1))
}

not_ok() {
	echo "not ok - $1: $2"
	failed=$((failed + 1))
}

# run ARGS...: runs dpr with ARGS; sets rc, out (stdout), err (stderr) and
# err_lines (number of lines on stderr, counting an unterminated last one).
run() {
	local t=()

	if command -v timeout >/dev/null 2>&1; then
		t=(timeout 20)
	fi
	"${t[@]}" "$dpr" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	err_lines=$(awk 'END { print NR }' "$tmp/err")
}

# One-line summary of what dpr printed, for failure messages.
shown() {
	local s=${err:-$out}

	s=${s//$'\n'/ | }
	[ ${#s} -gt 300 ] && s="${s:0:300}..."
	printf '%s' "${s:-(no output)}"
}

# ---- bad configurations ---------------------------------------------------

expected=$here/bad/expected.txt
declare -A want=()
if [ ! -r "$expected" ]; then
	not_ok "bad/expected.txt" "missing"
else
	n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		case $line in
		'' | '#'*) continue ;;
		esac
		file=${line%%$'\t'*}
		sub=${line#*$'\t'}
		if [ "$file" = "$line" ] || [ -z "$sub" ] || [ -z "$file" ]; then
			not_ok "bad/expected.txt line $n" "expected FILE<TAB>SUBSTRING, got \"$line\""
			continue
		fi
		if [ -n "${want[$file]+set}" ]; then
			not_ok "bad/expected.txt line $n" "$file is listed twice"
			continue
		fi
		want[$file]=$sub
	done <"$expected"
fi

for path in "$here"/bad/*.json; do
	[ -e "$path" ] || continue
	file=${path##*/}
	if [ -z "${want[$file]+set}" ]; then
		not_ok "bad/$file" "no line for it in bad/expected.txt"
	fi
done

for file in $(printf '%s\n' "${!want[@]}" | LC_ALL=C sort); do
	name="bad/$file"
	path=$here/bad/$file
	sub=${want[$file]}
	if [ ! -f "$path" ]; then
		not_ok "$name" "listed in bad/expected.txt but the file is missing"
		continue
	fi
	run -- -c "$path" --check
	if [ "$rc" -ne 1 ]; then
		not_ok "$name" "exit status $rc, expected 1 ($(shown))"
	elif [ "$err_lines" -ne 1 ]; then
		not_ok "$name" "$err_lines lines on stderr, expected exactly one ($(shown))"
	elif [[ $err != "dpr: config: $path"* ]]; then
		not_ok "$name" "stderr does not start with \"dpr: config: $path\" ($(shown))"
	elif [[ $err != *"$sub"* ]]; then
		not_ok "$name" "stderr lacks \"$sub\" ($(shown))"
	elif [ -n "$out" ]; then
		not_ok "$name" "unexpected output on stdout: ${out//$'\n'/ | }"
	else
		ok "$name"
	fi
done

# ---- good configurations --------------------------------------------------

check_good() {
	local name=$1 path=$2

	run -- -c "$path" --check
	if [ "$rc" -ne 0 ]; then
		not_ok "$name" "exit status $rc, expected 0 ($(shown))"
	elif [ -n "$err" ]; then
		not_ok "$name" "unexpected output on stderr: $(shown)"
	elif [[ $out != "dpr: $path: configuration OK"* ]]; then
		not_ok "$name" "stdout lacks \"dpr: $path: configuration OK\" ($(shown))"
	else
		ok "$name"
	fi
}

for path in "$here"/good/*.json; do
	[ -e "$path" ] || continue
	check_good "good/${path##*/}" "$path"
done

# The examples shipped in config/ must stay valid too.
for path in "$here"/../../config/*.json; do
	case ${path##*/} in schema.json) continue ;; esac
	[ -e "$path" ] || continue
	path=$(cd "$(dirname "$path")" && pwd)/${path##*/}
	check_good "example config/${path##*/}" "$path"
done

# ---- command line ---------------------------------------------------------

missing=$tmp/no-such-dir/missing.json
run -- -c "$missing" --check
if [ "$rc" -ne 1 ]; then
	not_ok "missing file" "exit status $rc, expected 1 ($(shown))"
elif [ "$err_lines" -ne 1 ] || [[ $err != "dpr: config: $missing: "* ]]; then
	not_ok "missing file" "expected one stderr line starting with \"dpr: config: $missing: \" ($(shown))"
elif [[ $err != *"cannot open"* ]]; then
	not_ok "missing file" "stderr lacks \"cannot open\" ($(shown))"
else
	ok "missing file"
fi

run -- -c "$here/bad" --check
if [ "$rc" -ne 1 ] || [ "$err_lines" -ne 1 ] || [[ $err != "dpr: config: $here/bad: cannot open: "* ]]; then
	not_ok "a directory" "expected exit 1 and one stderr line starting with \"dpr: config: $here/bad: cannot open: \" ($(shown))"
else
	ok "a directory"
fi

# usage_case NAME ARGS...: bad command line, must exit 2 and say something.
usage_case() {
	local name=$1

	shift
	run "$@"
	if [ "$rc" -ne 2 ]; then
		not_ok "$name" "exit status $rc, expected 2 ($(shown))"
	elif [ -z "$err" ]; then
		not_ok "$name" "nothing on stderr"
	elif [[ $out == *"configuration OK"* ]]; then
		not_ok "$name" "printed \"configuration OK\" anyway"
	else
		ok "$name"
	fi
}

good=$here/good/minimal.json
usage_case "--check without -c" -- --check
usage_case "no \"--\" at all" --check
usage_case "-c without a file" -- -c
usage_case "unknown option" -- -c "$good" --check --no-such-option
usage_case "unexpected argument" -- -c "$good" --check extra.json

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
