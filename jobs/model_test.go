package jobs_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stalkd/stalkd/jobs/jobsmodel"
)

var (
	modelSeed  = flag.Uint64("model.seed", 0, "run the model-based test with this seed only")
	modelSteps = flag.Int("model.steps", 4000, "operations per seed in the model-based test")
)

// TestModel runs long random operation sequences - several sessions,
// several tubes, every operation, time moving - against the queue and
// against a deliberately naive model of it (package jobs/jobsmodel), and
// compares every reply and the whole observable state after each step.
// A failure prints its seed: go test ./jobs -run TestModel -model.seed=N
func TestModel(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	if *modelSeed != 0 {
		seeds = []uint64{*modelSeed}
	}
	steps := *modelSteps
	if testing.Short() || raceEnabled {
		steps /= 4
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			runModel(t, seed, 2+int(seed%4), steps)
		})
	}
}

func runModel(t *testing.T, seed uint64, sessions, steps int) {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	h := jobsmodel.NewHarness(sessions)
	var trail []string // the latest operations, for the failure message
	for i := range steps {
		op := h.RandomOp(r)
		trail = append(trail, op.String())
		if len(trail) > 40 {
			trail = trail[1:]
		}
		if err := h.Step(op); err != nil {
			t.Fatalf("seed %d, step %d: %v\nlast operations:\n  %s", seed, i, err, strings.Join(trail, "\n  "))
		}
	}
	if err := h.Close(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
}
