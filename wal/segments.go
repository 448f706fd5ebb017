package wal

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// segFile is a segment file found on disk.
type segFile struct {
	start uint64 // index of its first entry (its name)
	path  string
	size  int64
}

// listSegments returns the segment files of dir in index order, and whether
// tidwall/wal left a truncation half done (a .START or .END file).
func listSegments(dir string) (segs []segFile, interrupted bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, fmt.Errorf("wal: %w", err)
	}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || len(name) < 20 {
			continue
		}
		start, perr := strconv.ParseUint(name[:20], 10, 64)
		if perr != nil || start == 0 {
			continue
		}
		switch {
		case len(name) == 20:
			info, err := e.Info()
			if err != nil {
				return nil, false, fmt.Errorf("wal: %w", err)
			}
			segs = append(segs, segFile{start: start, path: filepath.Join(dir, name), size: info.Size()})
		case strings.HasSuffix(name, ".START") || strings.HasSuffix(name, ".END"):
			interrupted = true
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].start < segs[j].start })
	return segs, interrupted, nil
}

// segment is the journal's picture of one segment: where it starts and how
// many bytes it holds. The writer keeps the picture current as it writes
// and starts segments; a front truncation replaces the first ones.
type segment struct {
	start uint64
	bytes int64
}

func segmentsOf(files []segFile) []segment {
	segs := make([]segment, len(files))
	for i, f := range files {
		segs[i] = segment{start: f.start, bytes: f.size}
	}
	return segs
}

// segList is the ordered segments of the log; the last one is the tail the
// writer appends to. Guarded by Log.mu.
type segList struct {
	segs  []segment
	total int64 // sum of bytes
	size  int64 // the segment size: the writer starts a new segment before
	// an entry when the tail holds this many bytes or more
}

func (s *segList) reset(segs []segment) {
	s.segs, s.total = segs, 0
	for _, g := range segs {
		s.total += g.bytes
	}
}

func (s *segList) tail() segment { return s.segs[len(s.segs)-1] }

// advance notes n bytes appended to the tail.
func (s *segList) advance(n int) {
	s.segs[len(s.segs)-1].bytes += int64(n)
	s.total += int64(n)
}

// rotate notes a new, empty tail segment whose first entry is first.
func (s *segList) rotate(first uint64) {
	s.segs = append(s.segs, segment{start: first})
}

// find returns the start of the segment holding index.
func (s *segList) find(index uint64) uint64 {
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].start > index })
	if i == 0 {
		return 0
	}
	return s.segs[i-1].start
}
