package loadgen

import "testing"

func TestClusterVia(t *testing.T) {
	cases := []struct {
		in, via, node string
		ok            bool
	}{
		{"cluster:leader ./stalkd -p {port}", "leader", "./stalkd -p {port}", true},
		{"cluster:follower ./stalkd -p {port}", "follower", "./stalkd -p {port}", true},
		{"./stalkd -p {port}", "", "", false},
		{"cluster:leader", "", "", false}, // no node template
	}
	for _, c := range cases {
		via, node, ok := clusterVia(c.in)
		if via != c.via || node != c.node || ok != c.ok {
			t.Errorf("clusterVia(%q) = %q, %q, %v; want %q, %q, %v", c.in, via, node, ok, c.via, c.node, c.ok)
		}
	}
}

func TestStartClusterNeedsPlaceholders(t *testing.T) {
	if _, err := StartServer("cluster:leader ./stalkd -p {port} -b {dir}", nil); err == nil {
		t.Fatal("a cluster template without {id}, {raft} and {peers} was accepted")
	}
}
