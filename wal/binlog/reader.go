package binlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// Job is a job the binlog holds once replayed: its latest Jobrec, its tube
// and its body.
type Job struct {
	Rec
	// Tube is the tube of the job's first full record (a later full record
	// of the same job, written by compaction, does not change it: 1.12
	// keeps the tube it made the job in).
	Tube string
	// Body is the job's body as stored: the client's data and its "\r\n"
	// (Rec.BodySize bytes when the files are sound).
	Body []byte
	// File is the number N of the binlog.N holding the job's latest full
	// record (what stats-job calls "file").
	File int

	pos int // index in Replayer.order
}

// Problem is damage: where reading a file stopped, and why.
type Problem struct {
	Path   string
	Offset int64 // of the record (or header) that could not be read
	Err    string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Path, p.Offset, p.Err) }

// FileResult is what reading one file found.
type FileResult struct {
	Version int // the header's version; 0 when the file is too short to have one
	Records int // records read, up to the zero tail or the damage
	Problem *Problem
}

// Replayer folds binlog files, read in ascending order, into the set of
// live jobs, exactly as beanstalkd 1.12 does at startup (file.c, readrec):
//
//   - a full record of an unknown id makes the job; of a known id it
//     replaces the job's Jobrec and body (compaction moved it);
//   - a short record replaces the Jobrec of a known job; of an unknown id
//     it is ignored (its full record was in a file already deleted);
//   - state Invalid deletes the job; Reserved is read as Ready;
//   - a record whose id is 0 ends the file (the preallocated zero tail), and
//     so does a file ending inside a record's name length;
//   - anything else unreadable (a name length over 200 or negative, a file
//     ending inside a name, a Jobrec or a body, an unknown state, a
//     negative body size, a new job bigger than MaxBody) abandons the rest
//     of the file: the job whose record was damaged is dropped, the other
//     jobs read so far are kept, and the Problem names the file and the
//     offset of the record.
//
// Where 1.12 would corrupt its memory (a second full record whose body
// size differs from the first), the Replayer takes the new body. It trusts
// nothing: no input makes it panic, and it allocates nothing before the
// file has shown it holds the bytes (a body is allocated only when the
// rest of the file is at least that long).
//
// A Replayer is used by one goroutine.
type Replayer struct {
	// MaxBody, if positive, is 1.12's -z check: a full record of a new job
	// whose body (CRLF included) is longer is damage. Zero: no limit but
	// the file's size.
	MaxBody int64

	jobs     map[uint64]*Job
	order    []*Job // in order of first appearance; nil where a job died
	live     int
	maxID    uint64 // highest id any record carried
	problems []Problem
	tubes    map[string]string
	ignored  int // short records of unknown jobs
}

// NewReplayer returns an empty Replayer.
func NewReplayer() *Replayer {
	return &Replayer{jobs: make(map[uint64]*Job), tubes: make(map[string]string)}
}

// errStop ends a file without damage (end of file, zero tail).
var errStop = errors.New("end of records")

// fileReader reads one file, counting the offset and the bytes left.
type fileReader struct {
	br   *bufio.Reader
	off  int64
	size int64
	buf  [8 + MaxTubeName + RecSize]byte
}

// full reads n bytes or reports how many it got.
func (f *fileReader) full(p []byte) (int, error) {
	n, err := io.ReadFull(f.br, p)
	f.off += int64(n)
	return n, err
}

func (f *fileReader) left() int64 { return f.size - f.off }

// ReadFile reads one file, binlog.N at path, of size bytes, from r. Damage
// is not an error: it is in the result's Problem (and Problems). The error
// is an I/O error of r other than a short read, which is damage too.
func (p *Replayer) ReadFile(path string, n int, r io.Reader, size int64) FileResult {
	f := &fileReader{br: bufio.NewReaderSize(r, 64<<10), size: size}
	var res FileResult
	var hdr [4]byte
	if got, err := f.full(hdr[:]); err != nil {
		res.Problem = p.damage(path, 0, fmt.Sprintf("unexpected EOF reading 4 bytes (got %d): version", got))
		return res
	}
	res.Version = int(int32(ne.Uint32(hdr[:])))
	if res.Version != Version7 && res.Version != Version5 {
		res.Problem = p.damage(path, 0, fmt.Sprintf("unknown version: %d", res.Version))
		return res
	}
	for {
		start := f.off
		err := p.record(f, n, res.Version)
		if err == errStop {
			return res
		}
		if err != nil {
			res.Problem = p.damage(path, start, err.Error())
			return res
		}
		res.Records++
	}
}

func (p *Replayer) damage(path string, off int64, msg string) *Problem {
	pr := Problem{Path: path, Offset: off, Err: msg}
	p.problems = append(p.problems, pr)
	return &pr
}

