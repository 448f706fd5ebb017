package loadgen

import (
	"bytes"
	"fmt"
	"net"
	"sync"
	"time"
)

// runConns opens Idle connections (each answers one command, so the server
// has surely accepted it), reads the server's RSS growth if PID is set, then
// dials a fresh connection and times Probes put, reserve and delete round
// trips on it, one command at a time.
func runConns(cfg Config) (Result, error) {
	r := newResult(cfg)
	if _, err := RaiseFDLimit(uint64(cfg.Idle) + 1024); err != nil {
		return r, fmt.Errorf("loadgen: raising the fd limit: %w", err)
	}
	if cfg.PID != 0 {
		rss, err := ReadRSS(cfg.PID)
		if err != nil {
			return r, err
		}
		r.RSSBefore = rss
	}
	start := time.Now()
	idle, err := openIdle(cfg, cfg.Idle)
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	if err != nil {
		return r, err
	}
	r.Idle, r.ConnectMs = len(idle), float64(time.Since(start).Microseconds())/1e3
	if cfg.PID != 0 {
		if r.RSSAfter, err = ReadRSS(cfg.PID); err != nil {
			return r, err
		}
		r.BytesPerConn = float64(r.RSSAfter-r.RSSBefore) / float64(len(idle))
	}
	return r, probe(cfg, &r)
}

// probe times a fresh connection's dial and Probes put/reserve/delete cycles.
func probe(cfg Config, r *Result) error {
	t0 := time.Now()
	c, err := cfg.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	r.FreshDialUs = float64(time.Since(t0).Nanoseconds()) / 1e3
	tube := cfg.tubeName(0)
	for _, cmd := range []string{"use " + tube, "watch " + tube, "ignore default"} {
		if _, err := c.Do(cmd); err != nil {
			return err
		}
	}
	h := NewHistogram()
	w := &worker{hist: h}
	body := makeBody(cfg.Size)
	begin := nanotime()
	want := [...]Kind{KindInserted, KindReserved, KindDeleted}
	for range cfg.Probes {
		var id uint64
		for step, k := range want {
			switch step {
			case 0:
				c.WritePut(body)
			case 1:
				c.WriteReserve(0)
			default:
				c.WriteDelete(id)
			}
			t := nanotime()
			if err := c.Flush(); err != nil {
				return err
			}
			rep, err := c.ReadReply()
			if err != nil {
				return err
			}
			h.Record(nanotime() - t)
			if rep.Kind != k {
				w.fail(rep)
			}
			id = rep.ID
			r.Ops++
		}
	}
	r.Errors = w.errs
	if w.err != nil {
		r.FirstError = w.err.Error()
	}
	r.setTiming(time.Duration(nanotime()-begin), h)
	return nil
}

// openIdle opens n raw connections, 16 at a time, each answering one
// list-tube-used before it is left idle. On error it returns what it opened.
func openIdle(cfg Config, n int) ([]net.Conn, error) {
	conns := make([]net.Conn, n)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := openOne(cfg)
				mu.Lock()
				conns[i] = c
				if err != nil && first == nil {
					first = fmt.Errorf("loadgen: idle connection %d: %w", i, err)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	out := conns[:0]
	for _, c := range conns {
		if c != nil {
			out = append(out, c)
		}
	}
	return out, first
}

func openOne(cfg Config) (net.Conn, error) {
	c, err := dialNet(cfg.Addr, cfg.TLS)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var buf [128]byte
	n := 0
	_, err = c.Write([]byte("list-tube-used\r\n"))
	for err == nil && !bytes.HasSuffix(buf[:n], []byte("\r\n")) && n < len(buf) {
		var m int
		m, err = c.Read(buf[n:])
		n += m
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}
