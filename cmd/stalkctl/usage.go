package main

import (
	"fmt"
	"io"
	"strings"
)

// usage prints the help text: every command, the global flags and the exit
// codes. With a command named (stalkctl put -h) it still prints it all;
// the text is short enough.
func usage(w io.Writer, _ *invocation) {
	fmt.Fprintf(w, `stalkctl - command line for stalkd and beanstalkd

usage: stalkctl [-a ADDR] [--admin URL] [--json] COMMAND [ARGS] [FLAGS]

ADDR is HOST:PORT, HOST (port 11300) or unix:/path; default $STALKD_ADDR,
else %s. Flags may also follow the command and its arguments.

commands:
`, defaultAddr)
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(c.name+" "+c.synopsis))
		fmt.Fprintf(w, "      %s\n", c.help)
	}
	fmt.Fprintf(w, `
global flags:
  -a ADDR    server address
  --json     print JSON (one document; top prints one per refresh)
  --admin URL[,URL...]
             a node's admin API (stalkd --admin), for cluster, add-voter,
             remove-server, policy, redrive and move (and peek's dead-letter
             lines); default $STALKD_ADMIN, else %s (cluster without
             either asks -a's stats-cluster). With every node's: cluster
             shows each node's own view, and a change refused by a node that
             knows no leader goes to the leader it named
  --admin-token-file FILE
             the admin API's bearer token (a line of stalkd's
             --auth-token-file); default the token in $STALKD_ADMIN_TOKEN
  -h         this help

exit codes:
  %d  success
  %d  the server refused the command (BAD_FORMAT, DRAINING, JOB_TOO_BIG, ...)
  %d  bad command line
  %d  cannot connect to the server, or the connection failed
  %d  no such job or tube (NOT_FOUND; peek finding no job in that state)
  %d  the server does not support the command (clear, list on a plain beanstalkd)
  %d  drain: --timeout passed before the tube drained
  %d  add-voter, remove-server, policy, redrive, move: the node asked knows no leader to
     forward to, or names one not listed in --admin

examples:
  stalkctl tubes
  echo '{"to":"x"}' | stalkctl put -t emails --pri 10
  stalkctl peek buried -t emails
  stalkctl kick 100 -t emails
  stalkctl list emails buried --json
  stalkctl drain emails --timeout 5m
  STALKD_ADDR=unix:/run/stalkd.sock stalkctl top
  stalkctl cluster --admin 10.0.0.1:11380
  stalkctl cluster --admin 10.0.0.1:11380,10.0.0.2:11380,10.0.0.3:11380
  stalkctl policy set emails --max-reserves 5 --dead-letter emails-dead
  stalkctl policy set emails --max-ready 1000        # the other fields stay
  stalkctl policy list > policies.yaml
  stalkctl policy apply -f policies.yaml --prune --dry-run
  stalkctl binlog inspect /var/lib/beanstalkd
  stalkctl binlog export --from-dir /var/lib/stalkd --to /var/lib/beanstalkd-rollback
  stalkctl migrate --from old-queue:11300 --map ids.json
  stalkctl redrive emails-dead
  stalkctl add-voter n4 10.0.0.4:11310 --admin 10.0.0.1:11380 --admin-token-file /etc/stalkd/tokens
`, defaultAdmin, exitOK, exitFailure, exitUsage, exitConnect, exitNotFound, exitUnsupported, exitTimeout, exitNotLeader)
}
