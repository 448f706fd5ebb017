package loadgen

import (
	"sync/atomic"
	"time"
)

// putSpec shapes one producer connection's puts.
type putSpec struct {
	size     int   // body bytes
	depth    int   // puts in flight
	stamp    bool  // write the send time into the body (e2e)
	interval int64 // ns between puts on this connection; 0: as fast as replies allow
	phase    int64 // ns before the first paced put, so connections take turns
}

// putLoop keeps up to depth puts in flight on c until ctl stops granting
// work, then collects the replies still owed. Each batch of requests shares
// one send time; each burst of replies one receive time. A paced loop
// (interval > 0) sends one put per slot and sleeps until the next slot.
func putLoop(c *Conn, w *worker, ctl *control, spec putSpec) error {
	body := makeBody(spec.size)
	sent := make([]int64, spec.depth) // ring of send times; -1: not counted
	head, inflight := 0, 0
	next := nanotime() + spec.phase
	for {
		n := spec.depth - inflight
		if spec.interval > 0 && n > 0 {
			n = 1
			if d := next - nanotime(); d > 0 && inflight == 0 {
				time.Sleep(time.Duration(d))
			} else if d > 0 {
				n = 0 // a reply is owed: read it, the slot is not due yet
			}
		}
		if n > 0 {
			granted, counted := ctl.claim(n)
			if granted > 0 {
				t := nanotime()
				mark := t
				if !counted {
					mark = -1
				}
				if spec.stamp {
					putStamp(body, t)
				}
				for range granted {
					c.WritePut(body)
					sent[(head+inflight)%spec.depth] = mark
					inflight++
				}
				if err := c.Flush(); err != nil {
					return err
				}
				next += spec.interval * int64(granted)
			}
		}
		if inflight == 0 { // nothing granted: the bound is reached
			return nil
		}
		if err := putReplies(c, w, sent, &head, &inflight); err != nil {
			return err
		}
	}
}

// putReplies reads one reply, then every reply already buffered.
func putReplies(c *Conn, w *worker, sent []int64, head, inflight *int) error {
	var now int64
	got, acks := 0, 0
	for {
		r, err := c.ReadReply()
		if err != nil {
			return err
		}
		if now == 0 {
			now = nanotime()
		}
		t := sent[*head]
		*head = (*head + 1) % len(sent)
		*inflight--
		switch {
		case r.Kind != KindInserted:
			w.fail(r)
		case t >= 0:
			w.hist.Record(now - t)
			got++
			fallthrough
		default:
			acks++
		}
		if *inflight == 0 || c.Buffered() == 0 {
			break
		}
	}
	if got > 0 {
		w.count(got)
	}
	w.acks.Add(int64(acks))
	return nil
}

// reserveLoop drains the tubes c watches with reserve-with-timeout 0 and
// delete. With batch 1 it is strictly request/response: reserve, wait,
// delete, wait. With a larger batch it writes batch reserves at once and,
// once they are answered, deletes every job reserved in one write, which
// also carries the next batch's reserves (one round trip per batch). It
// stops after the first TIMED_OUT (the queue is empty), when ctl stops, or
// once the budget is spent by jobs actually deleted. Latency is a batch's
// reserve write to its delete acknowledgement, recorded once per job.
func reserveLoop(c *Conn, w *worker, ctl *control, batch int) error {
	cur := reserved{ids: make([]uint64, 0, batch)}
	more := true
	for {
		more = more && !ctl.stopped()
		if len(cur.ids) == 0 && !more {
			return nil
		}
		for _, id := range cur.ids {
			c.WriteDelete(id)
		}
		if len(cur.ids) > 0 && (batch == 1 || !more) {
			if err := c.Flush(); err != nil {
				return err
			}
			if err := cur.settle(c, w, ctl, &more); err != nil {
				return err
			}
			if !more {
				return nil
			}
		}
		t0, counted := nanotime(), ctl.measure.Load()
		for range batch {
			c.WriteReserve(0)
		}
		if err := c.Flush(); err != nil {
			return err
		}
		if err := cur.settle(c, w, ctl, &more); err != nil {
			return err
		}
		empty, err := cur.read(c, w, batch)
		if err != nil {
			return err
		}
		cur.t0, cur.counted, more = t0, counted, more && !empty
	}
}

// reserved is a batch of jobs reserved by one reserveLoop and not yet deleted.
type reserved struct {
	ids     []uint64
	t0      int64 // when its reserves were written
	counted bool
}

// read collects n reserve replies; empty reports a TIMED_OUT among them.
func (b *reserved) read(c *Conn, w *worker, n int) (empty bool, err error) {
	b.ids = b.ids[:0]
	for range n {
		r, err := c.ReadReply()
		if err != nil {
			return empty, err
		}
		switch r.Kind {
		case KindReserved:
			b.ids = append(b.ids, r.ID)
		case KindTimedOut:
			empty = true
		default:
			w.fail(r)
		}
	}
	return empty, nil
}

// settle reads the replies to the deletes of b (already written) and counts
// them; it clears *more when the budget is spent.
func (b *reserved) settle(c *Conn, w *worker, ctl *control, more *bool) error {
	done := 0
	for range b.ids {
		r, err := c.ReadReply()
		if err != nil {
			return err
		}
		if r.Kind == KindDeleted {
			done++
		} else {
			w.fail(r)
		}
	}
	b.ids = b.ids[:0]
	if b.counted && done > 0 {
		fit, spent := ctl.take(done)
		w.hist.RecordN(nanotime()-b.t0, fit)
		w.count(fit)
		*more = *more && !spent
	}
	return nil
}

// deleteAll deletes ids in one write and returns how many were DELETED.
func deleteAll(c *Conn, w *worker, ids []uint64) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	for _, id := range ids {
		c.WriteDelete(id)
	}
	if err := c.Flush(); err != nil {
		return 0, err
	}
	done := 0
	for range ids {
		r, err := c.ReadReply()
		if err != nil {
			return done, err
		}
		if r.Kind == KindDeleted {
			done++
		} else {
			w.fail(r)
		}
	}
	return done, nil
}

// e2eState is shared by the producers and consumers of one e2e run.
type e2eState struct {
	producing atomic.Int64 // producers still running
	put       atomic.Int64 // jobs acknowledged, by every producer
	got       atomic.Int64 // jobs deleted, by every consumer
}

// finished: no producer is left and everything put has been consumed.
func (s *e2eState) finished() bool {
	return s.producing.Load() == 0 && s.got.Load() >= s.put.Load()
}

// consumeLoop is an e2e consumer: reserve (1 s timeout), read the put time
// from the body, delete, one request at a time. It counts jobs put during the
// measured window and returns once no producer is left and either the queue
// is empty (TIMED_OUT) or as many jobs were consumed as were put.
func consumeLoop(c *Conn, w *worker, ctl *control, st *e2eState) error {
	for !st.finished() {
		c.WriteReserve(1)
		if err := c.Flush(); err != nil {
			return err
		}
		r, err := c.ReadReply()
		if err != nil {
			return err
		}
		switch r.Kind {
		case KindReserved:
			now := nanotime()
			ts, ok := readStamp(r.Body)
			counted := ok && ctl.measure.Load() && ts >= ctl.t0.Load()
			done, err := deleteAll(c, w, []uint64{r.ID})
			if err != nil {
				return err
			}
			st.got.Add(int64(done))
			if counted && done == 1 {
				w.hist.Record(now - ts)
				w.count(1)
			}
		case KindTimedOut:
			if st.producing.Load() == 0 {
				return nil
			}
		default:
			w.fail(r)
		}
	}
	return nil
}
