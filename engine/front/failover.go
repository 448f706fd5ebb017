package front

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/stalkd/stalkd/codec"
)

// Failover: when the leader's side of a carried connection fails, what was
// in flight is answered INTERNAL_ERROR, the next leader is dialed and the
// client's session (auth, use, watch list) replayed on it; with no leader
// within the front's Wait, the commands that keep coming are refused.

// failover answers the commands in flight, finds the new leader, replays
// the client's tubes and returns the new connection (nil: none within the
// front's Wait; the commands that keep coming are refused).
func (c *carrier) failover(inflight []carried) net.Conn {
	var out []byte
	for range inflight {
		out = append(out, codec.InternalError...)
	}
	if _, err := c.client.Write(out); err != nil {
		return nil
	}
	c.f.log.Debug().Str("remote_addr", c.client.RemoteAddr().String()).Int("in_flight", len(inflight)).
		Msg("leader gone; carrying the connection to the next")
	ctx, cancel := context.WithTimeout(context.Background(), c.f.cfg.Wait)
	defer cancel()
	go func() {
		select {
		case <-c.f.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		up, gen := c.f.dial(ctx)
		if up == nil {
			c.refuseRest()
			return nil
		}
		if gen == c.gen && alive(up) {
			// The same engine answers: the leader is alive and closed the
			// connection on purpose (quit after failed auths, a client cut
			// off for sending too much): so does the front. (A dying
			// process may still accept for an instant: hence the probe.)
			c.f.untrack(up)
			return nil
		}
		// The same engine that failed before (not alive, so dying), or a
		// new one that did not take the session: wait, and dial again.
		if gen != c.gen && c.replay(up) == nil {
			c.gen = gen
			return up
		}
		c.f.untrack(up)
		select {
		case <-ctx.Done():
			c.refuseRest()
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// replay makes up's session authenticated, using and watching as the
// client's was.
func (c *carrier) replay(up net.Conn) error {
	var req []byte
	n := 0
	if c.auth != nil {
		req = append(req, c.auth...)
		n++
	}
	if c.use != "default" {
		req = append(append(append(req, "use "...), c.use...), "\r\n"...)
		n++
	}
	hasDefault := false
	for _, w := range c.watch {
		if w == "default" {
			hasDefault = true
			continue
		}
		req = append(append(append(req, "watch "...), w...), "\r\n"...)
		n++
	}
	if !hasDefault {
		req = append(req, "ignore default\r\n"...)
		n++
	}
	if n == 0 {
		return nil
	}
	_ = up.SetDeadline(time.Now().Add(c.f.cfg.Wait))
	defer func() { _ = up.SetDeadline(time.Time{}) }()
	if _, err := up.Write(req); err != nil {
		return err
	}
	r := bufio.NewReaderSize(up, 256)
	for ; n > 0; n-- {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line != codec.Authenticated && !strings.HasPrefix(line, "USING ") && !strings.HasPrefix(line, "WATCHING ") {
			return errors.New("replay: unexpected reply " + strconv.Quote(line))
		}
	}
	if r.Buffered() > 0 {
		return errors.New("replay: unexpected bytes")
	}
	return nil
}

// refuseRest answers the commands still coming (c.first first) with
// INTERNAL_ERROR until the client has been quiet for refuseQuiet; then the
// connection closes.
func (c *carrier) refuseRest() {
	first := c.first
	c.first = nil
	if first != nil && !c.refuse(first) {
		return
	}
	for {
		select {
		case batch, ok := <-c.cmds:
			if !ok || !c.refuse(batch) {
				return
			}
		case <-time.After(refuseQuiet):
			return
		}
	}
}

// refuse answers a batch of commands INTERNAL_ERROR each, and reports
// whether the conversation goes on (no quit, no end of input, no failed
// write).
func (c *carrier) refuse(batch []carried) bool {
	var out []byte
	for _, it := range batch {
		if it.cont {
			continue // a piece of a long command, answered at its first
		}
		if it.quits() {
			_, _ = c.client.Write(out)
			return false
		}
		out = append(out, codec.InternalError...)
	}
	_, err := c.client.Write(out)
	return err == nil
}

// alive reports whether the engine at the other end of up answers a
// harmless command (any reply line will do) within a second.
func alive(up net.Conn) bool {
	_ = up.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(up, "list-tube-used\r\n"); err != nil {
		return false
	}
	_, err := bufio.NewReader(up).ReadString('\n')
	return err == nil
}
