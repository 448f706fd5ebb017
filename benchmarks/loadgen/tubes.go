package loadgen

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Parameters of the background jobs Config.DelayedTubes puts.
const (
	idleTubePrefix = "idle."
	idleDelay      = 3600 // seconds: never ready during a run
	idleWindow     = 128  // tubes set up per flush on one connection
)

// idleTube is the name of background tube i (apart from the bench tubes, so
// drain and countJobs never touch their jobs).
func idleTube(i int) string { return idleTubePrefix + strconv.Itoa(i) }

// fillIdleTubes puts one delayed job into each of n tubes idle.0 … and
// returns the ids, unmeasured: the many-tubes cases then time ordinary work
// beside them. 8 connections, idleWindow tubes pipelined per round trip.
func fillIdleTubes(cfg Config, n int) ([]uint64, error) {
	const k = 8
	var mu sync.Mutex
	var ids []uint64
	body := makeBody(min(cfg.Size, 100))
	err := helperRun(cfg, k, func(j int, w *worker, parent *control) error {
		c, err := cfg.dial()
		if err != nil {
			return err
		}
		defer c.Close()
		var mine []uint64
		var batch []int
		for t := j; t < n && !parent.stopped(); t += k {
			batch = append(batch, t)
			if len(batch) == idleWindow || t+k >= n {
				got, err := putDelayed(c, batch, body)
				if err != nil {
					return err
				}
				mine = append(mine, got...)
				batch = batch[:0]
			}
		}
		mu.Lock()
		ids = append(ids, mine...)
		mu.Unlock()
		return nil
	})
	if err == nil && len(ids) != n {
		err = fmt.Errorf("loadgen: set up %d of %d delayed tubes (timed out)", len(ids), n)
	}
	return ids, err
}

// putDelayed sends use+put for each tube of batch in one write and reads
// the replies.
func putDelayed(c *Conn, batch []int, body []byte) ([]uint64, error) {
	c.nc.SetDeadline(time.Now().Add(setupTimeout))
	defer c.nc.SetDeadline(time.Time{})
	put := fmt.Sprintf("put %d %d %d %d", putPri, idleDelay, putTTR, len(body))
	for _, t := range batch {
		c.WriteCommand("use " + idleTube(t))
		c.WriteCommand(put)
		c.w.Write(body)
		c.w.WriteString("\r\n")
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	ids := make([]uint64, 0, len(batch))
	for range batch {
		for _, want := range [...]Kind{KindUsing, KindInserted} {
			r, err := c.ReadReply()
			if err != nil {
				return nil, err
			}
			if r.Kind != want {
				return nil, fmt.Errorf("loadgen: delayed-tube setup: want %v, got %q", want, r.Line)
			}
			if want == KindInserted {
				ids = append(ids, r.ID)
			}
		}
	}
	return ids, nil
}

// deleteJobs deletes ids, pipelined; it returns how many it could not.
func deleteJobs(cfg Config, ids []uint64) (int64, error) {
	c, err := cfg.dial()
	if err != nil {
		return int64(len(ids)), err
	}
	defer c.Close()
	c.nc.SetDeadline(time.Now().Add(max(cfg.Timeout, time.Minute)))
	var left int64
	for start := 0; start < len(ids); start += 256 {
		part := ids[start:min(start+256, len(ids))]
		for _, id := range part {
			c.WriteDelete(id)
		}
		if err := c.Flush(); err != nil {
			return left + int64(len(ids)-start), err
		}
		for range part {
			r, err := c.ReadReply()
			if err != nil {
				return left + int64(len(ids)-start), err
			}
			if r.Kind != KindDeleted {
				left++
			}
		}
	}
	return left, nil
}

// withIdleTubes runs fn with cfg.DelayedTubes background tubes in the
// server, then deletes their jobs (unless NoDrain), adding what it could
// not delete to Left.
func withIdleTubes(cfg Config, fn func(Config) (Result, error)) (Result, error) {
	if cfg.DelayedTubes <= 0 {
		return fn(cfg)
	}
	t0 := time.Now()
	ids, err := fillIdleTubes(cfg, cfg.DelayedTubes)
	if err != nil {
		return Result{}, err
	}
	setup := time.Since(t0)
	r, err := fn(cfg)
	r.DelayedTubes, r.SetupSec = cfg.DelayedTubes, setup.Seconds()
	if !cfg.NoDrain {
		left, derr := deleteJobs(cfg, ids)
		r.Left += left
		if err == nil {
			err = derr
		}
	}
	return r, err
}
