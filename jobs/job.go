package jobs

import "github.com/stalkd/stalkd/jobs/internal/wheel"

// job is one job. Every field but id, tube, body and created is guarded by
// the lock of the job's tube (jobs never change tube). state 0 means the job
// has been deleted.
type job struct {
	id      uint64
	tube    *tube
	body    []byte // data + "\r\n"; immutable
	created int64

	state    State
	pri      uint32
	heapIdx  int32 // position in the tube's ready or delayed heap
	delay    int64 // ns, of the last put or release
	ttr      int64 // ns, at least one second
	deadline int64 // reserved: TTR end; delayed: when it becomes ready

	prev, next *job     // links in the tube's buried list or the reserver's list
	reserver   *Session // the session holding the reservation
	timer      wheel.Timer[*job]

	reserves, timeouts, releases, buries, kicks uint32
}

func (j *job) data() JobData { return JobData{ID: j.id, body: j.body} }

// record describes the job's current state for the journal. A reserved job
// is logged as ready: reservations do not survive a restart.
func (j *job) record(kind RecordKind) Record {
	r := Record{Kind: kind, ID: j.id}
	if kind == RecDelete {
		return r
	}
	r.State = j.state
	if r.State == Reserved {
		r.State = Ready
	}
	r.Pri, r.Delay, r.TTR = j.pri, durationOf(j.delay), durationOf(j.ttr)
	r.Created = j.created
	if r.State == Delayed {
		r.Deadline = j.deadline
	}
	r.Reserves, r.Timeouts, r.Releases, r.Buries, r.Kicks = j.reserves, j.timeouts, j.releases, j.buries, j.kicks
	if kind == RecPut {
		r.Tube, r.Body = j.tube.name, j.body
	}
	return r
}

// jobList is an intrusive FIFO of jobs linked through prev/next. A job is on
// at most one list: its tube's buried list or its reserver's list.
type jobList struct {
	head, tail *job
	n          int
}

func (l *jobList) pushBack(j *job) {
	j.prev, j.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = j
	} else {
		l.head = j
	}
	l.tail = j
	l.n++
}

func (l *jobList) remove(j *job) {
	if j.prev != nil {
		j.prev.next = j.next
	} else {
		l.head = j.next
	}
	if j.next != nil {
		j.next.prev = j.prev
	} else {
		l.tail = j.prev
	}
	j.prev, j.next = nil, nil
	l.n--
}
