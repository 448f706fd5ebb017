package jobsmodel

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Kind names an operation of the harness.
type Kind uint8

const (
	Put Kind = iota
	Reserve
	ReserveJob
	Take
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
	Use
	Watch
	Ignore
	Pause
	Advance
	Close
	Drain
	SpendID
	CancelWait
	Clear
	List
	SetPolicy
	NumKinds
)

var kindNames = [NumKinds]string{"put", "reserve", "reserve-job", "take", "delete", "release", "bury",
	"touch", "kick", "kick-job", "peek", "peek-ready", "peek-delayed", "peek-buried", "use", "watch",
	"ignore", "pause-tube", "advance", "close", "drain", "next-id", "cancel-wait", "clear-tube", "list-jobs", "set-policy"}

func (k Kind) String() string { return kindNames[k] }

// Op is one operation of a session slot (or of the queue). Which fields
// matter depends on Kind: D is the delay of put and release, the timeout of
// reserve (negative: none), the duration of pause-tube and the step of
// advance.
type Op struct {
	Kind Kind
	Slot int
	ID   uint64
	Pri  uint32
	N    uint32
	Tube string
	D    time.Duration
	TTR  time.Duration
	Size int // extra body bytes of put
}

func (o Op) String() string {
	switch o.Kind {
	case Put:
		return fmt.Sprintf("s%d put pri=%d delay=%v ttr=%v size=%d", o.Slot, o.Pri, o.D, o.TTR, o.Size)
	case Reserve:
		return fmt.Sprintf("s%d reserve timeout=%v", o.Slot, o.D)
	case ReserveJob, Delete, Touch, KickJob, Peek:
		return fmt.Sprintf("s%d %v %d", o.Slot, o.Kind, o.ID)
	case Release:
		return fmt.Sprintf("s%d release %d pri=%d delay=%v", o.Slot, o.ID, o.Pri, o.D)
	case Bury:
		return fmt.Sprintf("s%d bury %d pri=%d", o.Slot, o.ID, o.Pri)
	case Kick:
		return fmt.Sprintf("s%d kick %d", o.Slot, o.N)
	case Use, Watch, Ignore:
		return fmt.Sprintf("s%d %v %q", o.Slot, o.Kind, o.Tube)
	case Pause:
		return fmt.Sprintf("pause-tube %q %v", o.Tube, o.D)
	case Clear:
		return fmt.Sprintf("clear-tube %q", o.Tube)
	case List:
		return fmt.Sprintf("list-jobs %q %v offset=%d count=%d", o.Tube, listStates[o.N], o.ID, o.Size)
	case Advance:
		return fmt.Sprintf("advance %v", o.D)
	case SetPolicy:
		return fmt.Sprintf("set-policy %q %+v", o.Tube, policies[o.N])
	}
	return fmt.Sprintf("s%d %v", o.Slot, o.Kind)
}

// The values operations draw from: few enough that collisions (equal
// priorities, equal deadlines, a TTR ending as a delay does) are common.
var (
	tubes    = []string{"default", "a", "b", "c", "default", "a", "b", "-bad"}
	pris     = []uint32{0, 1, 1, 5, 1023, 1024, 1 << 31, 1<<32 - 1}
	delays   = []time.Duration{0, 0, 0, 0, 1, time.Millisecond, time.Second, 2 * time.Second}
	ttrs     = []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}
	timeouts = []time.Duration{-1, -1, 0, 0, 1, time.Second, 2 * time.Second, 5 * time.Second}
	pauses   = []time.Duration{0, 1, time.Second, 3 * time.Second}
	steps    = []time.Duration{0, 1, time.Millisecond, 500 * time.Millisecond, 999 * time.Millisecond,
		time.Second, time.Second + 1, 2 * time.Second, 5 * time.Second, 30 * time.Second}
)

// policies are the policies set-policy sets (Op.N indexes them): removal,
// a cap, burials, dead letters (one to a tube that may be the one set, a
// policy error), both together.
var policies = [...]jobs.Policy{
	{},
	{MaxReady: 2},
	{MaxReserves: 1},
	{MaxReserves: 2, DeadLetter: "b"},
	{MaxReserves: 1, DeadLetter: "c", MaxReady: 3},
	{MaxReserves: 2, DeadLetter: "default"},
	{MaxReserves: 3, DeadLetter: "a", MaxReady: 1},
	{DeadLetter: "a"}, // refused: no max_reserves
	{MaxReady: 1, Overflow: jobs.OverflowBury},
	{MaxReady: 2, Overflow: jobs.OverflowDeadLetter, DeadLetter: "c"},
	{MaxReady: 1, Overflow: jobs.OverflowDeadLetter, DeadLetter: "a", MaxReserves: 1},
}

