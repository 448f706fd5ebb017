package admin

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestActionsWaitForTheCommit: an action answers once the journal commits
// its change - woken by the commit, as protocol replies are - and answers
// 503 with the journal's own error when the journal fails.
func TestActionsWaitForTheCommit(t *testing.T) {
	j := &enginetest.Journal{}
	clk := jobs.NewManualClock(t0)
	q := jobs.New(jobs.Config{Clock: clk, Journal: j})
	s := newStackOn(t, q, clk)
	ss := q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte("work")))
	for range 2 {
		_, _, err := ss.Put(jobs.PutRequest{Delay: time.Hour, TTR: time.Minute, Body: []byte("x")})
		require.NoError(t, err)
	}
	j.CommitAll()

	done := make(chan int, 1)
	go func() {
		code, _ := s.do(http.MethodPost, "/v1/tubes/work/kick?n=1")
		done <- code
	}()
	enginetest.Eventually(t, "the kick to be journalled", func() bool { return j.Appended() == 3 })
	select {
	case code := <-done:
		t.Fatalf("answered %d before the commit", code)
	case <-time.After(50 * time.Millisecond):
	}
	j.CommitAll()
	select {
	case code := <-done:
		assert.Equal(t, http.StatusOK, code)
	case <-time.After(enginetest.Timeout):
		t.Fatal("the commit did not wake the action")
	}

	go func() {
		code, b := s.do(http.MethodPost, "/v1/tubes/work/kick?n=1")
		done <- code
		assert.Contains(t, string(b), `"the journal failed: disk on fire"`)
	}()
	enginetest.Eventually(t, "the second kick to be journalled", func() bool { return j.Appended() == 4 })
	j.Fail(errors.New("disk on fire"))
	select {
	case code := <-done:
		assert.Equal(t, http.StatusServiceUnavailable, code)
	case <-time.After(enginetest.Timeout):
		t.Fatal("the failure did not wake the action")
	}
}
