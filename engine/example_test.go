package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/jobs"
)

// A program that serves its own queue: Listen, then Serve with a Backend
// holding the queue (and so its journal, if it has one). The program drives
// the queue's timers.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := jobs.New(jobs.Config{})
	go q.Run(ctx) // drives delays, TTRs, pauses and reserve timeouts

	srv, err := engine.Listen(ctx, engine.Config{Addr: "127.0.0.1:0"})
	if err != nil {
		log.Fatal(err)
	}
	if err := srv.Serve(engine.Backend{Queue: q}); err != nil {
		log.Fatal(err)
	}
	defer srv.Stop(context.Background())

	// In-process producers use the queue directly: no socket.
	s := q.NewSession(nil)
	defer s.Close()
	id, _, _ := s.Put(jobs.PutRequest{Pri: 10, TTR: time.Minute, Body: []byte("resize img-42")})

	// Clients on the network see the same queue.
	c, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "peek %d\r\n", id)
	line, _ := bufio.NewReader(c).ReadString('\n')
	fmt.Print(line)
	// Output: FOUND 1 13
}