// listStates are the states list-jobs is asked for, indexed by Op.N; the
// zero State is not one, and must be refused.
var listStates = [4]jobs.State{jobs.Ready, jobs.Delayed, jobs.Buried, jobs.Reserved}

// DecodeOp reads one operation from a fuzz tape: five bytes, the kind, the
// slot and three argument bytes that index the value tables above (ids are
// picked among live jobs, or are small raw numbers). It returns false when
// the tape is too short.
func (h *Harness) DecodeOp(tape []byte) (Op, []byte, bool) {
	if len(tape) < 5 {
		return Op{}, tape, false
	}
	b := tape[:5]
	op := Op{Kind: Kind(b[0] % byte(NumKinds)), Slot: int(b[1]) % len(h.slots)}
	a1, a2, a3 := int(b[2]), int(b[3]), int(b[4])
	pick := func(n, i int) int { return i % n }
	op.ID = h.pickID(a1, func(n int) int { return pick(n, a1) })
	op.Pri = pris[pick(len(pris), a2)]
	op.N = uint32(a2 % 4)
	op.Tube = tubes[pick(len(tubes), a2)]
	op.TTR = ttrs[pick(len(ttrs), a3)]
	op.Size = a3 % 3
	switch op.Kind {
	case Put, Release:
		op.D = delays[pick(len(delays), a3>>2)]
	case Reserve:
		op.D = timeouts[pick(len(timeouts), a3)]
	case Pause:
		op.D = pauses[pick(len(pauses), a3)]
	case Advance:
		op.D = steps[pick(len(steps), a3)]
	case List:
		op.ID, op.Size = uint64(a1%4), 1+a3%5 // offset, count
	case SetPolicy:
		op.N = uint32(a3 % len(policies))
	}
	return op, tape[5:], true
}

// pickID turns a byte into a job id: mostly a live job, else a small raw id
// (0, spent, deleted or never handed out).
func (h *Harness) pickID(b int, index func(n int) int) uint64 {
	live := h.M.LiveIDs()
	if len(live) > 0 && b < 224 {
		return live[index(len(live))]
	}
	return uint64(b % 32)
}

// weights make random tapes useful: enough puts and reserves to keep jobs
// moving, enough deletes to keep the queue small, time moving often.
var weights = [NumKinds]int{
	Put: 14, Reserve: 12, ReserveJob: 3, Take: 0, Delete: 9, Release: 6, Bury: 4, Touch: 3, Kick: 3,
	KickJob: 2, Peek: 2, PeekReady: 2, PeekDelayed: 1, PeekBuried: 1, Use: 4, Watch: 4, Ignore: 3,
	Pause: 2, Advance: 12, Close: 1, Drain: 1, SpendID: 1, CancelWait: 1, Clear: 1, List: 3,
	SetPolicy: 2,
}

// RandomOp draws an operation. A slot waiting in reserve mostly takes its
// outcome or lets time pass.
func (h *Harness) RandomOp(r *rand.Rand) Op {
	slot := r.IntN(len(h.slots))
	if h.Q.Draining() && r.IntN(4) == 0 {
		return Op{Kind: Drain, Slot: slot}
	}
	if h.M.Waiting(h.slots[slot].id) {
		switch x := r.IntN(10); {
		case x < 4:
			return Op{Kind: Take, Slot: slot}
		case x == 4:
			return Op{Kind: Close, Slot: slot}
		case x == 5:
			return Op{Kind: CancelWait, Slot: slot}
		}
	}
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.IntN(total)
	var kind Kind
	for k, w := range weights {
		if x < w {
			kind = Kind(k)
			break
		}
		x -= w
	}
	if kind == Drain && r.IntN(4) > 0 {
		kind = Put // draining is a rare state: enter it seldom, leave it soon
	}
	b := func() int { return r.IntN(256) }
	op, _, _ := h.DecodeOp([]byte{byte(kind), byte(slot), byte(b()), byte(b()), byte(b())})
	return op
}

// tapeWeights: like weights, plus Take, since a tape cannot know which
// sessions wait.
var tapeWeights = func() [NumKinds]int {
	w := weights
	w[Take] = 10
	return w
}()

// RandomTape draws a tape of n operations for DecodeOp, with kinds in the
// proportions RandomOp uses: a seed for the fuzzer.
func RandomTape(r *rand.Rand, n int) []byte {
	total := 0
	for _, w := range tapeWeights {
		total += w
	}
	tape := make([]byte, 0, 5*n)
	for range n {
		x := r.IntN(total)
		kind := 0
		for k, w := range tapeWeights {
			if x < w {
				kind = k
				break
			}
			x -= w
		}
		tape = append(tape, byte(kind), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)))
	}
	return tape
}
