package wheel_test

import (
	"fmt"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

type job struct {
	id    uint64
	delay wheel.Timer[*job]
}

func Example() {
	start := int64(1_700_000_000) * int64(time.Second) // the queue's clock
	w := wheel.New[*job](start, time.Millisecond)

	jobs := []*job{{id: 1}, {id: 2}, {id: 3}}
	for _, j := range jobs {
		j.delay.Owner = j
	}
	w.Schedule(&jobs[0].delay, start+int64(3*time.Second))
	w.Schedule(&jobs[1].delay, start+int64(1*time.Second))
	w.Schedule(&jobs[2].delay, start+int64(1*time.Second)) // same deadline: after job 2
	w.Cancel(&jobs[0].delay)

	next, _ := w.Next()
	fmt.Println("sleep for", time.Duration(next-start))

	var due []*job
	due = w.Advance(start+int64(2*time.Second), due[:0])
	for _, j := range due {
		fmt.Println("job", j.id, "is ready")
	}
	fmt.Println("still armed:", w.Len())
	// Output:
	// sleep for 1s
	// job 2 is ready
	// job 3 is ready
	// still armed: 0
}
