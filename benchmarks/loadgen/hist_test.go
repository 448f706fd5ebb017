package loadgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHistogramExactBelow256(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 200; v++ {
		h.Record(v)
	}
	assert.Equal(t, uint64(200), h.Count())
	assert.Equal(t, time.Duration(100), h.Quantile(0.5))
	assert.Equal(t, time.Duration(198), h.Quantile(0.99))
	assert.Equal(t, time.Duration(200), h.Quantile(0.999))
	assert.Equal(t, time.Duration(200), h.Quantile(1))
	assert.Equal(t, time.Duration(1), h.Quantile(0))
	assert.Equal(t, time.Duration(1), h.Min())
	assert.Equal(t, time.Duration(200), h.Max())
	assert.Equal(t, time.Duration(100), h.Mean()) // 20100/200 = 100.5, truncated
}

func TestHistogramUniformMicroseconds(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 100_000; v++ {
		h.Record(v * 1000) // 1 µs … 100 ms
	}
	for _, c := range []struct {
		q    float64
		want float64
	}{{0.5, 50e6}, {0.99, 99e6}, {0.999, 99.9e6}} {
		got := float64(h.Quantile(c.q))
		assert.InEpsilon(t, c.want, got, 1.0/128, "q=%v", c.q)
		assert.GreaterOrEqual(t, got, c.want, "the bucket's top is reported, never below the value")
	}
	assert.Equal(t, 100*time.Millisecond, h.Max())
}

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	for _, v := range []uint64{0, 1, 255, 256, 257, 511, 512, 1 << 20, 1<<20 + 12345, maxValue} {
		i := bucketOf(v)
		require.Less(t, i, nBuckets, "v=%d", v)
		assert.GreaterOrEqual(t, bucketHigh(i), v, "v=%d", v)
		if i > 0 {
			assert.Less(t, bucketHigh(i-1), v, "v=%d lands in the first bucket that can hold it", v)
		}
	}
	assert.Equal(t, nBuckets-1, bucketOf(1<<60), "huge values clamp into the last bucket")
}

func TestHistogramSkewedTail(t *testing.T) {
	h := NewHistogram()
	h.RecordN(int64(100*time.Microsecond), 990)
	h.RecordN(int64(10*time.Millisecond), 9)
	h.Record(int64(time.Second))
	assert.InEpsilon(t, float64(100*time.Microsecond), float64(h.Quantile(0.5)), 0.01)
	assert.InEpsilon(t, float64(100*time.Microsecond), float64(h.Quantile(0.99)), 0.01)
	assert.InEpsilon(t, float64(10*time.Millisecond), float64(h.Quantile(0.999)), 0.01)
	assert.Equal(t, time.Second, h.Quantile(1))
	assert.Equal(t, uint64(1000), h.Count())
}

func TestHistogramMergeAndReset(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	a.Record(10)
	b.Record(1000)
	b.Record(-5) // negative counts as zero
	a.Merge(b)
	assert.Equal(t, uint64(3), a.Count())
	assert.Equal(t, time.Duration(0), a.Min())
	assert.Equal(t, time.Duration(1000), a.Max())
	a.Reset()
	assert.Equal(t, uint64(0), a.Count())
	assert.Equal(t, time.Duration(0), a.Quantile(0.99))
	assert.Equal(t, time.Duration(0), a.Mean())
}
