package loadgen

import "sync/atomic"

// putLoop keeps up to depth puts in flight on c until ctl stops granting
// work, then collects the replies still owed. Each batch of requests shares
// one send time; each burst of replies one receive time. With stamp, the send
// time is written into the body (e2e).
func putLoop(c *Conn, w *worker, ctl *control, size, depth int, stamp bool) error {
	body := makeBody(size)
	sent := make([]int64, depth) // ring of send times; -1: not counted
	head, inflight := 0, 0
	for {
		if n := depth - inflight; n > 0 {
			granted, counted := ctl.claim(n)
			if granted > 0 {
				t := nanotime()
				mark := t
				if !counted {
					mark = -1
				}
				if stamp {
					putStamp(body, t)
				}
				for range granted {
					c.WritePut(body)
					sent[(head+inflight)%depth] = mark
					inflight++
				}
				if err := c.Flush(); err != nil {
					return err
				}
			}
		}
		if inflight == 0 {
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

// reserveLoop drains the tubes c watches: batch reserve-with-timeout 0
// commands in one write, then one delete per job reserved in one write. It
// stops at the first TIMED_OUT (the queue is empty), when ctl stops, or once
// the budget is spent by jobs actually deleted. Latency is the batch's round
// trip, recorded once per job.
func reserveLoop(c *Conn, w *worker, ctl *control, batch int) error {
	ids := make([]uint64, 0, batch)
	for !ctl.stopped() {
		counted := ctl.measure.Load()
		t0 := nanotime()
		for range batch {
			c.WriteReserve(0)
		}
		if err := c.Flush(); err != nil {
			return err
		}
		ids = ids[:0]
		empty := false
		for range batch {
			r, err := c.ReadReply()
			if err != nil {
				return err
			}
			switch r.Kind {
			case KindReserved:
				ids = append(ids, r.ID)
			case KindTimedOut:
				empty = true
			default:
				w.fail(r)
			}
		}
		done, err := deleteAll(c, w, ids)
		if err != nil {
			return err
		}
		if counted && done > 0 {
			fit, spent := ctl.take(done)
			w.hist.RecordN(nanotime()-t0, fit)
			w.count(fit)
			empty = empty || spent
		}
		if empty {
			return nil
		}
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
