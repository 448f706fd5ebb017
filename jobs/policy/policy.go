package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/stalkd/stalkd/jobs/internal/cron"
	"github.com/stalkd/stalkd/jobs/internal/tubename"
)

// Policy is what the queue enforces on a tube name, server-side, for every
// client unchanged (POLICIES.md has the fine print and examples). Every field
// is optional; the zero Policy enforces nothing. It applies while the tube
// exists and whenever it is created again. A Policy is a value: the queue
// keeps its own copy, and Policy/Policies hand out copies.
type Policy struct {
	// MaxReserves N: a job reserved N times that is released, or whose TTR
	// runs out, is not made ready again: it moves to DeadLetter (ready
	// there, same id, body and priority, reserve count reset) or, without
	// DeadLetter, is buried. 0: no limit.
	MaxReserves uint32 `json:"max_reserves,omitempty" yaml:"max_reserves,omitempty"`
	// DeadLetter is the tube such jobs move to (needs MaxReserves, or
	// Overflow OverflowDeadLetter).
	DeadLetter string `json:"dead_letter,omitempty" yaml:"dead_letter,omitempty"`
	// MaxReady N: a put while N jobs of the tube are ready or delayed
	// overflows: Overflow says what becomes of it. 0: no limit.
	MaxReady uint32 `json:"max_ready,omitempty" yaml:"max_ready,omitempty"`
	// Overflow is what a put over MaxReady gets (needs MaxReady): refused
	// (OverflowReject, the default, "" or "reject"), stored buried
	// (OverflowBury) or put into DeadLetter (OverflowDeadLetter).
	Overflow Overflow `json:"overflow,omitempty" yaml:"overflow,omitempty"`
	// ReserveRate is how many reserves per second the tube hands out at
	// most: a token bucket holding up to ceil(ReserveRate) tokens. 0: no limit.
	ReserveRate float64 `json:"reserve_rate,omitempty" yaml:"reserve_rate,omitempty"`
	// Schedule lists recurring puts into the tube.
	Schedule []Schedule `json:"schedule,omitempty" yaml:"schedule,omitempty"`
}

// Schedule is one recurring put of a Policy.
//
// Priority and TTR are what the job gets, as given: in Go, set them (a
// zero Priority is the most urgent, a zero TTR is raised to 1 s). In JSON
// (the admin API, --policies, stalkctl) a schedule that leaves them out
// gets DefaultPriority and DefaultTTR, as stalkctl put does, while an
// explicit 0 stays 0 (UnmarshalJSON).
type Schedule struct {
	// Cron is five fields ("*/5 * * * *": minute, hour, day of month,
	// month, day of week; names JAN-DEC and SUN-SAT allowed), a shorthand
	// (@hourly, @daily, @midnight, @weekly, @monthly, @yearly, @annually)
	// or "@every DURATION" ("@every 30s").
	Cron string `json:"cron" yaml:"cron"`
	// TZ is the IANA time zone the five fields are read in ("Europe/Berlin");
	// "" is UTC. @every takes none.
	TZ       string `json:"tz,omitempty" yaml:"tz,omitempty"`
	Body     string `json:"body" yaml:"body"`
	Priority uint32 `json:"priority" yaml:"priority"`
	// TTR in seconds; 0 is raised to 1, as put does.
	TTR uint32 `json:"ttr" yaml:"ttr"`
}

// DefaultPriority and DefaultTTR (seconds) are a schedule's job priority
// and time-to-run when its JSON leaves them out: stalkctl put's defaults.
const (
	DefaultPriority = 1024
	DefaultTTR      = 60
)

// UnmarshalJSON reads a schedule with presence semantics: a priority or
// ttr left out is DefaultPriority or DefaultTTR; one given (0 included) is
// kept. Unknown keys are ignored here (the admin API's DecodePolicy refuses
// them first, naming the field).
func (s *Schedule) UnmarshalJSON(b []byte) error {
	type plain Schedule // no methods: no recursion
	p := plain{Priority: DefaultPriority, TTR: DefaultTTR}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = Schedule(p)
	return nil
}

// Overflow is what a put into a tube at its MaxReady gets. Each mode has
// a protocol reply beanstalkd 1.12 sends to put: OUT_OF_MEMORY, BURIED
// <id>, INSERTED <id>.
type Overflow string

