package jobs

import (
	"fmt"
	"math"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/cron"
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
type Schedule struct {
	// Cron is five fields read in UTC ("*/5 * * * *": minute, hour, day of
	// month, month, day of week) or "@every DURATION" ("@every 30s").
	Cron     string `json:"cron" yaml:"cron"`
	Body     string `json:"body" yaml:"body"`
	Priority uint32 `json:"priority" yaml:"priority"`
	// TTR in seconds; 0 is raised to 1, as put does.
	TTR uint32 `json:"ttr" yaml:"ttr"`
}

// MaxReserveRate is the highest ReserveRate a policy may ask for.
const MaxReserveRate = 1e6

// MaxScheduleBody is the longest body a schedule may carry, in bytes.
const MaxScheduleBody = 1 << 16

// MaxSchedules is how many schedules one policy may hold.
const MaxSchedules = 64

// PolicyError is a policy the queue refuses: Field names the offending
// field as in JSON ("max_reserves", "schedule[1].cron", "tube").
type PolicyError struct {
	Field, Reason string
}

func (e *PolicyError) Error() string { return "policy: " + e.Field + ": " + e.Reason }

// IsZero reports whether p enforces nothing.
func (p Policy) IsZero() bool {
	return p.MaxReserves == 0 && p.DeadLetter == "" && p.MaxReady == 0 &&
		p.ReserveRate == 0 && len(p.Schedule) == 0
}

// Validate reports the first thing wrong with p as a *PolicyError, or nil.
// It does not know the tube p is for: SetPolicy also refuses a policy whose
// dead-letter tube is the tube itself.
func (p Policy) Validate() error {
	_, err := compilePolicy(p)
	return err
}

// Clone returns a deep copy of p (its Schedule slice is its own).
func (p Policy) Clone() Policy {
	if p.Schedule != nil {
		p.Schedule = append([]Schedule(nil), p.Schedule...)
	}
	return p
}

// compiled is a validated policy as the queue applies it. Immutable once
// built: tubes share it without a lock.
type compiled struct {
	p     Policy
	burst float64 // ceil(ReserveRate)
	crons []cron.Schedule
}

func compilePolicy(p Policy) (*compiled, error) {
	bad := func(field, format string, args ...any) (*compiled, error) {
		return nil, &PolicyError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if p.DeadLetter != "" {
		if !validName([]byte(p.DeadLetter)) {
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
	c := &compiled{p: p.Clone(), burst: math.Ceil(r)}
	for i, s := range p.Schedule {
		cs, err := cron.Parse(s.Cron)
		if err != nil {
			return bad(fmt.Sprintf("schedule[%d].cron", i), "%v", err)
		}
		if len(s.Body) > MaxScheduleBody {
			return bad(fmt.Sprintf("schedule[%d].body", i), "longer than %d bytes", MaxScheduleBody)
		}
		c.crons = append(c.crons, cs)
	}
	return c, nil
}

// next returns the first time of schedule i strictly after t (Clock ns), or
// false if it has none.
func (c *compiled) next(i int, t int64) (int64, bool) {
	n := c.crons[i].Next(time.Unix(0, t).UTC())
	if n.IsZero() {
		return 0, false
	}
	return n.UnixNano(), true
}
