package memreturn

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestMemReturnDecides(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	var m memReturn
	sec := func(n int) time.Time { return at.Add(time.Duration(n) * time.Second) }
	assert.False(t, m.observe(memReturnMin/2, sec(0)), "a small peak is not worth it")
	assert.False(t, m.observe(0, sec(10)))
	assert.False(t, m.observe(400<<20, sec(20)))
	assert.False(t, m.observe(101<<20, sec(21)), "above a quarter of the peak")
	assert.True(t, m.observe(99<<20, sec(22)), "a drain to below a quarter")
	assert.False(t, m.observe(0, sec(23)), "rate-limited")
	assert.True(t, m.observe(0, sec(22).Add(memReturnGap)), "the rest of the drain, once the gap passed")
	assert.False(t, m.observe(0, sec(60)), "nothing more to return")
	assert.False(t, m.observe(5<<20, sec(70)))
	assert.False(t, m.observe(0, sec(80)), "too little to be worth it")

	// A drain in progress: held falls fast every second. No forced
	// collection while the workers drain; one as soon as it settles.
	var d memReturn
	assert.False(t, d.observe(1<<30, sec(100)))
	assert.False(t, d.observe(200<<20, sec(101)), "below a quarter, but still falling fast")
	assert.False(t, d.observe(50<<20, sec(102)), "still falling")
	assert.True(t, d.observe(49<<20, sec(103)), "settled below a quarter of the peak")
}
