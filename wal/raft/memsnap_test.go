package raft

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	hraft "github.com/hashicorp/raft"
)

// memSnapshots is an in-memory snapshot store for tests. Unlike
// hashicorp/raft's InmemSnapshotStore, which makes a snapshot the latest
// when it is created, so that a follower being sent one while the next is
// written reads a buffer under construction (a data race, and a partial
// snapshot), it publishes a snapshot only when its sink is closed.
type memSnapshots struct {
	mu     sync.Mutex
	latest *memSnapshot // nil: none yet
}

type memSnapshot struct {
	meta hraft.SnapshotMeta
	data []byte
}

func newMemSnapshots() *memSnapshots { return &memSnapshots{} }

func (m *memSnapshots) Create(version hraft.SnapshotVersion, index, term uint64, cfg hraft.Configuration,
	cfgIndex uint64, _ hraft.Transport) (hraft.SnapshotSink, error) {
	if version != 1 {
		return nil, fmt.Errorf("unsupported snapshot version %d", version)
	}
	meta := hraft.SnapshotMeta{Version: version, ID: fmt.Sprintf("%d-%d", term, index), Index: index, Term: term,
		Configuration: cfg, ConfigurationIndex: cfgIndex}
	return &memSnapSink{store: m, meta: meta}, nil
}

func (m *memSnapshots) List() ([]*hraft.SnapshotMeta, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.latest == nil {
		return nil, nil
	}
	meta := m.latest.meta
	return []*hraft.SnapshotMeta{&meta}, nil
}

func (m *memSnapshots) Open(id string) (*hraft.SnapshotMeta, io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.latest == nil || m.latest.meta.ID != id {
		return nil, nil, fmt.Errorf("snapshot %s not found", id)
	}
	meta := m.latest.meta
	return &meta, io.NopCloser(bytes.NewReader(m.latest.data)), nil // data is never written again
}

// memSnapSink collects a snapshot; Close publishes it.
type memSnapSink struct {
	store *memSnapshots
	meta  hraft.SnapshotMeta
	buf   bytes.Buffer
}

func (s *memSnapSink) Write(p []byte) (int, error) { return s.buf.Write(p) }
func (s *memSnapSink) ID() string                  { return s.meta.ID }
func (s *memSnapSink) Cancel() error               { return nil }

func (s *memSnapSink) Close() error {
	s.meta.Size = int64(s.buf.Len())
	s.store.mu.Lock()
	s.store.latest = &memSnapshot{meta: s.meta, data: s.buf.Bytes()}
	s.store.mu.Unlock()
	return nil
}
