// Package logx is the shim's leveled logger. Its level comes from
// ROCJITSU_LOG (error, warn, info, debug; default warn) and its output from
// ROCJITSU_LOG_FILE (appended to; default standard error). Every line starts
// with "rocjitsu[pid]: LEVEL: ".
package logx

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Level orders log messages by importance.
type Level int

// The levels, most important first.
const (
	Error Level = iota
	Warn
	Info
	Debug
)

var levelNames = [...]string{"error", "warn", "info", "debug"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return fmt.Sprintf("level(%d)", int(l))
	}
	return levelNames[l]
}

// ParseLevel reads a level name; the empty string means Warn.
func ParseLevel(s string) (Level, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Warn, nil
	}
	for i, n := range levelNames {
		if s == n {
			return Level(i), nil
		}
	}
	return Warn, fmt.Errorf("logx: unknown log level %q (want error, warn, info or debug)", s)
}

// Logger writes leveled lines to one writer. It is safe for concurrent use.
type Logger struct {
	mu    sync.Mutex
	w     io.Writer
	level Level
	pid   int
}

// New returns a logger that writes lines at or above level to w.
func New(w io.Writer, level Level) *Logger {
	return &Logger{w: w, level: level, pid: os.Getpid()}
}

// FromEnv builds a logger from ROCJITSU_LOG and ROCJITSU_LOG_FILE using
// getenv. A bad level or an unopenable file is reported on the returned
// logger itself (which then uses standard error) rather than failing.
func FromEnv(getenv func(string) string) *Logger {
	level, lerr := ParseLevel(getenv("ROCJITSU_LOG"))
	var w io.Writer = os.Stderr
	var ferr error
	if path := getenv("ROCJITSU_LOG_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			ferr = err
		} else {
			w = f
		}
	}
	l := New(w, level)
	if lerr != nil {
		l.Warnf("%v", lerr)
	}
	if ferr != nil {
		l.Warnf("cannot open ROCJITSU_LOG_FILE: %v; logging to standard error", ferr)
	}
	return l
}

// Enabled reports whether messages at level l are written.
func (lg *Logger) Enabled(l Level) bool { return lg != nil && l <= lg.level }

// Logf writes one line at level l.
func (lg *Logger) Logf(l Level, format string, args ...any) {
	if !lg.Enabled(l) {
		return
	}
	msg := fmt.Sprintf(format, args...)
	msg = strings.TrimRight(msg, "\n")
	line := fmt.Sprintf("rocjitsu[%d]: %s: %s\n", lg.pid, l, msg)
	lg.mu.Lock()
	defer lg.mu.Unlock()
	io.WriteString(lg.w, line)
}

// Errorf logs at Error level.
func (lg *Logger) Errorf(format string, args ...any) { lg.Logf(Error, format, args...) }

// Warnf logs at Warn level.
func (lg *Logger) Warnf(format string, args ...any) { lg.Logf(Warn, format, args...) }

// Infof logs at Info level.
func (lg *Logger) Infof(format string, args ...any) { lg.Logf(Info, format, args...) }

// Debugf logs at Debug level.
func (lg *Logger) Debugf(format string, args ...any) { lg.Logf(Debug, format, args...) }

// Fd returns the file descriptor the logger writes to when it writes to a
// file (so C code can append to the same log), else 2 (standard error).
func (lg *Logger) Fd() int {
	if lg != nil {
		if f, ok := lg.w.(*os.File); ok {
			return int(f.Fd())
		}
	}
	return 2
}

// Level returns the logger's level.
func (lg *Logger) Level() Level {
	if lg == nil {
		return Warn
	}
	return lg.level
}
