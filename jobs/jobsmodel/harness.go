package jobsmodel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/stalkd/stalkd/jobs"
)

// Harness runs operations against a jobs.Queue and a Model side by side.
type Harness struct {
	Clock *jobs.ManualClock
	Q     *jobs.Queue
	M     *Model

	slots  []slot
	bodies int
	checks int // Checks of a big queue so far, to rotate through its jobs
}

// slot is one session on both sides. The session is replaced by a fresh
// one when it closes.
type slot struct {
	s     *jobs.Session
	id    int // the model's name for it
	wakes *int
}

// Start is the clocks' initial reading: an arbitrary Unix-epoch instant.
const Start = int64(1_700_000_000_000_000_000)

// NewHarness returns a harness with n session slots.
func NewHarness(n int) *Harness {
	clk := jobs.NewManualClock(Start)
	h := &Harness{Clock: clk, Q: jobs.New(jobs.Config{Clock: clk}), M: New(Start), slots: make([]slot, n)}
	for i := range h.slots {
		h.open(i)
	}
	return h
}

func (h *Harness) open(i int) {
	wakes := new(int)
	h.slots[i] = slot{s: h.Q.NewSession(func() { *wakes++ }), id: h.M.NewSession(), wakes: wakes}
}

// Close closes every session (the model's too) and checks what is left.
func (h *Harness) Close() error {
	for i := range h.slots {
		h.slots[i].s.Close()
		h.M.Close(h.slots[i].id)
	}
	if got, want := h.Q.Stats(), h.M.Stats(); got != want {
		return fmt.Errorf("stats after closing every session:\n got %+v\nwant %+v", got, want)
	}
	return nil
}

// Step applies op to both sides, compares the replies, then compares the
// whole observable state.
func (h *Harness) Step(op Op) error {
	got, want, ok := h.apply(op)
	if ok && !sameReply(got, want) {
		return fmt.Errorf("%v: got %+v, want %+v", op, got, want)
	}
	if err := h.Check(); err != nil {
		return fmt.Errorf("after %v: %w", op, err)
	}
	return nil
}

func sameReply(a, b Reply) bool {
	if (a.Err == nil) != (b.Err == nil) || (a.Err != nil && !errors.Is(a.Err, b.Err)) {
		return false
	}
	return a.ID == b.ID && a.Body == b.Body && a.N == b.N
}

// sessionOnly lists the operations a session waiting in reserve must not
// call. Each counts as a command: its Kind is its counter, and a reserve
// with a timeout counts as rwtCounter.
var sessionOnly = map[Kind]bool{
	Put: true, Reserve: true, ReserveJob: true, Delete: true, Release: true, Bury: true, Touch: true,
	Kick: true, KickJob: true, PeekReady: true, PeekDelayed: true, PeekBuried: true, Use: true,
	Watch: true, Ignore: true,
}

const rwtCounter = int(NumKinds)

// apply runs op on both sides and returns both replies; ok is false when
// the operation was skipped or has no reply.
func (h *Harness) apply(op Op) (got, want Reply, ok bool) {
	sl := h.slots[op.Slot]
	s, id, m := sl.s, sl.id, h.M
	if sessionOnly[op.Kind] {
		if m.Waiting(id) {
			return got, want, false
		}
		cmd := int(op.Kind)
		if op.Kind == Reserve && op.D >= 0 {
			cmd = rwtCounter
		}
		s.Count(cmd)
		m.Count(cmd)
	}
	switch op.Kind {
	case Put:
		h.bodies++
		body := fmt.Sprintf("b%d%s", h.bodies, strings.Repeat("x", op.Size))
		jid, _, err := s.Put(jobs.PutRequest{Pri: op.Pri, Delay: op.D, TTR: op.TTR, Body: []byte(body)})
		return Reply{ID: jid, Err: err}, m.Put(id, op.Pri, op.D, op.TTR, body), true
	case Reserve:
		return job(s.Reserve(op.D)), m.Reserve(id, op.D), true
	case Take:
		return job(s.TakeOutcome()), m.Take(id), true
	case ReserveJob:
		d, _, err := s.ReserveJob(op.ID)
		return job(d, err), m.ReserveJob(id, op.ID), true
	case Delete:
		_, err := s.Delete(op.ID)
		return Reply{Err: err}, m.Delete(id, op.ID), true
	case Release:
		_, err := s.Release(op.ID, op.Pri, op.D)
		return Reply{Err: err}, m.Release(id, op.ID, op.Pri, op.D), true
	case Bury:
		_, err := s.Bury(op.ID, op.Pri)
		return Reply{Err: err}, m.Bury(id, op.ID, op.Pri), true
	case Touch:
		return Reply{Err: s.Touch(op.ID)}, m.Touch(id, op.ID), true
	case Kick:
		n, _, err := s.Kick(op.N)
		return Reply{N: n, Err: err}, m.Kick(id, op.N), true
	case KickJob:
		_, err := s.KickJob(op.ID)
		return Reply{Err: err}, m.KickJob(op.ID), true
	case Peek:
		return job(h.Q.Peek(op.ID)), m.Peek(op.ID), true
	case PeekReady:
		return job(s.PeekReady()), m.PeekState(id, jobs.Ready), true
	case PeekDelayed:
		return job(s.PeekDelayed()), m.PeekState(id, jobs.Delayed), true
	case PeekBuried:
		return job(s.PeekBuried()), m.PeekState(id, jobs.Buried), true
	case Use:
		return Reply{Err: s.Use([]byte(op.Tube))}, m.Use(id, op.Tube), true
	case Watch:
		n, err := s.Watch([]byte(op.Tube))
		return Reply{N: n, Err: err}, m.Watch(id, op.Tube), true
	case Ignore:
		n, err := s.Ignore([]byte(op.Tube))
		return Reply{N: n, Err: err}, m.Ignore(id, op.Tube), true
	case Pause:
		return Reply{Err: h.Q.PauseTube([]byte(op.Tube), op.D)}, m.PauseTube(op.Tube, op.D), true
	case Advance:
		h.Clock.Advance(op.D)
		h.Q.Tick()
		m.Advance(op.D)
	case Close:
		s.Close()
		m.Close(id)
		h.open(op.Slot)
	case Drain:
		on := !h.Q.Draining()
		h.Q.SetDraining(on)
		m.SetDraining(on)
	case SpendID:
		return Reply{ID: h.Q.NextID()}, Reply{ID: m.NextID()}, true
	case CancelWait:
		return job(s.CancelWait()), m.CancelWait(id), true
	case Clear:
		n, _, err := h.Q.ClearTube([]byte(op.Tube))
		return Reply{N: n, Err: err}, m.ClearTube(op.Tube), true
	case SetPolicy:
		err := h.Q.SetPolicy(op.Tube, policies[op.N])
		var pe *jobs.PolicyError
		if errors.As(err, &pe) {
			err = errPolicy
		}
		return Reply{Err: err}, m.SetPolicy(op.Tube, policies[op.N]), true
	case List:
		st := listStates[op.N]
		ids, err := h.Q.ListJobs([]byte(op.Tube), st, int(op.ID), op.Size, nil)
		wantIDs, want := m.ListJobs(op.Tube, st, int(op.ID), op.Size)
		want.Body = fmt.Sprint(wantIDs)
		return Reply{Err: err, Body: fmt.Sprint(ids)}, want, true
	}
	return got, want, false
}

// job turns a job-or-error answer into a Reply.
func job(d jobs.JobData, err error) Reply {
	if err != nil {
		return Reply{ID: d.ID, Err: err}
	}
	return Reply{ID: d.ID, Body: string(d.Body())}
}
