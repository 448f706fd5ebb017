package client

import (
	"fmt"
	"strconv"
)

// Job is a peeked job: its id and body.
type Job struct {
	ID   uint64
	Body []byte
}

// Stats returns the server's stats document.
func (c *Conn) Stats() (Stats, error) { return c.stats("stats") }

// StatsTube returns one tube's stats (ErrNotFound for no such tube).
func (c *Conn) StatsTube(tube string) (Stats, error) { return c.stats("stats-tube " + tube) }

// StatsJob returns one job's stats (ErrNotFound for no such job).
func (c *Conn) StatsJob(id uint64) (Stats, error) {
	return c.stats("stats-job " + strconv.FormatUint(id, 10))
}

func (c *Conn) stats(line string) (Stats, error) {
	r, err := c.Do(line, nil)
	if err != nil {
		return nil, err
	}
	if r.Word != "OK" {
		return nil, replyError(line, r)
	}
	return ParseStats(r.Body)
}

// StatsTubes returns the stats of each named tube, sending the commands
// pipelined in batches so that thousands of tubes cost few round trips. A
// tube that vanished in between (NOT_FOUND) gets a nil entry.
func (c *Conn) StatsTubes(tubes []string) ([]Stats, error) {
	const batch = 256
	out := make([]Stats, len(tubes))
	for start := 0; start < len(tubes); start += batch {
		end := min(start+batch, len(tubes))
		for _, t := range tubes[start:end] {
			c.queue("stats-tube "+t, nil)
		}
		if err := c.flush(); err != nil {
			return nil, err
		}
		for i := start; i < end; i++ {
			r, err := c.read()
			if err != nil {
				return nil, err
			}
			switch r.Word {
			case "OK":
				if out[i], err = ParseStats(r.Body); err != nil {
					return nil, err
				}
			case "NOT_FOUND":
			default:
				return nil, replyError("stats-tube "+tubes[i], r)
			}
		}
	}
	return out, nil
}

// ListTubes returns the names of the existing tubes.
func (c *Conn) ListTubes() ([]string, error) {
	r, err := c.Do("list-tubes", nil)
	if err != nil {
		return nil, err
	}
	if r.Word != "OK" {
		return nil, replyError("list-tubes", r)
	}
	return ParseList(r.Body)
}

// Use selects the tube that put, peek-ready/delayed/buried and kick act on.
func (c *Conn) Use(tube string) error {
	r, err := c.Do("use "+tube, nil)
	if err != nil {
		return err
	}
	if r.Word != "USING" {
		return replyError("use "+tube, r)
	}
	return nil
}

// Put inserts a job into the used tube and returns its id. delay and ttr
// are in seconds. A BURIED reply returns a *BuriedError.
func (c *Conn) Put(pri uint32, delay, ttr uint32, body []byte) (uint64, error) {
	line := fmt.Sprintf("put %d %d %d %d", pri, delay, ttr, len(body))
	r, err := c.Do(line, body)
	if err != nil {
		return 0, err
	}
	switch r.Word {
	case "INSERTED":
		return r.uint(0)
	case "BURIED":
		id, err := r.uint(0)
		if err != nil {
			return 0, err
		}
		return id, &BuriedError{ID: id}
	}
	return 0, replyError("put", r)
}

// Peek returns the job with the given id.
func (c *Conn) Peek(id uint64) (Job, error) { return c.peek("peek " + strconv.FormatUint(id, 10)) }

// PeekState returns the next job of the used tube in state "ready",
// "delayed" or "buried".
func (c *Conn) PeekState(state string) (Job, error) { return c.peek("peek-" + state) }

func (c *Conn) peek(line string) (Job, error) {
	r, err := c.Do(line, nil)
	if err != nil {
		return Job{}, err
	}
	if r.Word != "FOUND" {
		return Job{}, replyError(line, r)
	}
	id, err := r.uint(0)
	return Job{ID: id, Body: r.Body}, err
}

// Delete deletes a job.
func (c *Conn) Delete(id uint64) error {
	return c.expect("delete "+strconv.FormatUint(id, 10), "DELETED")
}

// ReserveJob reserves the job with the given id, whatever its state
// (reserve-job, beanstalkd 1.12 and stalkd).
func (c *Conn) ReserveJob(id uint64) (Job, error) {
	line := "reserve-job " + strconv.FormatUint(id, 10)
	r, err := c.Do(line, nil)
	if err != nil {
		return Job{}, err
	}
	if r.Word != "RESERVED" {
		return Job{}, replyError(line, r)
	}
	return Job{ID: id, Body: r.Body}, nil
}

// Bury buries a job this connection has reserved, with priority pri.
func (c *Conn) Bury(id uint64, pri uint32) error {
	return c.expect(fmt.Sprintf("bury %d %d", id, pri), "BURIED")
}

// KickJob kicks one buried or delayed job.
func (c *Conn) KickJob(id uint64) error {
	return c.expect("kick-job "+strconv.FormatUint(id, 10), "KICKED")
}

// Kick kicks up to n jobs of the used tube and returns how many moved.
func (c *Conn) Kick(n uint64) (uint64, error) {
	return c.count("kick "+strconv.FormatUint(n, 10), "KICKED")
}

// PauseTube pauses a tube for the given number of seconds (0 resumes it).
func (c *Conn) PauseTube(tube string, seconds uint32) error {
	return c.expect(fmt.Sprintf("pause-tube %s %d", tube, seconds), "PAUSED")
}

// ClearTube deletes the ready, delayed and buried jobs of a tube (stalkd's
// clear-tube) and returns how many. ErrUnknownCommand means the server is
// not stalkd.
func (c *Conn) ClearTube(tube string) (uint64, error) {
	return c.count("clear-tube "+tube, "CLEARED")
}

// MaxListJobs is the most ids one list-jobs call returns.
const MaxListJobs = 1000

// ListJobs returns up to count (at most MaxListJobs) ids of the tube's jobs
// in state ("ready", "delayed", "buried" or "reserved"), skipping offset
// (stalkd's list-jobs). ErrUnknownCommand means the server is not stalkd.
func (c *Conn) ListJobs(tube, state string, offset, count uint64) ([]uint64, error) {
	line := fmt.Sprintf("list-jobs %s %s %d %d", tube, state, offset, count)
	r, err := c.Do(line, nil)
	if err != nil {
		return nil, err
	}
	if r.Word != "OK" {
		return nil, replyError(line, r)
	}
	l, err := ParseList(r.Body)
	if err != nil {
		return nil, err
	}
	ids := make([]uint64, len(l))
	for i, s := range l {
		if ids[i], err = strconv.ParseUint(s, 10, 64); err != nil {
			return nil, fmt.Errorf("%w: list-jobs id %q", ErrProtocol, s)
		}
	}
	return ids, nil
}

// expect sends line and wants the one-word reply word.
func (c *Conn) expect(line, word string) error {
	r, err := c.Do(line, nil)
	if err != nil {
		return err
	}
	if r.Word != word || len(r.Args) != 0 {
		return replyError(line, r)
	}
	return nil
}

// count sends line and wants "word <n>".
func (c *Conn) count(line, word string) (uint64, error) {
	r, err := c.Do(line, nil)
	if err != nil {
		return 0, err
	}
	if r.Word != word {
		return 0, replyError(line, r)
	}
	return r.uint(0)
}
