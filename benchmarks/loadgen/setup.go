package loadgen

import (
	"bytes"
	"fmt"
	"sync"
	"time"
)

// makeBody is a body of n bytes that never contains CRLF.
func makeBody(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }

// setupTimeout bounds the commands that prepare a connection.
const setupTimeout = 10 * time.Second

// dialUsing connects and makes tube the used tube.
func dialUsing(cfg Config, tube string) (*Conn, error) {
	c, err := cfg.dial()
	if err != nil {
		return nil, err
	}
	c.nc.SetDeadline(time.Now().Add(setupTimeout))
	if _, err := c.Expect("use "+tube, KindUsing); err != nil {
		c.Close()
		return nil, err
	}
	c.nc.SetDeadline(time.Time{})
	return c, nil
}

// dialWatching connects and watches exactly the given tubes.
func dialWatching(cfg Config, tubes ...string) (*Conn, error) {
	c, err := cfg.dial()
	if err != nil {
		return nil, err
	}
	c.nc.SetDeadline(time.Now().Add(setupTimeout))
	for _, t := range tubes {
		if _, err = c.Expect("watch "+t, KindWatching); err != nil {
			break
		}
	}
	if err == nil {
		_, err = c.Expect("ignore default", KindWatching)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.nc.SetDeadline(time.Time{})
	return c, nil
}

// dialAll opens n connections in parallel with dial(i), tracked by g.
func dialAll(g *group, n int, dial func(i int) (*Conn, error)) ([]*Conn, error) {
	conns := make([]*Conn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			conns[i], errs[i] = dial(i)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeConns(conns)
			return nil, fmt.Errorf("loadgen: connection %d: %w", i, err)
		}
		if g != nil {
			g.track(conns[i])
		}
	}
	return conns, nil
}

func closeConns(conns []*Conn) {
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
}

// tubeJobs reads current-jobs-ready + current-jobs-reserved + current-jobs-delayed
// + current-jobs-buried of tube (0 if the tube does not exist).
func tubeJobs(c *Conn, tube string) (int64, error) {
	r, err := c.Do("stats-tube " + tube)
	if err != nil || r.Kind == KindNotFound {
		return 0, err
	}
	if r.Kind != KindOK {
		return 0, fmt.Errorf("loadgen: stats-tube %s: %q", tube, r.Line)
	}
	var total int64
	for _, k := range []string{"current-jobs-ready", "current-jobs-reserved", "current-jobs-delayed", "current-jobs-buried"} {
		total += yamlInt(r.Body, k)
	}
	return total, nil
}

// yamlInt finds "key: N" in a stats document (0 if absent).
func yamlInt(doc []byte, key string) int64 {
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(key+": ")); ok {
			n, err := parseUint(bytes.TrimSpace(v))
			if err == nil {
				return int64(n)
			}
		}
	}
	return 0
}
