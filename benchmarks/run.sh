#!/bin/sh
# Runs the BENCHMARKS.md matrix with stalkd-bench.
#
#   benchmarks/run.sh reference   the reference beanstalkd alone (and the generator ceiling)
#   benchmarks/run.sh compare     ours (A) against the reference (B), ROUNDS rounds each
#
# Environment (defaults in brackets):
#   OURS      our server's command template   [./bin/stalkd -l 127.0.0.1 -p {port} -z 1048576]
#   REF       the reference's template        [beanstalkd -l 127.0.0.1 -p {port} -z 1048576]
#   PIN       a CPU list: servers run under `taskset -c $PIN` (e.g. PIN=1 for one core)
#   DURATION  measured time of timed runs     [5s]
#   ROUNDS    compare rounds                  [3]
#   ONLY      run only the cases whose name contains this word
#   EXTRA     more stalkd-bench flags for every case (e.g. --json)
# {port} is replaced with a free loopback port; every server is started afresh per run.
set -eu
mode=${1:-reference}
cd "$(dirname "$0")/.."
[ -n "${OURS:-}" ] || OURS='./bin/stalkd -l 127.0.0.1 -p {port} -z 1048576'
[ -n "${REF:-}" ] || REF='beanstalkd -l 127.0.0.1 -p {port} -z 1048576'
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
ONLY=${ONLY:-}
EXTRA=${EXTRA:-}
if [ -n "${PIN:-}" ]; then
	OURS="taskset -c $PIN $OURS"
	REF="taskset -c $PIN $REF"
fi
bin=$(mktemp -d)/stalkd-bench
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./benchmarks/cmd/stalkd-bench

timed="--warmup 1s --duration $DURATION"
cases="
put-pipelined|put -c 10 -d 64 -s 100 $timed
reserve-batched|reserve -c 10 -b 16 -s 100 -n 1000000
put-100conns|put -c 100 -s 100 $timed
reserve-100conns|reserve -c 100 -s 100 -n 300000
e2e-50x50|e2e -p 50 -c 50 -s 100 $timed
e2e-50x50-paced|e2e -p 50 -c 50 -s 100 --rate 5000 $timed
put-64KiB|put -c 10 -d 4 -s 65536 $timed
reserve-64KiB|reserve -c 10 -b 4 -s 65536 -n 20000
mem-1M-jobs|mem -n 1000000 -s 100
conns-10k-idle|conns --idle 10000
"

echo "# $(date -u +%FT%TZ) $(uname -srm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$cases" | while IFS='|' read -r name args; do
	[ -n "$name" ] || continue
	case "$name" in *"$ONLY"*) ;; *) continue ;; esac
	echo
	echo "## $name"
	if [ "$mode" = compare ]; then
		echo "\$ stalkd-bench $args --server-a '$OURS' --server-b '$REF' --rounds $ROUNDS $EXTRA"
		# shellcheck disable=SC2086
		"$bin" $args --server-a "$OURS" --server-b "$REF" --label-a stalkd --label-b beanstalkd \
			--rounds "$ROUNDS" --quiet $EXTRA || echo "(failed: $?)"
	else
		echo "\$ stalkd-bench $args --server '$REF' $EXTRA"
		# shellcheck disable=SC2086
		"$bin" $args --server "$REF" --label beanstalkd --quiet $EXTRA || echo "(failed: $?)"
	fi
done
