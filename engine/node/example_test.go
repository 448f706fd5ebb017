package node_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/beanstalkd/go-beanstalk"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/node"
)

// An embedded queue (package engine/embed), served on a port by a node: a remote worker uses any beanstalk
// client (here github.com/beanstalkd/go-beanstalk) while the gateway keeps
// putting in-process.
func ExampleStart_embedded() {
	q, err := embed.Open(embed.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()

	n, err := node.Start(ctx, node.Config{Queue: q, Engine: engine.Config{Addr: "127.0.0.1:0"}})
	if err != nil {
		log.Fatal(err)
	}
	defer n.Stop(ctx)

	if _, err := q.Put(ctx, "thumbnails", []byte("photo-7.jpg"), embed.PutOptions{}); err != nil {
		log.Fatal(err)
	}

	// The remote worker.
	conn, err := beanstalk.Dial("tcp", n.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	tubes := beanstalk.NewTubeSet(conn, "thumbnails")
	id, body, err := tubes.Reserve(5 * time.Second)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("remote worker got %s\n", body)
	if err := conn.Delete(id); err != nil {
		log.Fatal(err)
	}
	_, err = q.StatsJob(id)
	fmt.Println("in-process view after the remote delete:", err)
	// Output:
	// remote worker got photo-7.jpg
	// in-process view after the remote delete: jobs: not found
}
