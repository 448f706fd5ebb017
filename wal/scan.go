package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"
)

// ErrCorrupt is wrapped by the error Open returns when the log is damaged
// anywhere but its torn tail (the message names the file and offset).
var ErrCorrupt = errors.New("wal: corrupt log")

var errFraming = errors.New("malformed or truncated entry length")

// resyncBudget bounds the bytes checksummed while looking for the next valid
// entry after a damaged one, so a hostile file cannot make Open quadratic.
const resyncBudget = 256 << 20

// problem is damage in the middle of the log.
type problem struct {
	path   string
	offset int
	index  uint64 // 0 when unknown (after earlier damage in the same file)
	err    error
}

func (p problem) String() string {
	if p.offset < 0 {
		return fmt.Sprintf("%s: %v", p.path, p.err)
	}
	return fmt.Sprintf("%s offset %d (entry %d): %v", p.path, p.offset, p.index, p.err)
}

// tornTail is the unfinished end of the last segment, cut off by a crash.
type tornTail struct {
	path    string
	offset  int    // where the first incomplete or damaged entry starts
	index   uint64 // its wal index
	dropped int    // bytes from offset to the end of the file
}

// scan reads every segment once, in order, verifying each entry and folding
// it into img. Only Open's goroutine uses it.
type scan struct {
	salvage  bool
	log      zerolog.Logger
	img      *image
	problems []problem
	torn     *tornTail
	// unwritten are empty segment files after a gap at the end of the log
	// (see run): created, their names made durable, before the end of the
	// segment before them was.
	unwritten []segFile
	next      uint64 // index the next entry must have; 0 once unknown
	buf       []byte
	budget    int64
}

func newScan(salvage bool, log zerolog.Logger) *scan {
	return &scan{salvage: salvage, log: log, img: newImage(), budget: resyncBudget}
}

// run scans files. Without salvage it stops at the first damage that is not
// a torn tail and returns an error wrapping ErrCorrupt.
//
// The empty segment files at the end of the log do not count as its last
// segment: a crash can leave the name of a new segment durable (the
// directory's fsync, or the file system's own journal commit) while the
// end of the segment before it was not, and the writers never wait for the
// previous segment's fsync to start a new one. A gap before such files is
// that segment's torn tail, and the files are unwritten (kept() leaves
// them out; Open deletes them). If the manifest names one of them as the
// last segment, checkEnd still calls it damage: the entries before it were
// then fsynced.
func (s *scan) run(files []segFile) error {
	lastData := len(files) - 1
	for lastData > 0 && files[lastData].size == 0 {
		lastData--
	}
	for i, f := range files {
		if i > lastData && s.next != 0 && f.start != s.next {
			s.unwritten = files[i:]
			return nil
		}
		if i > 0 && s.next != 0 && f.start != s.next {
			err := fmt.Errorf("segment starts at entry %d but the previous one ends before entry %d (a segment file is missing or damaged)", f.start, s.next)
			if perr := s.damage(problem{path: f.path, index: f.start, err: err}); perr != nil {
				return perr
			}
		}
		s.next = f.start
		if err := s.segment(f, i >= lastData); err != nil {
			return err
		}
	}
	if len(files) > 0 && files[0].start > max(s.img.logStart, 1) {
		err := fmt.Errorf("log starts at entry %d but must hold entry %d onwards (the first segment files are missing)", files[0].start, max(s.img.logStart, 1))
		if perr := s.damage(problem{path: files[0].path, index: files[0].start, err: err}); perr != nil {
			return perr
		}
	}
	return nil
}

// kept is files without the unwritten ones run found.
func (s *scan) kept(files []segFile) []segFile {
	return files[:len(files)-len(s.unwritten)]
}

