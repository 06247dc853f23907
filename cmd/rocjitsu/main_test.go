package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"no-such-command"}, &out, &errb); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "no-such-command"`) {
		t.Fatalf("stderr does not name the command: %q", errb.String())
	}
}

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if !strings.HasPrefix(out.String(), "rocjitsu ") {
		t.Fatalf("version output %q", out.String())
	}
}

func TestHelpListsCommands(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runMain([]string{"help"}, &out, &errb); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	for name := range commands {
		if !strings.Contains(out.String(), name) {
			t.Errorf("help does not list %q", name)
		}
	}
}
