package logx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLevels(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Info)
	l.Debugf("hidden %d", 1)
	l.Infof("shown %d", 2)
	l.Errorf("bad\n")
	out := b.String()
	if strings.Contains(out, "hidden") {
		t.Errorf("debug line written at info level: %q", out)
	}
	if !strings.Contains(out, ": info: shown 2\n") || !strings.Contains(out, ": error: bad\n") {
		t.Errorf("unexpected output %q", out)
	}
}

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]Level{"": Warn, "error": Error, "WARN": Warn, " info": Info, "debug": Debug} {
		got, err := ParseLevel(in)
		if err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel(loud) succeeded")
	}
}

func TestFromEnvFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	env := map[string]string{"ROCJITSU_LOG": "debug", "ROCJITSU_LOG_FILE": path}
	l := FromEnv(func(k string) string { return env[k] })
	l.Debugf("to file")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "debug: to file") {
		t.Errorf("file has %q", data)
	}
}
