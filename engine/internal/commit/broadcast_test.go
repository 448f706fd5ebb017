package commit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBroadcast(t *testing.T) {
	var b Broadcast
	b.Signal() // nobody waits: nothing to remember
	w1, w2 := b.Wait(), b.Wait()
	assert.Equal(t, w1, w2, "waiters before one signal share it")
	select {
	case <-w1:
		t.Fatal("closed before any signal")
	default:
	}
	b.Signal()
	<-w1
	<-w2
	w3 := b.Wait()
	select {
	case <-w3:
		t.Fatal("a wait after the signal waits for the next one")
	default:
	}
	b.Signal()
	<-w3
}
