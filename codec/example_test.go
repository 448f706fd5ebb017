package codec_test

import (
	"fmt"

	"github.com/stalkd/stalkd/codec"
)

// A server loop: bytes arrive in arbitrary pieces, the caller keeps what the decoder has not
// consumed, and replies are gathered into one buffer.
func ExampleDecoder() {
	d := codec.NewDecoder(65535)
	reads := []string{"use emails\r\nput 0 0 60 5\r\nhel", "lo\r\npeek x\r\nre", "serve\r\n"}

	var in, out []byte
	for _, r := range reads {
		in = append(in, r...)
		for {
			cmd, n, ok := d.Decode(in)
			if ok {
				out = handle(out, cmd)
			}
			in = in[n:] // gnet: c.Discard(n)
			if !ok {
				break
			}
		}
	}
	fmt.Printf("%q\n", out)
	// Output:
	// "USING emails\r\nINSERTED 1\r\nBAD_FORMAT\r\nRESERVED 1 5\r\nhello\r\n"
}

var job []byte

func handle(out []byte, cmd codec.Command) []byte {
	if cmd.Err != nil {
		return codec.AppendError(out, cmd.Err.(codec.WireError))
	}
	switch cmd.Op {
	case codec.OpUse:
		return codec.AppendUsing(out, string(cmd.Name)) // Name is copied before the Discard
	case codec.OpPutHeader:
		return out // wait for the body
	case codec.OpPut:
		job = cmd.Body // the body (the data, without its CRLF) is ours now
		return codec.AppendInserted(out, 1)
	case codec.OpReserve:
		return codec.AppendReserved(out, 1, job)
	}
	return codec.AppendError(out, codec.ErrUnknownCommand)
}
