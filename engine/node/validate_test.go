package node_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/wal/raft"
)

// TestValidate: the rules of what goes together, each refusal a
// *ConfigError naming the fields in the caller's words (Names) or by
// their own names; Start refuses the same Config before binding anything.
func TestValidate(t *testing.T) {
	q, err := embed.Open(embed.Options{})
	require.NoError(t, err)
	defer q.Close()
	flags := func(f string) string {
		return map[string]string{"Cluster.ID": "--raft-id", "Cluster.Addr": "--raft-addr"}[f]
	}
	for _, tc := range []struct {
		name string
		cfg  node.Config
		want string // "" : valid
	}{
		{"zero", node.Config{}, ""},
		{"tls files without a tls port", node.Config{TLS: node.TLSFiles{Cert: "c"}},
			"TLS.Cert, TLS.Key and TLS.ClientCA need Engine.TLSAddr"},
		{"tls port without files", node.Config{Engine: engine.Config{TLSAddr: "127.0.0.1:0"}},
			"Engine.TLSAddr needs TLS.Cert and TLS.Key"},
		{"no listener", node.Config{Engine: engine.Config{Addr: engine.NoPlainListener}},
			"Engine.Addr none turns the plain listener off: it needs Engine.TLSAddr"},
		{"queue and journal", node.Config{Queue: q, Journal: node.Journal{Dir: "/tmp"}},
			"Queue is served as it was opened: Journal must be zero with it"},
		{"cluster without an address", node.Config{Cluster: node.Cluster{ID: "n1"}}, "Cluster.ID needs Cluster.Addr"},
		{"cluster without an address, flags", node.Config{Cluster: node.Cluster{ID: "n1"}, Names: flags}, "--raft-id needs --raft-addr"},
		{"cluster without a directory", node.Config{Cluster: node.Cluster{ID: "n1", Addr: "127.0.0.1:0"}},
			"cluster mode needs Journal.Dir, a directory for the raft log and snapshots"},
		{"peers without a cluster", node.Config{Cluster: node.Cluster{Peers: []raft.Peer{{ID: "n1"}}}},
			"Cluster.Addr, Cluster.Peers and Cluster.Timeout need Cluster.ID"},
		{"half the node tls", node.Config{Journal: node.Journal{Dir: "/tmp"},
			Cluster: node.Cluster{ID: "n1", Addr: "127.0.0.1:0", TLS: node.NodeTLSFiles{Cert: "c", Key: "k"}}},
			"node TLS needs all of Cluster.TLS.Cert, Cluster.TLS.Key and Cluster.TLS.CA: Cluster.TLS.CA is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ce *node.ConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Equal(t, tc.want, ce.Error())
			_, err = node.Start(context.Background(), tc.cfg)
			assert.True(t, errors.As(err, &ce), "Start refuses it too: %v", err)
		})
	}
}
