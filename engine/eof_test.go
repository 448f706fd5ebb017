package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBroadcast(t *testing.T) {
	var b broadcast
	b.signal() // nobody waits: nothing to remember
	w1, w2 := b.wait(), b.wait()
	assert.Equal(t, w1, w2, "waiters before one signal share it")
	select {
	case <-w1:
		t.Fatal("closed before any signal")
	default:
	}
	b.signal()
	<-w1
	<-w2
	w3 := b.wait()
	select {
	case <-w3:
		t.Fatal("a wait after the signal waits for the next one")
	default:
	}
	b.signal()
	<-w3
}
