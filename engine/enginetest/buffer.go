package enginetest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for concurrent writers (a server's event
// loops logging, a child's output) and a polling reader.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
