package jobs_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// A tube policy: after two tries a job goes to a dead-letter tube, the
// tube refuses puts beyond three waiting jobs, and a schedule puts a
// "tick" every minute.
func ExampleQueue_SetPolicy() {
	clock := jobs.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	q := jobs.New(jobs.Config{Clock: clock})
	err := q.SetPolicy("emails", jobs.Policy{
		MaxReserves: 2, DeadLetter: "emails-dead", MaxReady: 3,
		Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "tick", Priority: 5, TTR: 30}},
	})
	fmt.Println("set:", err)
	fmt.Println("bad:", q.SetPolicy("emails", jobs.Policy{Schedule: []jobs.Schedule{{Cron: "61 * * * *"}}}))

	s := q.NewSession(nil)
	_ = s.Use([]byte("emails"))
	_, _ = s.Watch([]byte("emails"))
	id, _, _ := s.Put(jobs.PutRequest{Pri: 1, TTR: time.Minute, Body: []byte("send")})
	for range 2 { // a worker that always gives up
		job, _ := s.Reserve(0)
		_, _ = s.Release(job.ID, 1, 0)
	}
	st, _ := q.StatsJob(id)
	fmt.Println("job", id, "now in", st.Tube)

	for range 4 {
		_, _, err = s.Put(jobs.PutRequest{Body: []byte("more")})
	}
	fmt.Println("fourth put:", errors.Is(err, jobs.ErrQueueFull))

	job, _ := s.Reserve(0) // room for one more
	_, _ = s.Delete(job.ID)
	clock.Advance(time.Minute)
	q.Tick()
	ts, _ := q.StatsTube([]byte("emails"))
	fmt.Println("scheduled:", ts.ScheduledPuts, "refused:", ts.RefusedFull, "dead-lettered:", ts.DeadLettered)
	// Output:
	// set: <nil>
	// bad: policy: schedule[0].cron: minute "61": 61 is outside 0-59
	// job 1 now in emails-dead
	// fourth put: true
	// scheduled: 1 refused: 1 dead-lettered: 1
}
