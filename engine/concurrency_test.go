package engine

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// collector records which ids were delivered, and how often.
type collector struct {
	mu   sync.Mutex
	seen map[uint64]int
	n    atomic.Int64
}

func (c *collector) add(id uint64) {
	c.mu.Lock()
	c.seen[id]++
	c.mu.Unlock()
	c.n.Add(1)
}

// TestConcurrentExactlyOnce: hundreds of connections put and reserve at once;
// every job is delivered exactly once. The consumers end blocked in reserve
// and are then closed, which must leave nothing behind.
func TestConcurrentExactlyOnce(t *testing.T) {
	const producers, consumers, perProducer = 150, 150, 40
	const total = producers * perProducer
	s := startServer(t)
	addr := addrOf(t, s)
	col := &collector{seen: map[uint64]int{}}

	var cwg sync.WaitGroup
	cconns := make([]*beanstalk.Conn, consumers)
	for i := range cconns {
		c, err := beanstalk.DialTimeout("tcp", addr, ioTimeout)
		require.NoError(t, err)
		cconns[i] = c
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for {
				id, _, err := c.Reserve(time.Hour) // ends when the conn is closed
				if err != nil {
					return
				}
				col.add(id)
				if c.Delete(id) != nil {
					return
				}
			}
		}()
	}

	var pwg sync.WaitGroup
	for p := 0; p < producers; p++ {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			c, err := beanstalk.DialTimeout("tcp", addr, ioTimeout)
			if !assert.NoError(t, err) {
				return
			}
			defer c.Close()
			for i := 0; i < perProducer; i++ {
				_, err := c.Put([]byte("job "+strconv.Itoa(p)+"/"+strconv.Itoa(i)), uint32(i%3), 0, time.Minute)
				if !assert.NoError(t, err) {
					return
				}
			}
		}()
	}
	pwg.Wait()
	require.Eventually(t, func() bool { return col.n.Load() >= total }, 4*ioTimeout, time.Millisecond)
	require.Eventually(t, func() bool { return s.Queue().Stats().Waiting == consumers }, ioTimeout, time.Millisecond)
	for _, c := range cconns {
		_ = c.Close()
	}
	cwg.Wait()

	col.mu.Lock()
	defer col.mu.Unlock()
	assert.Len(t, col.seen, total)
	for id, n := range col.seen {
		if n != 1 {
			t.Errorf("job %d delivered %d times", id, n)
		}
	}
	require.Eventually(t, func() bool {
		st := s.Queue().Stats()
		return st.Waiting == 0 && st.Connections == 0
	}, ioTimeout, time.Millisecond)
	st := s.Queue().Stats()
	assert.Zero(t, st.Ready+st.Reserved+st.Delayed+st.Buried)
	assert.Equal(t, uint64(total), st.TotalJobs)
}

// TestConcurrentAbandon: consumers that close mid-reserve or while holding
// jobs lose nothing: every job ends deleted exactly once or ready again.
func TestConcurrentAbandon(t *testing.T) {
	const jobs, consumers = 1500, 60
	s := startServer(t)
	addr := addrOf(t, s)
	var deleted sync.Map
	var ndeleted atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < consumers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				c, err := beanstalk.DialTimeout("tcp", addr, ioTimeout)
				if !assert.NoError(t, err) {
					return
				}
				id, _, err := c.Reserve(50 * time.Millisecond)
				switch {
				case err != nil: // timed out: nothing ready yet
				case (int(id)+i+k)%3 == 0: // abandon it: the close releases it
				default:
					if c.Delete(id) == nil {
						_, dup := deleted.LoadOrStore(id, true)
						assert.False(t, dup, "job %d deleted twice", id)
						ndeleted.Add(1)
					}
				}
				_ = c.Close()
			}
		}()
	}
	p := dialClient(t, s)
	for i := 0; i < jobs; i++ {
		_, err := p.Put([]byte("x"), 0, 0, time.Minute)
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return ndeleted.Load() > jobs/2 }, 4*ioTimeout, time.Millisecond)
	close(stop)
	wg.Wait()
	require.Eventually(t, func() bool {
		st := s.Queue().Stats()
		return st.Reserved == 0 && st.Waiting == 0
	}, ioTimeout, time.Millisecond, "closing connections release their jobs and waits")
	st := s.Queue().Stats()
	assert.Equal(t, jobs-ndeleted.Load(), st.Ready, "every job not deleted is ready again")
	assert.Zero(t, st.JobTimeouts, "a disconnect is not a timeout")
}

// TestCloseReleasesReservedJobs: jobs reserved by a connection that closes
// go straight back to ready, without counting a timeout.
func TestCloseReleasesReservedJobs(t *testing.T) {
	s := startServer(t)
	p := dial(t, s)
	for i := 1; i <= 3; i++ {
		p.Do("put 0 0 100 1\r\nx\r\n", "INSERTED "+strconv.Itoa(i)+"\r\n")
	}
	w := dial(t, s)
	w.Send("reserve\r\nreserve\r\nreserve\r\n")
	for i := 1; i <= 3; i++ {
		w.Expect("RESERVED " + strconv.Itoa(i) + " 1\r\nx\r\n")
	}
	require.Equal(t, int64(3), s.Queue().Stats().Reserved)
	require.NoError(t, w.NetConn().Close())
	require.Eventually(t, func() bool { return s.Queue().Stats().Ready == 3 }, ioTimeout, time.Millisecond)
	js, err := s.Queue().StatsJob(1)
	require.NoError(t, err)
	assert.Equal(t, uint32(0), js.Timeouts)
	assert.Equal(t, uint32(1), js.Reserves)

	// A connection closed while blocked in reserve is no longer a waiter: the
	// next job goes to a live one.
	b := dial(t, s)
	b.Send("watch other\r\nignore default\r\nreserve\r\n")
	b.Expect("WATCHING 2\r\nWATCHING 1\r\n")
	require.Eventually(t, func() bool { return s.Queue().Stats().Waiting == 1 }, ioTimeout, time.Millisecond)
	require.NoError(t, b.NetConn().Close())
	require.Eventually(t, func() bool { return s.Queue().Stats().Waiting == 0 }, ioTimeout, time.Millisecond)
	p.Do("use other\r\nput 0 0 100 1\r\ny\r\n", "USING other\r\nINSERTED 4\r\n")
	p.Do("peek-ready\r\n", "FOUND 4 1\r\ny\r\n")
}
