package policy

import (
	"encoding/json"
	"fmt"
	"math"

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
	// DeadLetter is the tube such jobs move to (needs MaxReserves).
	DeadLetter string `json:"dead_letter,omitempty" yaml:"dead_letter,omitempty"`
	// MaxReady N: a put while N jobs of the tube are ready or delayed is
	// refused with ErrQueueFull. 0: no limit.
	MaxReady uint32 `json:"max_ready,omitempty" yaml:"max_ready,omitempty"`
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

// MaxReserveRate is the highest ReserveRate a policy may ask for.
const MaxReserveRate = 1e6

// MaxScheduleBody is the longest body a schedule may carry, in bytes.
const MaxScheduleBody = 1 << 16

// MaxSchedules is how many schedules one policy may hold.
const MaxSchedules = 64

// Error is a policy the queue refuses (jobs.PolicyError): Field names the
// offending field as in JSON ("max_reserves", "schedule[1].cron", "tube").
type Error struct {
	Field, Reason string
}

func (e *Error) Error() string { return "policy: " + e.Field + ": " + e.Reason }

// IsZero reports whether p enforces nothing.
func (p Policy) IsZero() bool {
	return p.MaxReserves == 0 && p.DeadLetter == "" && p.MaxReady == 0 &&
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
		if p.MaxReserves == 0 {
			return bad("dead_letter", "needs max_reserves: a job goes to the dead-letter tube after max_reserves reserves")
		}
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
