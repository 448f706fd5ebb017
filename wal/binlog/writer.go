package binlog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultFileSize is the size at which Writer starts the next file: that of
// beanstalkd's -s default.
const DefaultFileSize = 10 << 20

// Writer writes version-7 binlog files, binlog.1 onwards, into a directory,
// for beanstalkd 1.12 to load: one full record per job, and short records
// for deletes. Files are created mode 0400 as beanstalkd creates them, and
// hold no preallocated zero tail (1.12 reads up to the end of a file just
// as well). A Writer is used by one goroutine.
type Writer struct {
	dir      string
	fileSize int64
	n        int
	f        *os.File
	size     int64
	buf      []byte
	files    []string
}

// ErrNotEmpty is returned by NewWriter when the directory already holds
// binlog files.
var ErrNotEmpty = errors.New("binlog: the directory already holds binlog files")

// NewWriter starts writing into dir, which must exist and hold no binlog
// file. fileSize is the size after which the next record starts a new file
// (zero: DefaultFileSize; a record larger than that is written alone).
func NewWriter(dir string, fileSize int64) (*Writer, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, fmt.Errorf("binlog: %w", err)
	}
	if len(files) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotEmpty, files[0].Path)
	}
	if fileSize <= 0 {
		fileSize = DefaultFileSize
	}
	return &Writer{dir: dir, fileSize: fileSize}, nil
}

// Put writes a full record of job r in tube (1..MaxTubeName bytes) with
// body, which is stored as given: it must end in "\r\n" for beanstalkd to
// serve it as a client sent it. r.BodySize is set from body.
func (w *Writer) Put(tube string, r Rec, body []byte) error {
	if len(tube) == 0 || len(tube) > MaxTubeName {
		return fmt.Errorf("binlog: job %d: tube name of %d bytes (1..%d)", r.ID, len(tube), MaxTubeName)
	}
	if r.ID == 0 || int64(len(body)) > 1<<31-1 {
		return fmt.Errorf("binlog: job %d: id 0 or body too large", r.ID)
	}
	r.BodySize = int32(len(body))
	w.buf = AppendFull(w.buf[:0], tube, &r, body)
	return w.write(w.buf)
}

// Delete writes a short record with state Invalid: job id is gone.
func (w *Writer) Delete(id uint64) error {
	w.buf = AppendShort(w.buf[:0], &Rec{ID: id, State: Invalid})
	return w.write(w.buf)
}

func (w *Writer) write(rec []byte) error {
	if w.f == nil || (w.size > 4 && w.size+int64(len(rec)) > w.fileSize) {
		if err := w.next(); err != nil {
			return err
		}
	}
	n, err := w.f.Write(rec)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("binlog: write %s: %w", w.f.Name(), err)
	}
	return nil
}

// next closes the current file (fsynced) and creates the next one.
func (w *Writer) next() error {
	if err := w.closeFile(); err != nil {
		return err
	}
	w.n++
	path := filepath.Join(w.dir, FileName(w.n))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o400)
	if err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	w.f, w.size = f, 0
	w.files = append(w.files, path)
	hdr := AppendHeader(nil, Version7)
	n, err := f.Write(hdr)
	w.size += int64(n)
	if err != nil {
		return fmt.Errorf("binlog: write %s: %w", path, err)
	}
	return nil
}

func (w *Writer) closeFile() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("binlog: %s: %w", f.Name(), err)
	}
	return nil
}

// Close finishes the last file and fsyncs it and the directory; a Writer
// that wrote nothing writes one empty file (a header only), which
// beanstalkd loads as no jobs. It returns the files written.
func (w *Writer) Close() ([]string, error) {
	if w.f == nil && len(w.files) == 0 {
		if err := w.next(); err != nil {
			return nil, err
		}
	}
	if err := w.closeFile(); err != nil {
		return w.files, err
	}
	d, err := os.Open(w.dir)
	if err != nil {
		return w.files, fmt.Errorf("binlog: %w", err)
	}
	err = d.Sync()
	d.Close()
	if err != nil {
		return w.files, fmt.Errorf("binlog: sync %s: %w", w.dir, err)
	}
	return w.files, nil
}
