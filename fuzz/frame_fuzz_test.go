package fuzz

import (
	"reflect"
	"testing"

	"github.com/stalkd/stalkd/codec"
)

// everyOffsetMax is the longest input FuzzFramingDecoder splits at every
// offset (quadratic work); a longer one is split at the fuzzed offset and at
// 64 offsets spread over it.
const everyOffsetMax = 1024

// FuzzFramingDecoder runs a framing-only decoder (codec.NewFramingDecoder) in
// lockstep with a full one over arbitrary bytes, with a fuzzed maximum job
// size: whole, byte by byte, and split in two at every offset. At every call
// both must consume the same count and give the same event - the same frame
// boundaries, command words, fields and errors - except that the framing
// decoder never has a body; and both must be in the same state after it.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzFramingDecoder -fuzztime=3m
func FuzzFramingDecoder(f *testing.F) {
	for _, s := range decoderSeeds {
		f.Add([]byte(s), uint16(len(s)/2), uint16(10))
	}
	f.Fuzz(func(t *testing.T, data []byte, split uint16, max uint16) {
		maxJob := uint32(max)
		want := lockstep(t, maxJob, data)
		bytewise := make([][]byte, len(data))
		for i := range data {
			bytewise[i] = data[i : i+1]
		}
		sameEvents(t, want, lockstep(t, maxJob, bytewise...), "byte by byte")
		offsets := []int{int(split) % (len(data) + 1)}
		if len(data) <= everyOffsetMax {
			for i := 0; i <= len(data); i++ {
				offsets = append(offsets, i)
			}
		} else {
			for i := range 64 {
				offsets = append(offsets, i*len(data)/64)
			}
		}
		for _, at := range offsets {
			sameEvents(t, want, lockstep(t, maxJob, data[:at], data[at:]), "split at %d", at)
		}
	})
}

// lockstep feeds the chunks to a full and a framing-only decoder side by
// side, dropping what each consumed, and fails at the first call where they
// differ. It returns the events (Name copied out of the input).
func lockstep(t *testing.T, maxJob uint32, chunks ...[]byte) []codec.Command {
	full, frame := codec.NewDecoder(maxJob), codec.NewFramingDecoder(maxJob)
	var pending []byte
	var out []codec.Command
	for _, c := range chunks {
		pending = append(pending, c...)
		for {
			want, n, ok := full.Decode(pending)
			got, fn, fok := frame.Decode(pending)
			if got.Body != nil {
				t.Fatalf("the framing decoder returned a body: %+v", got.Op)
			}
			if ok {
				checkCommand(t, maxJob, want)
			}
			want.Body = nil
			if fn != n || fok != ok || !sameCommand(want, got) {
				t.Fatalf("full decoder: %+v n=%d ok=%v; framing decoder: %+v n=%d ok=%v", want, n, ok, got, fn, fok)
			}
			if full.InBody() != frame.InBody() || full.BodyLeft() != frame.BodyLeft() || full.Idle() != frame.Idle() {
				t.Fatalf("states differ after %+v: in body %v/%v, left %d/%d, idle %v/%v", got,
					full.InBody(), frame.InBody(), full.BodyLeft(), frame.BodyLeft(), full.Idle(), frame.Idle())
			}
			if ok {
				out = append(out, copyName(got))
			}
			pending = pending[:copy(pending, pending[n:])]
			if !ok {
				if len(pending) >= codec.LineMax {
					t.Fatalf("the decoders left %d bytes of an unfinished line", len(pending))
				}
				break
			}
		}
	}
	return out
}

// sameCommand compares two events field by field (Name and Token by value).
func sameCommand(a, b codec.Command) bool {
	na, nb, ta, tb := a.Name, b.Name, a.Token, b.Token
	a.Name, b.Name, a.Token, b.Token = nil, nil, nil, nil
	return reflect.DeepEqual(a, b) && string(na) == string(nb) && string(ta) == string(tb)
}

func sameEvents(t *testing.T, want, got []codec.Command, how string, args ...any) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf(how+": %d events, want %d", append(args, len(got), len(want))...)
	}
	for i := range want {
		if !sameCommand(want[i], got[i]) {
			t.Fatalf(how+": event %d is %+v, want %+v", append(args, i, got[i], want[i])...)
		}
	}
}
