package binlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// NamePrefix starts the name of every binlog file: binlog.1, binlog.2, ...
const NamePrefix = "binlog."

// LockName is the file beanstalkd locks (fcntl, F_SETLK) in its -b
// directory for as long as it runs.
const LockName = "lock"

// ParseName reports whether name is a binlog file's, binlog.N with N
// decimal digits, and its number.
func ParseName(name string) (n int, ok bool) {
	digits, found := strings.CutPrefix(name, NamePrefix)
	if !found || digits == "" || len(digits) > 9 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// FileName is the name of binlog file number n.
func FileName(n int) string { return NamePrefix + strconv.Itoa(n) }

// File is one binlog file of a directory, as ReadDir found it.
type File struct {
	N    int
	Path string
	Size int64
	FileResult
}

// Dir is what a beanstalkd -b directory holds, replayed.
type Dir struct {
	Path  string
	Files []File // in ascending order
	// Missing lists the numbers between the lowest and the highest file
	// that have no file (1.12 warns and skips them), at most maxMissing of
	// them; MissingCount counts them all.
	Missing      []int
	MissingCount int
	// Jobs are the live jobs in order of first appearance.
	Jobs []*Job
	// MaxID is the highest job id any record carried.
	MaxID uint64
	// Problems lists every damaged file with the offset where reading
	// stopped, and every unknown version.
	Problems []Problem
	// Ignored counts short records of jobs whose full record was in a file
	// already deleted (normal).
	Ignored int
}

const maxMissing = 100

// Files lists the binlog files of dir (binlog.N, regular files) in
// ascending order, without reading them.
func Files(dir string) ([]File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, e := range ents {
		n, ok := ParseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		files = append(files, File{N: n, Path: filepath.Join(dir, e.Name())})
	}
	sort.Slice(files, func(i, k int) bool { return files[i].N < files[k].N })
	return files, nil
}

// ReadDir reads every binlog file of dir in ascending order and replays
// them as beanstalkd 1.12 does at startup (see Replayer): a number missing
// between the lowest and the highest is skipped, a damaged file is read up
// to the damage, a file of an unknown version is skipped; each is in the
// result, none is an error. maxBody is Replayer.MaxBody. The error is for a
// directory or file that cannot be read at all. ReadDir changes nothing on
// disk.
func ReadDir(dir string, maxBody int64) (*Dir, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	d := &Dir{Path: dir}
	p := NewReplayer()
	p.MaxBody = maxBody
	for i := range files {
		f := &files[i]
		if i > 0 {
			gap := f.N - files[i-1].N - 1
			for m := files[i-1].N + 1; m < f.N && len(d.Missing) < maxMissing; m++ {
				d.Missing = append(d.Missing, m)
			}
			d.MissingCount += gap
		}
		if err := readOne(p, f); err != nil {
			return nil, err
		}
	}
	d.Files, d.Jobs, d.MaxID = files, p.Jobs(), p.MaxID()
	d.Problems, d.Ignored = p.Problems(), p.Ignored()
	return d, nil
}

func readOne(p *Replayer, f *File) error {
	fh, err := os.Open(f.Path)
	if err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	f.Size = info.Size()
	f.FileResult = p.ReadFile(f.Path, f.N, fh, f.Size)
	return nil
}

// LockHolder reports the pid of the process holding beanstalkd's lock on
// dir (an fcntl lock on DIR/lock: a running beanstalkd, or a stalkd, which
// takes the same lock), or 0 when none does or there is no lock file.
func LockHolder(dir string) (int, error) {
	f, err := os.Open(filepath.Join(dir, LockName))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("binlog: %w", err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return 0, fmt.Errorf("binlog: %w", err)
	}
	if lk.Type == syscall.F_UNLCK {
		return 0, nil
	}
	return int(lk.Pid), nil
}