// checkEnd compares where the scan ended with what the manifest (nil: none)
// says the log holds: a last segment file deleted, truncated or emptied is
// damage, not a torn tail.
func (s *scan) checkEnd(dir string, files []segFile, man *manifest) error {
	if man == nil {
		return nil
	}
	missing := segmentPath(dir, man.last)
	if len(files) == 0 {
		err := fmt.Errorf("the manifest says the log's last segment starts at entry %d, but no segment file exists (deleted?)", man.last)
		return s.damage(problem{path: missing, offset: -1, index: man.last, err: err})
	}
	if tail := files[len(files)-1]; tail.start < man.last {
		err := fmt.Errorf("the manifest says the log's last segment starts at entry %d, but the newest segment file starts at entry %d (the last segment file was deleted)", man.last, tail.start)
		return s.damage(problem{path: missing, offset: -1, index: man.last, err: err})
	}
	if s.next == 0 || s.next-1 >= man.lastHolds {
		return nil // unknown after earlier damage, or whole
	}
	path := missing
	for _, f := range files {
		if f.start <= man.lastHolds {
			path = f.path
		}
	}
	err := fmt.Errorf("the log ends after entry %d but held entry %d, fsynced (the last segment file was truncated or emptied)", s.next-1, man.lastHolds)
	return s.damage(problem{path: path, offset: -1, index: s.next, err: err})
}

// damage records p: an error without salvage, a loud log line with it.
func (s *scan) damage(p problem) error {
	if !s.salvage {
		return fmt.Errorf("%w: %s; refusing to start (the salvage option starts with what is readable)", ErrCorrupt, p)
	}
	s.log.Error().Str("damage", p.String()).Msg("corrupt log, salvaging what is readable: deleted jobs may come back and others may be lost")
	s.problems = append(s.problems, p)
	return nil
}

// segment scans one file. Damage in the last segment that no later meta
// proves was once durable is the torn tail; anything else is a problem.
func (s *scan) segment(f segFile, last bool) error {
	data, err := s.read(f.path)
	if err != nil {
		return fmt.Errorf("wal: read %s: %w", f.path, err)
	}
	idx := s.next
	var e decoded
	for off := 0; off < len(data); {
		ent, n, ferr := frame(data[off:])
		if ferr == nil {
			ferr = e.decode(ent)
		}
		if ferr == nil {
			s.img.apply(&e, idx, n)
			off += n
			if idx != 0 {
				idx++
			}
			continue
		}
		resume := s.resync(data, off+1)
		if last && !s.durableAfter(data, resume, idx) {
			s.torn = &tornTail{path: f.path, offset: off, index: idx, dropped: len(data) - off}
			s.next = idx
			return nil
		}
		if err := s.damage(problem{path: f.path, offset: off, index: idx, err: ferr}); err != nil {
			return err
		}
		off, idx = resume, 0 // entries after damage have unknown indexes
	}
	s.next = idx
	return nil
}

// frame splits the tidwall/wal entry at the start of b: a uvarint length and
// that many bytes. n is the whole entry's size.
func frame(b []byte) (ent []byte, n int, err error) {
	size, k := binary.Uvarint(b)
	if k <= 0 || size > uint64(len(b)-k) {
		return nil, 0, errFraming
	}
	return b[k : k+int(size)], k + int(size), nil
}

// resync returns the offset of the next entry at or after from that frames
// and checksums correctly, or len(data).
func (s *scan) resync(data []byte, from int) int {
	var e decoded
	for p := from; p < len(data); p++ {
		size, n := binary.Uvarint(data[p:])
		if n <= 0 || size < crcLen+2 || size > uint64(len(data)-p-n) {
			continue
		}
		switch data[p+n+crcLen] {
		case kindPut, kindUpdate, kindDelete, kindClear, kindMeta: // the format's kinds
		default:
			continue
		}
		if s.budget < int64(size) {
			return len(data)
		}
		s.budget -= int64(size)
		if e.decode(data[p+n:p+n+int(size)]) == nil {
			return p
		}
	}
	return len(data)
}

// durableAfter reports whether a valid meta at or after from says entry bad
// had already been fsynced: then its damage is corruption, not a torn write.
func (s *scan) durableAfter(data []byte, from int, bad uint64) bool {
	if bad == 0 {
		return true // index unknown: earlier damage already in this file
	}
	var e decoded
	for off := from; off < len(data); {
		ent, n, err := frame(data[off:])
		if err == nil {
			err = e.decode(ent)
		}
		if err != nil {
			off = s.resync(data, off+1)
			continue
		}
		if e.isMeta && e.meta.durable >= bad {
			return true
		}
		off += n
	}
	return false
}

func (s *scan) read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	n := int(info.Size())
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	s.buf = s.buf[:n]
	if _, err := io.ReadFull(f, s.buf); err != nil {
		return nil, err
	}
	return s.buf, nil
}
