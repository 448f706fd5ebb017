package raft

import (
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/hashicorp/go-hclog"
	"github.com/rs/zerolog"
)

// hclogger sends hashicorp/raft's logging to the program's zerolog stream:
// component "cluster", raft's key/value pairs as fields, its sub-logger
// name as field "raft_name". raft's info messages (elections, leadership)
// stay info; its debug and trace go to debug and trace.
type hclogger struct {
	z       zerolog.Logger
	name    string
	implied []interface{}
}

func newHCLogger(z zerolog.Logger) hclog.Logger { return &hclogger{z: z} }

func (l *hclogger) Log(level hclog.Level, msg string, args ...interface{}) {
	var e *zerolog.Event
	switch level {
	case hclog.Trace:
		e = l.z.Trace()
	case hclog.Debug:
		e = l.z.Debug()
	case hclog.Info, hclog.NoLevel, hclog.DefaultLevel:
		e = l.z.Info()
	case hclog.Warn:
		e = l.z.Warn()
	default:
		e = l.z.Error()
	}
	if e == nil {
		return
	}
	if l.name != "" {
		e = e.Str("raft_name", l.name)
	}
	all := append(append([]interface{}(nil), l.implied...), args...)
	for i := 0; i+1 < len(all); i += 2 {
		k := fieldName(fmt.Sprint(all[i]))
		switch v := all[i+1].(type) {
		case error:
			e = e.AnErr(k, v)
		case hclog.Format: // hclog.Fmt("%+v", x)
			f, ok := "", false
			if len(v) > 0 {
				f, ok = v[0].(string)
			}
			if ok {
				e = e.Str(k, fmt.Sprintf(f, v[1:]...))
			} else {
				e = e.Str(k, fmt.Sprint(v...))
			}
		case fmt.Stringer:
			e = e.Stringer(k, v)
		default:
			e = e.Interface(k, v)
		}
	}
	e.Msg(strings.ToLower(msg[:min(1, len(msg))]) + msg[min(1, len(msg)):])
}

// fieldName makes raft's keys ("last-index", "commit index") snake_case.
func fieldName(k string) string {
	return strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(k))
}

func (l *hclogger) Trace(msg string, args ...interface{}) { l.Log(hclog.Trace, msg, args...) }
func (l *hclogger) Debug(msg string, args ...interface{}) { l.Log(hclog.Debug, msg, args...) }
func (l *hclogger) Info(msg string, args ...interface{})  { l.Log(hclog.Info, msg, args...) }
func (l *hclogger) Warn(msg string, args ...interface{})  { l.Log(hclog.Warn, msg, args...) }
func (l *hclogger) Error(msg string, args ...interface{}) { l.Log(hclog.Error, msg, args...) }

func (l *hclogger) IsTrace() bool { return l.z.GetLevel() <= zerolog.TraceLevel }
func (l *hclogger) IsDebug() bool { return l.z.GetLevel() <= zerolog.DebugLevel }
func (l *hclogger) IsInfo() bool  { return l.z.GetLevel() <= zerolog.InfoLevel }
func (l *hclogger) IsWarn() bool  { return l.z.GetLevel() <= zerolog.WarnLevel }
func (l *hclogger) IsError() bool { return l.z.GetLevel() <= zerolog.ErrorLevel }

func (l *hclogger) ImpliedArgs() []interface{} { return l.implied }

func (l *hclogger) With(args ...interface{}) hclog.Logger {
	c := *l
	c.implied = append(append([]interface{}(nil), l.implied...), args...)
	return &c
}

func (l *hclogger) Name() string { return l.name }

func (l *hclogger) Named(name string) hclog.Logger {
	c := *l
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (l *hclogger) ResetNamed(name string) hclog.Logger {
	c := *l
	c.name = name
	return &c
}

// SetLevel is ignored: verbosity is the program logger's level.
func (l *hclogger) SetLevel(hclog.Level) {}

func (l *hclogger) GetLevel() hclog.Level {
	switch lv := l.z.GetLevel(); {
	case lv <= zerolog.TraceLevel:
		return hclog.Trace
	case lv <= zerolog.DebugLevel:
		return hclog.Debug
	case lv <= zerolog.InfoLevel:
		return hclog.Info
	case lv <= zerolog.WarnLevel:
		return hclog.Warn
	}
	return hclog.Error
}

func (l *hclogger) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return log.New(l.StandardWriter(nil), "", 0)
}

func (l *hclogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer { return stdWriter{l} }

type stdWriter struct{ l *hclogger }

func (w stdWriter) Write(p []byte) (int, error) {
	w.l.Info(strings.TrimSpace(string(p)))
	return len(p), nil
}
