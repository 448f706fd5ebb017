package model

import (
	"fmt"
	"strings"
)

// Kind is an operation of the model: a beanstalk command, or a connection's
// close.
type Kind uint8

// The operations.
const (
	Put Kind = iota + 1
	Reserve
	Delete
	Release
	Bury
	Touch
	Kick
	KickJob
	Peek
	PeekReady
	PeekDelayed
	PeekBuried
	StatsJob
	Close
	// Restore is a queue rebuilt from its log: a single node's restart, a
	// cluster's new leader. Buried jobs then come back in the order they
	// were put (id order), as beanstalkd's do after a restart; the runner
	// records one around each restore it sees in a node's log.
	Restore
)

var kindNames = [...]string{"?", "put", "reserve", "delete", "release", "bury", "touch", "kick", "kick-job",
	"peek", "peek-ready", "peek-delayed", "peek-buried", "stats-job", "close", "restore"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Input is one operation as a client sent it. Tubes are numbered within
// their group (the runner maps names to numbers); jobs are numbered by the
// put that made them (Job), which the put's body names.
//
// Inputs are values: the checker never changes one.
type Input struct {
	Kind    Kind
	Group   int    // the partition: tubes and ids of one group only
	Session int    // the connection, unique in the history (never 0)
	Tube    int    // put, kick, peek-ready/-delayed/-buried: the used tube
	Watch   uint32 // reserve: bit t set for each watched tube t
	Job     int    // put: the job its body names
	ID      uint64 // delete, release, bury, touch, kick-job, peek, stats-job
	Pri     uint32 // put, release, bury
	Delayed bool   // put, release: with a delay longer than the history
	Count   int    // kick: at most this many
	Timeout int    // reserve: seconds of reserve-with-timeout, -1 for reserve
}

// Word is a reply's first word.
type Word uint8

// The replies the model knows. Anything else a client hears is either an
// outcome not known (Output.Unknown) or a violation the runner reports
// before checking.
const (
	Inserted Word = iota + 1
	Reserved
	TimedOut
	Deleted
	Released
	Buried
	Touched
	Kicked
	Found
	NotFound
	OK
	DeadlineSoon
)

var wordNames = [...]string{"?", "INSERTED", "RESERVED", "TIMED_OUT", "DELETED", "RELEASED", "BURIED", "TOUCHED",
	"KICKED", "FOUND", "NOT_FOUND", "OK", "DEADLINE_SOON"}

func (w Word) String() string {
	if int(w) < len(wordNames) {
		return wordNames[w]
	}
	return fmt.Sprintf("word(%d)", w)
}

// Output is what the client heard.
type Output struct {
	// Unknown: no reply, or one that does not tell whether the command
	// took effect. The other fields are then unset.
	Unknown bool
	Word    Word
	ID      uint64    // INSERTED, RESERVED, FOUND
	Job     int       // RESERVED, FOUND: the job the body names; -1 for a body of no put of this history
	Count   int       // KICKED n
	Stats   *JobStats // stats-job's OK
}

// JobStats are the fields of a stats-job document the model predicts.
type JobStats struct {
	Tube                                        int
	State                                       State
	Pri                                         uint32
	Reserves, Releases, Buries, Kicks, Timeouts uint32
}

// State is a job's state.
type State uint8

// The states.
const (
	Ready State = iota + 1
	ReservedState
	Delayed
	BuriedState
)

var stateNames = [...]string{"?", "ready", "reserved", "delayed", "buried"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", s)
}

// ParseState reads stats-job's state field; 0 if it is none of the four.
func ParseState(s string) State {
	for i, n := range stateNames {
		if i > 0 && n == s {
			return State(i)
		}
	}
	return 0
}

// Describe renders an operation for reports: "s3 reserve [t0 t1] -> RESERVED 7 (j12)".
func Describe(in Input, out Output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "s%d %s", in.Session, in.Kind)
	switch in.Kind {
	case Put:
		fmt.Fprintf(&b, " t%d pri=%d j%d", in.Tube, in.Pri, in.Job)
		if in.Delayed {
			b.WriteString(" delayed")
		}
	case Reserve:
		fmt.Fprintf(&b, " watch=%b timeout=%d", in.Watch, in.Timeout)
	case Release:
		fmt.Fprintf(&b, " %d pri=%d", in.ID, in.Pri)
		if in.Delayed {
			b.WriteString(" delayed")
		}
	case Bury:
		fmt.Fprintf(&b, " %d pri=%d", in.ID, in.Pri)
	case Kick:
		fmt.Fprintf(&b, " t%d %d", in.Tube, in.Count)
	case PeekReady, PeekDelayed, PeekBuried:
		fmt.Fprintf(&b, " t%d", in.Tube)
	case Close, Restore:
	default:
		fmt.Fprintf(&b, " %d", in.ID)
	}
	b.WriteString(" -> ")
	if out.Unknown {
		b.WriteString("unknown")
		return b.String()
	}
	b.WriteString(out.Word.String())
	switch out.Word {
	case Inserted:
		fmt.Fprintf(&b, " %d", out.ID)
	case Reserved, Found:
		fmt.Fprintf(&b, " %d (j%d)", out.ID, out.Job)
	case Kicked:
		if in.Kind == Kick {
			fmt.Fprintf(&b, " %d", out.Count)
		}
	case OK:
		if s := out.Stats; s != nil {
			fmt.Fprintf(&b, " t%d %s pri=%d r%d rel%d b%d k%d to%d", s.Tube, s.State, s.Pri,
				s.Reserves, s.Releases, s.Buries, s.Kicks, s.Timeouts)
		}
	}
	return b.String()
}