// The overflow modes.
const (
	// OverflowReject refuses the put: nothing is stored (the protocol
	// answers OUT_OF_MEMORY, its "try again later"). The zero Overflow
	// means the same.
	OverflowReject Overflow = "reject"
	// OverflowBury stores the job buried in its tube (BURIED <id>, the
	// protocol's own put reply for a job it could not queue).
	OverflowBury Overflow = "bury"
	// OverflowDeadLetter puts the job into the policy's DeadLetter tube
	// instead (INSERTED <id>).
	OverflowDeadLetter Overflow = "dead_letter"
)

// MaxReserveRate is the highest ReserveRate a policy may ask for.
const MaxReserveRate = 1e6

// MaxScheduleBody is the longest body a schedule may carry, in bytes.
const MaxScheduleBody = 1 << 16

// MaxSchedules is how many schedules one policy may hold.
const MaxSchedules = 64

// Error is a policy the queue refuses (jobs.PolicyError): Field names the
// offending field as in JSON ("max_reserves", "schedule[1].cron", "tube").
// Tube, when set, is the tube whose policy is at fault (CheckSet sets it;
// Validate, which does not know the tube, leaves it empty).
type Error struct {
	Field, Reason string
	Tube          string
}

func (e *Error) Error() string {
	if e.Tube != "" {
		return "policy: tube " + strconv.Quote(e.Tube) + ": " + e.Field + ": " + e.Reason
	}
	return "policy: " + e.Field + ": " + e.Reason
}

// IsZero reports whether p enforces nothing.
func (p Policy) IsZero() bool {
	return p.MaxReserves == 0 && p.DeadLetter == "" && p.MaxReady == 0 && p.Overflow == "" &&
		p.ReserveRate == 0 && len(p.Schedule) == 0
}

// Clone returns a deep copy of p (its Schedule slice is its own).
func (p Policy) Clone() Policy {
	if p.Schedule != nil {
		p.Schedule = append([]Schedule(nil), p.Schedule...)
	}
	return p
}

// Validate reports the first thing wrong with p as an *Error, or nil. It
// does not know the tube p is for: the queue's SetPolicy also refuses a
// policy whose dead-letter tube is the tube itself.
func (p Policy) Validate() error {
	bad := func(field, format string, args ...any) error {
		return &Error{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if p.DeadLetter != "" {
		if !tubename.Valid([]byte(p.DeadLetter)) {
			return bad("dead_letter", "%q is not a valid tube name", p.DeadLetter)
		}
		if p.MaxReserves == 0 && p.Overflow != OverflowDeadLetter {
			return bad("dead_letter", "needs max_reserves (a job goes to the dead-letter tube after max_reserves reserves) or overflow: dead_letter")
		}
	}
	if err := p.validOverflow(); err != nil {
		return err
	}
	r := p.ReserveRate
	if math.IsNaN(r) || r < 0 || r > MaxReserveRate {
		return bad("reserve_rate", "must be from 0 (no limit) to %g reserves per second", float64(MaxReserveRate))
	}
	if len(p.Schedule) > MaxSchedules {
		return bad("schedule", "at most %d schedules", MaxSchedules)
	}
	for i, s := range p.Schedule {
		if _, err := cron.LoadZone(s.TZ); err != nil {
			return bad(fmt.Sprintf("schedule[%d].tz", i), "%v", err)
		}
		if s.TZ != "" && cron.IsEvery(s.Cron) {
			return bad(fmt.Sprintf("schedule[%d].tz", i), "@every counts from its previous time: a time zone does not apply")
		}
		if _, err := cron.ParseIn(s.Cron, s.TZ); err != nil {
			return bad(fmt.Sprintf("schedule[%d].cron", i), "%v", err)
		}
		if len(s.Body) > MaxScheduleBody {
			return bad(fmt.Sprintf("schedule[%d].body", i), "longer than %d bytes", MaxScheduleBody)
		}
	}
	return nil
}

// validOverflow checks Overflow: a known mode, with max_ready, and with a
// dead_letter for OverflowDeadLetter.
func (p Policy) validOverflow() error {
	switch p.Overflow {
	case "":
		return nil
	case OverflowReject, OverflowBury, OverflowDeadLetter:
	default:
		return &Error{Field: "overflow", Reason: fmt.Sprintf("%q is not one of reject, bury, dead_letter", string(p.Overflow))}
	}
	if p.MaxReady == 0 {
		return &Error{Field: "overflow", Reason: "needs max_ready: it says what a put over max_ready gets"}
	}
	if p.Overflow == OverflowDeadLetter && p.DeadLetter == "" {
		return &Error{Field: "overflow", Reason: "dead_letter needs a dead_letter tube to put the job into"}
	}
	return nil
}
