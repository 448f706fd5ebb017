package codec

import "strconv"

// AppendLine appends the command line cmd was decoded from, rebuilt from its
// fields by the command's argument form in the table (commands.go), so a
// new command is covered by the form it declares: numbers in canonical
// form, no CRLF. A line that failed to parse is named by the command it
// matched, without arguments. An auth token is never written: "auth ***".
// A put body is not part of a line: OpPut appends "put" alone.
//
// It is for logs (the -VV trace line); it allocates nothing when dst has room.
func AppendLine(dst []byte, cmd *Command) []byte {
	op := cmd.Op
	if op == OpNone {
		return append(dst, cmd.Matched.String()...)
	}
	dst = append(dst, op.String()...)
	num := func(n uint64) { dst = strconv.AppendUint(append(dst, ' '), n, 10) }
	name := func() { dst = append(append(dst, ' '), cmd.Name...) }
	switch commands[op].form {
	case argID:
		num(cmd.ID)
	case argPut:
		num(uint64(cmd.Pri))
		num(uint64(cmd.Delay))
		num(uint64(cmd.TTR))
		num(uint64(cmd.Size))
	case argTimeout:
		dst = strconv.AppendInt(append(dst, ' '), int64(cmd.Timeout), 10)
	case argRelease:
		num(cmd.ID)
		num(uint64(cmd.Pri))
		num(uint64(cmd.Delay))
	case argBury:
		num(cmd.ID)
		num(uint64(cmd.Pri))
	case argKick:
		num(uint64(cmd.Count))
	case argName:
		name()
	case argPause:
		name()
		num(uint64(cmd.Delay))
	case argListJobs:
		name()
		if int(cmd.State) >= 0 && int(cmd.State) < len(ListStates) {
			dst = append(append(dst, ' '), ListStates[cmd.State]...)
		}
		num(cmd.ID)
		num(uint64(cmd.Count))
	case argToken:
		dst = append(dst, " ***"...)
	}
	return dst
}
