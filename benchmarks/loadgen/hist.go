package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// Histogram layout: values below 2^subBits are exact; above, every power of
// two is split into 2^(subBits-1) linear buckets, so a recorded value is
// known to within 1/2^(subBits-1) (0.8%). Values above maxValue are clamped.
const (
	subBits  = 8
	subCount = 1 << subBits // 256 exact buckets at the bottom
	subHalf  = subCount / 2 // linear buckets per power of two above
	maxShift = 36 - subBits // highest shift kept
	maxValue = 1<<36 - 1    // about 68.7 s in nanoseconds
	nBuckets = subCount + maxShift*subHalf
)

// Histogram is a fixed log-linear latency histogram in nanoseconds, in the
// spirit of HdrHistogram: Record is a few instructions and never allocates.
// It is not safe for concurrent use: each worker owns one, and the runner
// merges them after the workers have stopped.
type Histogram struct {
	counts [nBuckets]uint64
	total  uint64
	sum    uint64
	min    uint64
	max    uint64
}

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram { return &Histogram{min: math.MaxUint64} }

// bucketOf maps a value to its bucket index.
func bucketOf(v uint64) int {
	if v < subCount {
		return int(v)
	}
	if v > maxValue {
		v = maxValue
	}
	shift := bits.Len64(v) - subBits // v>>shift is in [subHalf, subCount)
	return subCount + (shift-1)*subHalf + int(v>>uint(shift)) - subHalf
}

// bucketHigh is the highest value that maps to bucket i.
func bucketHigh(i int) uint64 {
	if i < subCount {
		return uint64(i)
	}
	shift := (i-subCount)/subHalf + 1
	low := uint64((i-subCount)%subHalf+subHalf) << uint(shift)
	return low + (1 << uint(shift)) - 1
}

// Record adds one value in nanoseconds; negative values count as zero.
func (h *Histogram) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	h.counts[bucketOf(v)]++
	h.total++
	h.sum += v
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
}

// RecordN adds n copies of one value (a batch that shares one round trip).
func (h *Histogram) RecordN(ns int64, n int) {
	if n <= 0 {
		return
	}
	h.Record(ns)
	if n > 1 {
		v := uint64(max(ns, 0))
		h.counts[bucketOf(v)] += uint64(n - 1)
		h.total += uint64(n - 1)
		h.sum += v * uint64(n-1)
	}
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.total }

// Max is the largest recorded value (0 when empty).
func (h *Histogram) Max() time.Duration { return time.Duration(h.max) }

// Min is the smallest recorded value (0 when empty).
func (h *Histogram) Min() time.Duration {
	if h.total == 0 {
		return 0
	}
	return time.Duration(h.min)
}

// Mean is the average recorded value (0 when empty).
func (h *Histogram) Mean() time.Duration {
	if h.total == 0 {
		return 0
	}
	return time.Duration(h.sum / h.total)
}

// Quantile returns the value at quantile q in [0,1]: the highest value of the
// bucket holding the ceil(q*count)-th smallest value, capped by Max. Empty → 0.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return time.Duration(min(bucketHigh(i), h.max))
		}
	}
	return time.Duration(h.max)
}

// Merge adds every value of o into h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.total += o.total
	h.sum += o.sum
	h.min = min(h.min, o.min)
	h.max = max(h.max, o.max)
}

// Reset empties h.
func (h *Histogram) Reset() { *h = Histogram{min: math.MaxUint64} }
