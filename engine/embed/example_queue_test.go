package embed_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
)

// An in-process producer and consumer: Put returns the job's id, Reserve
// blocks until a job is ready, and the job is deleted once done.
func ExampleOpen() {
	q, err := embed.Open(embed.Options{}) // in memory
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()

	done := make(chan struct{})
	go func() { // the consumer
		defer close(done)
		job, err := q.Reserve(ctx, "emails")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("sending %s\n", job.Body)
		if err := job.Delete(ctx); err != nil {
			log.Fatal(err)
		}
	}()

	if _, err := q.Put(ctx, "emails", []byte("welcome mail to ada"), embed.PutOptions{TTR: time.Minute}); err != nil {
		log.Fatal(err)
	}
	<-done
	// Output: sending welcome mail to ada
}

// A worker runs a handler over the jobs of a tube, a few at a time: a nil
// error deletes the job, an error releases it with backoff (and buries it
// on the fifth failure), a panic buries it.
func ExampleQueue_StartWorker() {
	q, err := embed.Open(embed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()

	handled := make(chan string)
	w, err := q.StartWorker(func(ctx context.Context, job embed.Job) error {
		handled <- strings.ToUpper(string(job.Body))
		return nil
	}, embed.WorkerOptions{Tubes: []string{"resize"}, Concurrency: 4})
	if err != nil {
		log.Fatal(err)
	}
	for _, img := range []string{"cat.png"} {
		if _, err := q.Put(ctx, "resize", []byte(img), embed.PutOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(<-handled)

	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := w.Stop(stopCtx); err != nil { // finishes handlers in flight
		log.Fatal(err)
	}
	// Output: CAT.PNG
}

// A persistent queue: with Options.Dir, Put returns once the job is
// fsynced (the zero SyncInterval), and the jobs are there after a restart.
func ExampleOpen_persistent() {
	dir, err := os.MkdirTemp("", "stalkd-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	q, err := embed.Open(embed.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	id, err := q.Put(ctx, "invoices", []byte("invoice 42"), embed.PutOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := q.Close(); err != nil {
		log.Fatal(err)
	}

	q, err = embed.Open(embed.Options{Dir: dir}) // the restart
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	job, err := q.Reserve(ctx, "invoices")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("job survived: %s (same id: %v)\n", job.Body, job.ID == id)
	// Output: job survived: invoice 42 (same id: true)
}

// An HTTP handler that enqueues a job. The request's context bounds the
// wait for durability: if the client goes away or the deadline passes, the
// handler answers at once.
func ExampleQueue_Put_http() {
	q, err := embed.Open(embed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()

	enqueue := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, engine.DefaultMaxJobSize))
		if err != nil {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		id, err := q.Put(ctx, "webhooks", body, embed.PutOptions{Pri: 100})
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, "queued as job %d\n", id)
	})

	srv := httptest.NewServer(enqueue)
	defer srv.Close()
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{"event":"signup"}`))
	if err != nil {
		log.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.Status, ": ", string(reply))

	job, _ := q.Reserve(context.Background(), "webhooks")
	fmt.Printf("%s\n", job.Body)
	// Output:
	// 202 Accepted: queued as job 1
	// {"event":"signup"}
}
