package jobs

import (
	"unsafe"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// job is one job, kept small for the common case of a ready job that no one
// has touched yet: 64 bytes. What only a reserved, delayed, buried or once
// moved job needs - its timer, list links, reserver, deadline, delay and
// counters - lives in a jobExt, allocated the first time the job needs it.
//
// Every field but id, tube, body and created is guarded by the lock of the
// job's tube (jobs never change tube). state 0 means the job has been
// deleted.
type job struct {
	id      uint64
	tube    *tube
	created int64
	ttr     int64   // ns, at least one second
	ext     *jobExt // nil until the job is first reserved, delayed or buried
	body    *byte   // the data, bodyLen bytes (setBody, below); immutable
	bodyLen uint32
	pri     uint32
	heapIdx int32 // position in the tube's ready or delayed heap
	state   State
}

// jobExt is the rarely needed part of a job. Guarded by the job's tube lock.
type jobExt struct {
	delay    int64 // ns, of the last put or release
	deadline int64 // reserved: TTR end; delayed: when it becomes ready

	prev, next *job     // links in the tube's buried list or the reserver's list
	reserver   *Session // the session holding the reservation
	timer      wheel.Timer[*job]

	reserves, timeouts, releases, buries, kicks uint32

	// dead is what a dead-lettered job remembers of its move (deadreason.go);
	// nil for every other job. The pointer fits the padding of the
	// extension's 128-byte size class: it costs ordinary jobs nothing.
	dead *DeadLetter
}

// x returns the job's extension, creating it on first use. t.mu held.
func (j *job) x() *jobExt {
	if j.ext == nil {
		j.ext = newExt(j)
	}
	return j.ext
}

// noExt is what a job without an extension reads: zero counters, no delay.
var noExt jobExt

// r returns the job's extension for reading, or the zero one. t.mu held.
func (j *job) r() *jobExt {
	if j.ext == nil {
		return &noExt
	}
	return j.ext
}

// jobOverhead is what a job costs beyond its body (the data alone, exactly
// the bytes held), roughly: the job, its slots in the id index and a heap,
// allocator rounding.
const jobOverhead = 112

// held is what the job counts for in Queue.HeldBytes.
func (j *job) held() int64 { return int64(j.bodyLen) + jobOverhead }

func (j *job) data() JobData { return JobData{ID: j.id, body: j.bytes()} }

// record describes the job's current state for the journal. A reserved job
// is logged as ready: reservations do not survive a restart.
func (j *job) record(kind RecordKind) Record {
	r := Record{Kind: kind, ID: j.id}
	if kind == RecDelete {
		return r
	}
	x := j.r()
	r.State = j.state
	if r.State == Reserved {
		r.State = Ready
	}
	r.Pri, r.Delay, r.TTR = j.pri, durationOf(x.delay), durationOf(j.ttr)
	r.Created = j.created
	if r.State == Delayed {
		r.Deadline = x.deadline
	}
	r.Reserves, r.Timeouts, r.Releases, r.Buries, r.Kicks = x.reserves, x.timeouts, x.releases, x.buries, x.kicks
	if kind == RecPut {
		r.Tube, r.Body, r.Dead = j.tube.name, j.bytes(), x.dead
	}
	return r
}

// jobList is an intrusive FIFO of jobs linked through their extensions'
// prev/next. A job is on at most one list: its tube's buried list or its
// reserver's list; a job on a list has an extension.
type jobList struct {
	head, tail *job
	n          int
}

func (l *jobList) pushBack(j *job) {
	x := j.x()
	x.prev, x.next = l.tail, nil
	if l.tail != nil {
		l.tail.ext.next = j
	} else {
		l.head = j
	}
	l.tail = j
	l.n++
}

func (l *jobList) remove(j *job) {
	x := j.ext
	if x.prev != nil {
		x.prev.ext.next = x.next
	} else {
		l.head = x.next
	}
	if x.next != nil {
		x.next.ext.prev = x.prev
	} else {
		l.tail = x.prev
	}
	x.prev, x.next = nil, nil
	l.n--
}

// The body is the only use of package unsafe in jobs (the architecture
// test allows it in this file and nowhere else). A job keeps its body as a pointer
// and a length instead of a slice: the capacity a slice carries is never
// used, and dropping it and half the length is what brings a ready job from
// an 80-byte to a 64-byte allocation: 16 B per job, 5% of beanstalkd's
// memory per job. unsafe.SliceData and unsafe.Slice are the documented,
// GC-safe conversions: the pointer stays a real pointer, so the body lives
// exactly as long as its job.

// setBody stores b (the job data, at most max-job-size: 1 GiB) in j. An
// empty body keeps no pointer at all: the pointer of an empty slice may
// point into whatever array it was cut from, which the job must not pin.
func (j *job) setBody(b []byte) {
	if len(b) == 0 {
		j.body, j.bodyLen = nil, 0
		return
	}
	j.body, j.bodyLen = unsafe.SliceData(b), uint32(len(b))
}

// bytes returns the body as a slice (capacity = length, so that appending
// to it never writes into the job); never nil.
func (j *job) bytes() []byte {
	if j.body == nil {
		return []byte{}
	}
	return unsafe.Slice(j.body, j.bodyLen)
}
