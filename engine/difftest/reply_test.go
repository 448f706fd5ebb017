package difftest

import (
	"strconv"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// reply is one reply read from a server, or a pseudo-reply (enginetest.Reply).
type reply = enginetest.Reply

// render joins replies into one comparable transcript.
func render(rs []reply) string { return enginetest.Render(rs) }

// okDoc is the literal reply "OK <n>\r\n<body>\r\n" for a script's want.
func okDoc(body string) string {
	return "OK " + strconv.Itoa(len(body)) + "\r\n" + body + "\r\n"
}

// okList is the literal reply carrying the YAML list of items.
func okList(items ...string) string {
	body := "---\n"
	for _, it := range items {
		body += "- " + it + "\n"
	}
	return okDoc(body)
}
