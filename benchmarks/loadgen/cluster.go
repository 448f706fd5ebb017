package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// A cluster template is a server template behind a prefix that says which
// node of a three-node stalkd cluster to measure:
//
//	cluster:leader   ./bin/stalkd -l 127.0.0.1 -p {port} -b {dir} --raft-id {id} --raft-addr {raft} --raft-peers {peers}
//	cluster:follower (the same)
//
// StartServer starts three processes from the rest of the template: each
// gets its own {port} (client port), {dir}, {id} (n1, n2, n3) and {raft}
// (127.0.0.1:a free port); {peers} lists every node as id=raft. Once a
// leader is elected (stats-cluster names it), the Server it returns is the
// leader's client port, or a follower's; PID is that node's. Stop stops
// the three.
const (
	clusterLeader   = "cluster:leader "
	clusterFollower = "cluster:follower "
	clusterSize     = 3
)

// clusterVia splits a cluster template: which node, and the node template.
func clusterVia(template string) (via, node string, ok bool) {
	for _, p := range []string{clusterLeader, clusterFollower} {
		if rest, found := strings.CutPrefix(template, p); found {
			return strings.TrimSuffix(strings.TrimPrefix(p, "cluster:"), " "), rest, true
		}
	}
	return "", "", false
}

// startCluster starts the nodes of a cluster template (see clusterVia) and
// returns the one to measure, which owns the others (Stop stops them all).
func startCluster(via, template string, logs io.Writer) (*Server, error) {
	for _, k := range []string{"{port}", "{id}", "{raft}", "{peers}"} {
		if !strings.Contains(template, k) {
			return nil, fmt.Errorf("loadgen: cluster template %q has no %s", template, k)
		}
	}
	ids := make([]string, clusterSize)
	raft := make([]string, clusterSize)
	var peers []string
	for i := range ids {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		ids[i], raft[i] = "n"+strconv.Itoa(i+1), net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		peers = append(peers, ids[i]+"="+raft[i])
	}
	nodes := make([]*Server, 0, clusterSize)
	stopAll := func() {
		for _, n := range nodes {
			n.Stop()
		}
	}
	for i := range ids {
		t := strings.NewReplacer("{id}", ids[i], "{raft}", raft[i], "{peers}", strings.Join(peers, ",")).Replace(template)
		n, err := StartServer(t, logs)
		if err != nil {
			stopAll()
			return nil, err
		}
		nodes = append(nodes, n)
	}
	leader, err := waitLeader(nodes[0].Addr, 20*time.Second)
	if err != nil {
		stopAll()
		return nil, err
	}
	pick := -1
	for i, id := range ids {
		if (via == "leader") == (id == leader) {
			pick = i
			break
		}
	}
	if pick < 0 {
		stopAll()
		return nil, fmt.Errorf("loadgen: cluster leader %q is none of %v", leader, ids)
	}
	s := nodes[pick]
	for i, n := range nodes {
		if i != pick {
			s.others = append(s.others, n)
		}
	}
	return s, nil
}

// waitLeader asks the node at addr for stats-cluster until it names a
// leader, and returns the leader's id.
func waitLeader(addr string, limit time.Duration) (string, error) {
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		doc, err := statsCluster(addr)
		if err == nil {
			for _, line := range strings.Split(doc, "\n") {
				if id, ok := strings.CutPrefix(strings.TrimSpace(line), "leader: "); ok && id != "" {
					return strings.Trim(id, `"`), nil
				}
			}
			err = errors.New("no leader yet")
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("loadgen: cluster at %s elected no leader within %v: %v", addr, limit, last)
}

// statsCluster returns the stats-cluster document of the server at addr.
func statsCluster(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "stats-cluster\r\n"); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "OK ")))
	if !strings.HasPrefix(line, "OK ") || err != nil {
		return "", fmt.Errorf("stats-cluster: %q", strings.TrimSpace(line))
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", err
	}
	return string(body[:n]), nil
}