// record reads one record and applies it (readrec and readrec5).
func (p *Replayer) record(f *fileReader, fileN, version int) error {
	lenSize, recSize := 4, RecSize
	if version == Version5 {
		lenSize, recSize = 8, rec5Size
	}
	b := f.buf[:lenSize]
	if _, err := f.full(b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errStop // 1.12: a short read of the name length ends the file quietly
		}
		return fmt.Errorf("read error: %v", err)
	}
	var namelen int64
	if version == Version5 {
		u := ne.Uint64(b)
		if u > MaxTubeName {
			return fmt.Errorf("namelen %d exceeds maximum of %d", u, MaxTubeName)
		}
		namelen = int64(u)
	} else {
		namelen = int64(int32(ne.Uint32(b)))
		if namelen > MaxTubeName {
			return fmt.Errorf("namelen %d exceeds maximum of %d", namelen, MaxTubeName)
		}
		if namelen < 0 {
			return fmt.Errorf("namelen %d is negative", namelen)
		}
	}
	name := f.buf[lenSize : lenSize+int(namelen)]
	if got, err := f.full(name); err != nil {
		return fmt.Errorf("unexpected EOF reading %d bytes (got %d): tube name", namelen, got)
	}
	rb := f.buf[lenSize+int(namelen) : lenSize+int(namelen)+recSize]
	if got, err := f.full(rb); err != nil {
		return fmt.Errorf("unexpected EOF reading %d bytes (got %d): job struct", recSize, got)
	}
	var full [RecSize]byte
	copy(full[:], rb)
	jr := decodeRec(full[:], version)
	if jr.ID == 0 {
		return errStop // the zero tail
	}
	p.maxID = max(p.maxID, jr.ID)
	j := p.jobs[jr.ID]
	if j == nil && namelen == 0 {
		p.ignored++
		return nil
	}
	switch jr.State {
	case Reserved, Ready, Buried, Delayed:
	case Invalid:
		if j != nil {
			p.remove(j)
		}
		return nil
	default:
		if j != nil {
			p.remove(j)
		}
		return fmt.Errorf("job %d: unknown state %d", jr.ID, jr.State)
	}
	if jr.State == Reserved {
		jr.State = Ready
	}
	if j == nil {
		if jr.BodySize < 0 || (p.MaxBody > 0 && int64(jr.BodySize) > p.MaxBody) {
			return fmt.Errorf("job %d is too big (%d > %d)", jr.ID, jr.BodySize, p.MaxBody)
		}
		j = &Job{Tube: p.intern(name), pos: len(p.order)}
		p.jobs[jr.ID] = j
		p.order = append(p.order, j)
		p.live++
	}
	body := j.Body
	j.Rec = jr
	if namelen == 0 {
		j.Rec.BodySize = int32(len(body)) // the body stays; 1.12 would trust the new size
		return nil
	}
	if jr.BodySize < 0 || int64(jr.BodySize) > f.left() {
		got := max(f.left(), 0)
		p.remove(j)
		return fmt.Errorf("unexpected EOF reading %d bytes (got %d): job body", jr.BodySize, got)
	}
	body = make([]byte, jr.BodySize)
	if got, err := f.full(body); err != nil {
		p.remove(j)
		return fmt.Errorf("unexpected EOF reading %d bytes (got %d): job body", jr.BodySize, got)
	}
	j.Body, j.File = body, fileN
	return nil
}

func (p *Replayer) remove(j *Job) {
	delete(p.jobs, j.ID)
	p.order[j.pos] = nil
	p.live--
}

func (p *Replayer) intern(b []byte) string {
	if s, ok := p.tubes[string(b)]; ok {
		return s
	}
	s := string(b)
	p.tubes[s] = s
	return s
}

// Jobs returns the live jobs in order of first appearance, the order 1.12
// replays them in (which keeps each tube's buried jobs in order). The jobs
// belong to the Replayer's caller; reading more files may change them.
func (p *Replayer) Jobs() []*Job {
	out := make([]*Job, 0, p.live)
	for _, j := range p.order {
		if j != nil {
			out = append(out, j)
		}
	}
	return out
}

// Len is the number of live jobs.
func (p *Replayer) Len() int { return p.live }

// MaxID is the highest job id any record carried (0 if none): ids handed
// out after an import must be above it.
func (p *Replayer) MaxID() uint64 { return p.maxID }

// Problems lists the damage found so far, in reading order.
func (p *Replayer) Problems() []Problem { return p.problems }

// Ignored counts short records of jobs the files no longer hold (their full
// record was in a file compaction had deleted): normal, and skipped.
func (p *Replayer) Ignored() int { return p.ignored }

// Restarted is the Jobrec 1.12 holds for the job once it has replayed it at
// startup at time now (Unix ns; prot.c, prot_replay): a buried job is
// buried again, which counts one more bury; a delayed job whose deadline
// has passed is ready; a delayed one keeps its absolute deadline; every
// other job is ready.
func (j *Job) Restarted(now int64) Rec {
	r := j.Rec
	switch {
	case r.State == Buried:
		r.Buries++
	case r.State == Delayed && now < r.Deadline:
	default:
		r.State = Ready
	}
	return r
}

// ForRestart is the inverse of Restarted for a job a server shows with
// Jobrec r: the record to write so that 1.12, once it has replayed it,
// shows r again. A buried job is written with one bury less (1.12 counts
// one more when it buries it again at startup); nothing else changes.
func ForRestart(r Rec) Rec {
	if r.State == Buried && r.Buries > 0 {
		r.Buries--
	}
	return r
}
