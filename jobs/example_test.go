package jobs_test

import (
	"fmt"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Embed the queue: a producer and a worker in one process, with a manual
// clock so that the example is deterministic (a real program uses the zero
// Config and runs go q.Run(ctx)).
func Example() {
	clock := jobs.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	q := jobs.New(jobs.Config{Clock: clock})

	producer := q.NewSession(nil)
	worker := q.NewSession(func() { fmt.Println("worker woken") })

	// Nothing is ready: the worker starts waiting.
	if _, err := worker.Reserve(-1); err == jobs.ErrWaiting {
		fmt.Println("worker waits")
	}
	id, _, _ := producer.Put(jobs.PutRequest{Pri: 1, TTR: 30 * time.Second, Body: []byte("resize img-42")})
	job, _ := worker.TakeOutcome()
	fmt.Printf("job %d: %s\n", job.ID, job.Body())

	// A delayed job becomes ready when the clock says so.
	_, _, _ = producer.Put(jobs.PutRequest{Delay: 10 * time.Second, Body: []byte("later")})
	clock.Advance(10 * time.Second)
	q.Tick()
	fmt.Println("ready:", q.Stats().Ready)

	_, _ = worker.Delete(id)
	// Output:
	// worker waits
	// worker woken
	// job 1: resize img-42
	// ready: 1
}
