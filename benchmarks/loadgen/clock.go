package loadgen

import (
	"encoding/binary"
	"time"
)

// epoch anchors nanotime; time.Since reads the monotonic clock, so stamps are
// immune to wall-clock jumps. Stamps are only meaningful inside this process.
var epoch = time.Now()

// nanotime is monotonic nanoseconds since the process started.
func nanotime() int64 { return int64(time.Since(epoch)) }

// stampLen is the size of the put timestamp embedded at the start of e2e bodies.
const stampLen = 8

// putStamp writes t into the first bytes of body (which must hold stampLen).
func putStamp(body []byte, t int64) { binary.LittleEndian.PutUint64(body, uint64(t)) }

// readStamp reads the timestamp written by putStamp; ok is false if the body is too short.
func readStamp(body []byte) (t int64, ok bool) {
	if len(body) < stampLen {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(body)), true
}
