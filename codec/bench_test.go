package codec

import (
	"bytes"
	"fmt"
	"testing"
)

func decodeBatch(d *Decoder, in []byte) int {
	count := 0
	for {
		_, n, ok := d.Decode(in)
		in = in[n:]
		if !ok {
			return count
		}
		count++
	}
}

// BenchmarkDecodePipelined decodes a pipelined batch of every non-put command.
func BenchmarkDecodePipelined(b *testing.B) {
	in, want := pipeline()
	d := NewDecoder(defMax)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if decodeBatch(d, in) != len(want) {
			b.Fatal("short batch")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(want)), "ns/cmd")
}

// BenchmarkDecodeReserveDelete is the worker hot loop: reserve, delete.
func BenchmarkDecodeReserveDelete(b *testing.B) {
	in := []byte("reserve\r\ndelete 1234567\r\n")
	d := NewDecoder(defMax)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		decodeBatch(d, in)
	}
}

// BenchmarkDecodePut decodes put line plus body; the body buffer is the one allocation.
func BenchmarkDecodePut(b *testing.B) {
	for _, size := range []int{16, 1024, 65535} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			in := fmt.Appendf(nil, "put 1024 0 60 %d\r\n", size)
			in = append(in, bytes.Repeat([]byte("x"), size)...)
			in = append(in, "\r\n"...)
			d := NewDecoder(defMax)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				decodeBatch(d, in)
			}
		})
	}
}

// BenchmarkEncode appends a typical mix of replies into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	dst := make([]byte, 0, 4096)
	body := bytes.Repeat([]byte("x"), 100)
	b.ReportAllocs()
	for b.Loop() {
		out := dst[:0]
		out = AppendInserted(out, 123456)
		out = AppendReserved(out, 123456, body)
		out = append(out, Deleted...)
		out = AppendWatching(out, 3)
		_ = out
	}
}
