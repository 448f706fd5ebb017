package front

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// startCountingLeader is a stand-in for the leader's engine that costs the
// benchmark nothing per put: it answers every put with "INSERTED 1\r\n",
// counting puts by their CRLFs (a put's line and its body end in one each;
// the benchmark's bodies hold no CR), from fixed buffers.
func startCountingLeader(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				in := make([]byte, 64<<10)
				out := make([]byte, 0, 64<<10)
				crlfs, cr := 0, false
				for {
					n, err := c.Read(in)
					for _, ch := range in[:n] {
						if cr && ch == '\n' {
							if crlfs++; crlfs%2 == 0 {
								out = append(out, "INSERTED 1\r\n"...)
							}
						}
						cr = ch == '\r'
					}
					if len(out) > 0 {
						if _, err := c.Write(out); err != nil {
							return
						}
						out = out[:0]
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// processCPU is the process's user and system CPU time so far: on a shared
// machine CPU per put is a steadier figure than time per put.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFollowerPut carries puts through a Front, as a follower does, to
// a leader that costs nothing: one op is one acknowledged put, and its
// allocations are the front's (the client and the leader allocate nothing);
// cpu-ns/op is the whole process's CPU per put (the client's and the
// stand-in leader's included: the same in any build).
// depth puts are written at once and their replies read before the next
// write.
func BenchmarkFollowerPut(b *testing.B) {
	for _, size := range []int{100, 4096} {
		for _, depth := range []int{1, 64} {
			b.Run(fmt.Sprintf("size=%d/depth=%d", size, depth), func(b *testing.B) {
				benchFollowerPut(b, size, depth)
			})
		}
	}
}

func benchFollowerPut(b *testing.B, size, depth int) {
	leader := startCountingLeader(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	f := Start(Config{Listener: ln, Leader: fixedLeader(leader), Logger: zerolog.Nop()})
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = f.Stop(ctx)
	})
	c, err := net.Dial("tcp", f.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	put := fmt.Appendf(nil, "put 0 0 60 %d\r\n%s\r\n", size, bytes.Repeat([]byte("b"), size))
	req := bytes.Repeat(put, depth)
	reply := make([]byte, depth*len("INSERTED 1\r\n"))
	round := func() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, reply); err != nil {
			b.Fatal(err)
		}
	}
	for range 100 { // warm: the front's buffers settle
		round()
	}
	b.SetBytes(int64(len(put)))
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i += depth {
		round()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if !bytes.HasPrefix(reply, []byte("INSERTED 1\r\n")) {
		b.Fatalf("reply %q", reply)
	}
}
