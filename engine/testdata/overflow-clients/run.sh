#!/usr/bin/env bash
# Runs each client library's script against a fresh stalkd whose tubes
# "capped" (max_ready 1, overflow reject) and "buried" (max_ready 1,
# overflow bury) hold one job, and prints what each library does with the
# second put's OUT_OF_MEMORY and BURIED <id>. The libraries are the peer
# suites' (/work/shared/peers/src/work) and go-beanstalk (go test
# -run TestPolicyOverflowOverTCP ./engine shows ErrOOM).
#   engine/testdata/overflow-clients/run.sh [PORT]   (from the repository root, after make build)
set -u
port=${1:-11601}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
java_cp=/work/shared/peers/src/work/JavaBeanstalkClient/peers-build
run() {
	"$root/bin/stalkd" -l 127.0.0.1 -p "$port" --policies "$here/policies.yaml" 2>/dev/null &
	pid=$!
	for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
	"$@" 2>&1
	kill "$pid"; wait "$pid" 2>/dev/null
}
run python3 "$here/greenstalk_overflow.py" "$port"
run php "$here/pheanstalk_overflow.php" "$port"
run ruby "$here/beaneater_overflow.rb" "$port"
tmp=$(mktemp -d)
cp /work/shared/peers/src/work/jackd/dist/cjs/index.js "$tmp/jackd.cjs"
JACKD_CJS="$tmp/jackd.cjs" run node "$here/jackd_overflow.cjs" "$port"
javac -d "$tmp" -cp "$java_cp" "$here/JavaBeanstalkOverflow.java" && run java -cp "$tmp:$java_cp" JavaBeanstalkOverflow "$port"
rm -rf "$tmp"
