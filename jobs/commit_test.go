package jobs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// subJournal counts subscriptions and calls them on demand.
type subJournal struct {
	fakeJournal
	subs []func()
}

func (j *subJournal) Subscribe(fn func()) { j.subs = append(j.subs, fn) }

func TestQueueSubscribe(t *testing.T) {
	j := &subJournal{}
	q := New(Config{Journal: j})
	calls := 0
	q.Subscribe(func() { calls++ })
	assert.Len(t, j.subs, 1, "the queue hands the subscription to its journal")
	j.subs[0]()
	assert.Equal(t, 1, calls)

	New(Config{}).Subscribe(func() { t.Fatal("no journal: nothing to announce") })
}
