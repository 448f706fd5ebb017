package embed_test

import (
	"context"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/node"
)

// BenchmarkLoopbackLatency is BenchmarkEmbedLatency's work through the
// protocol on loopback: a node (package engine/node) serves the embedded
// queue, producers and workers are beanstalk clients. Here, in the external
// test package, because embed itself does not link the protocol server.
func BenchmarkLoopbackLatency(b *testing.B) {
	for _, sh := range embed.BenchShapes() {
		b.Run(sh.Name, func(b *testing.B) {
			q, err := embed.Open(embed.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = q.Close() })
			n, err := node.Start(context.Background(), node.Config{Queue: q, Engine: engine.Config{Addr: "127.0.0.1:0"}})
			if err != nil {
				b.Fatal(err)
			}
			dial := func() *beanstalk.Conn {
				c, err := beanstalk.Dial("tcp", n.Addr().String())
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				return c
			}
			embed.RunLatency(b, sh.Producers, sh.Workers, sh.Closed,
				func(int) func([]byte) {
					tube := beanstalk.NewTube(dial(), "bench")
					return func(stamp []byte) {
						if _, err := tube.Put(stamp, 0, 0, time.Minute); err != nil {
							b.Error(err)
						}
					}
				},
				func(_ int, stop <-chan struct{}) func() ([]byte, bool) {
					c := dial()
					ts := beanstalk.NewTubeSet(c, "bench")
					var last uint64
					return func() ([]byte, bool) {
						if last != 0 {
							if err := c.Delete(last); err != nil {
								b.Error(err)
							}
						}
						for {
							id, body, err := ts.Reserve(50 * time.Millisecond)
							if err == nil {
								last = id
								return body, true
							}
							select {
							case <-stop:
								return nil, false
							default:
							}
						}
					}
				})
		})
	}
}
