// Command gateway is a runnable example of stalkd embedded in a Go HTTP
// gateway: an HTTP endpoint enqueues jobs in-process, in-process workers
// handle them, and (optionally) the same queue is served on a beanstalk
// port so that remote workers in any language can share the work.
//
// # Running it
//
//	go run ./cmd/examples/gateway -http 127.0.0.1:8080 -workers 8
//	curl -d '{"to":"ada@example.com"}' 'http://127.0.0.1:8080/jobs?tube=emails&delay=0s'
//	  -> 202 {"id":1}
//	curl http://127.0.0.1:8080/stats
//	  -> {"ready":0,"reserved":0,...,"handled":1,"failed":0}
//
// With -dir the queue is persistent (fsync before every 202 unless -f is
// given); with -beanstalk 127.0.0.1:11300 any beanstalk client can put and
// reserve on the same tubes (the in-process workers watch -tube only).
//
// # Flags
//
//	-http ADDR        HTTP listen address (default 127.0.0.1:8080)
//	-beanstalk ADDR   also serve the queue on this beanstalk address (default: off)
//	-dir DIR          journal directory: a persistent queue (default: in memory)
//	-f DURATION       fsync within DURATION instead of before each acknowledgement
//	-tube NAME        the tube in-process workers take jobs from (default "jobs")
//	-workers N        in-process handlers running at once (default 4)
//	-work DURATION    simulated work per job (default 0)
//	-fail-every N     make every Nth job fail once, to see retries (default 0: never)
//	-max-failures N   bury a job on its Nth failure (default 5)
//	-z BYTES          largest job body (default 65535)
//	-load N           run N requests against itself, print latencies and exit
//	-c N              concurrent HTTP clients of -load (default 16)
//
// # Endpoints
//
//	POST /jobs?tube=T&pri=P&delay=D&ttr=D   body: the job; 202 {"id":N}
//	                                         413 too big, 400 bad tube or parameter,
//	                                         503 queue draining, journal full or failed,
//	                                         504 when the request's deadline (5s) passed
//	GET  /stats                              queue and worker counters as JSON
//
// # Numbers
//
// -load N measures, stalkd-bench style, the HTTP request latency of an
// enqueue (client to 202) and the in-process latency from Put to the
// handler starting, as p50/p90/p99/max, and the jobs handled per second:
//
//	go run ./cmd/examples/gateway -load 20000 -c 16 -workers 8
//
// Stop the gateway with SIGINT or SIGTERM: it stops accepting requests,
// lets running handlers finish (up to 10 seconds), and closes the queue.
package main
