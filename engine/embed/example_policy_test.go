package embed_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/stalkd/stalkd/engine/embed"
)

// Tube policies as an option of Open: a job of "emails" that has been
// reserved twice and is released again moves to "emails-dead", keeping its
// id and body, instead of being retried for ever.
func ExampleOpen_policies() {
	q, err := embed.Open(embed.Options{Policies: map[string]embed.Policy{
		"emails": {MaxReserves: 2, DeadLetter: "emails-dead"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()

	id, err := q.Put(ctx, "emails", []byte("welcome mail to ada"), embed.PutOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for range 2 { // a worker that always fails
		job, err := q.Reserve(ctx, "emails")
		if err != nil {
			log.Fatal(err)
		}
		if err := job.Release(ctx, 0, 0); err != nil {
			log.Fatal(err)
		}
	}
	dead, err := q.Reserve(ctx, "emails-dead")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("dead letter: %s (same id: %v)\n", dead.Body, dead.ID == id)
	// Output: dead letter: welcome mail to ada (same id: true)
}

// A policy set on a running queue, for one tube: with max_ready, a put
// into a tube that already holds that many ready or delayed jobs is
// refused (OUT_OF_MEMORY on the wire) and nothing is stored. A bad policy is
// refused whole, naming the field.
func ExampleQueue_SetPolicy() {
	q, err := embed.Open(embed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()

	if err := q.SetPolicy(ctx, "webhooks", embed.Policy{MaxReady: 2}); err != nil {
		log.Fatal(err)
	}
	for i := range 3 {
		_, err := q.Put(ctx, "webhooks", fmt.Appendf(nil, "event %d", i), embed.PutOptions{})
		fmt.Printf("put %d: %v\n", i, err)
	}

	err = q.SetPolicy(ctx, "webhooks", embed.Policy{Schedule: []embed.Schedule{{Cron: "every minute", Body: "x"}}})
	var pe *embed.PolicyError
	fmt.Println("refused:", errors.As(err, &pe), "field:", pe.Field)
	p, _ := q.Policy("webhooks")
	fmt.Println("still in force: max_ready", p.MaxReady)
	// Output:
	// put 0: <nil>
	// put 1: <nil>
	// put 2: jobs: queue full
	// refused: true field: schedule[0].cron
	// still in force: max_ready 2
}
