package raft

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	hraft "github.com/hashicorp/raft"
	raftwal "github.com/hashicorp/raft-wal"
)

// openStores fills in the stores and transport Config did not inject:
// raft-wal for the log and the stable store in DIR/raft/wal, the file
// snapshot store in DIR/raft (snapshots/), and a TCP transport on Addr,
// inside mutual TLS with Config.TLS (tls.go).
func (n *Node) openStores() error {
	c := &n.cfg
	if c.LogStore == nil || c.StableStore == nil {
		dir := filepath.Join(c.Dir, "raft", "wal")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("raft: %w", err)
		}
		w, err := raftwal.Open(dir, raftwal.WithLogger(newHCLogger(n.log)))
		if err != nil {
			return fmt.Errorf("raft: open log %s: %w", dir, err)
		}
		n.closers = append(n.closers, w.Close)
		if c.LogStore == nil {
			c.LogStore = failpointLogs(w)
		}
		if c.StableStore == nil {
			c.StableStore = w
		}
	}
	if c.SnapshotStore == nil {
		s, err := hraft.NewFileSnapshotStoreWithLogger(filepath.Join(c.Dir, "raft"), 2, newHCLogger(n.log))
		if err != nil {
			return fmt.Errorf("raft: snapshot store: %w", err)
		}
		c.SnapshotStore = s
	}
	if c.Transport == nil {
		sl, err := newStreamLayer(c.Addr, c.TLS, n.log)
		if err != nil {
			return err
		}
		t := hraft.NewNetworkTransportWithConfig(&hraft.NetworkTransportConfig{
			Stream: sl, MaxPool: 3, Timeout: 10 * time.Second, Logger: newHCLogger(n.log),
		})
		n.closers = append(n.closers, t.Close)
		c.Transport, n.stream = t, sl
	}
	return nil
}
