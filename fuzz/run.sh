#!/usr/bin/env bash
# fuzz/run.sh FUZZTIME MINIMIZETIME: run each fuzz target of ./fuzz in turn
# (make fuzz). Go 1.26's fuzzing coordinator can fail a target with a bare
# "context deadline exceeded" when -fuzztime ends while a worker is still in
# a call (golang/go#75804, fixed in Go 1.27); such a run found nothing and
# wrote no failing input, so it is run again (up to three runs). Anything
# else - a failing input written, a panic, a third deadline failure - fails.
set -u
go=${GO:-go}
fuzztime=${1:?usage: fuzz/run.sh FUZZTIME MINIMIZETIME}
mintime=${2:?usage: fuzz/run.sh FUZZTIME MINIMIZETIME}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in $($go test ./fuzz -list '^Fuzz' | grep '^Fuzz'); do
	for try in 1 2 3; do
		echo "fuzz $t for $fuzztime"
		$go test ./fuzz -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" -fuzzminimizetime "$mintime" >"$out" 2>&1
		rc=$?
		cat "$out"
		[ $rc -eq 0 ] && break
		if [ $try -lt 3 ] && grep -q 'context deadline exceeded' "$out" &&
			! grep -q -e 'Failing input written' -e '^panic:' "$out"; then
			echo "fuzz $t: Go's fuzztime race (golang/go#75804), no failing input: run again"
			continue
		fi
		exit 1
	done
done
