package fuzzguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordSlow checks that a slow input is written in go test's corpus
// format under the target's name and a fast one is not.
func TestRecordSlow(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ROCJITSU_FUZZ_SLOW", dir)
	t.Setenv("ROCJITSU_FUZZ_SLOW_MS", "5")
	Run(t, []byte("fast"), func() {})
	Run(t, []byte("slow\x00\xff"), func() { time.Sleep(10 * time.Millisecond) })
	files, _ := filepath.Glob(filepath.Join(dir, "internal", "fuzzguard", "TestRecordSlow", "*"))
	if len(files) != 1 {
		t.Fatalf("%d files recorded, want 1: %v", len(files), files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "go test fuzz v1\n[]byte(\"slow\\x00\\xff\")\n"; string(b) != want {
		t.Errorf("recorded %q, want %q", b, want)
	}
}

// TestWatchdog runs an endless input in a child process and checks that
// the watchdog ends it with a message naming the target.
func TestWatchdog(t *testing.T) {
	if os.Getenv("FUZZGUARD_CHILD") == "1" {
		Run(t, []byte("x"), func() { select {} })
		return
	}
	if testing.Short() {
		t.Skip("waits for the watchdog")
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWatchdog$")
	cmd.Env = append(os.Environ(), "FUZZGUARD_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("endless input passed:\n%s", out)
	}
	if !strings.Contains(string(out), "fuzzguard: TestWatchdog: one input ran longer than") {
		t.Errorf("no watchdog message:\n%s", out)
	}
}

// TestCorpusFile checks the corpus format of other argument types.
func TestCorpusFile(t *testing.T) {
	got := string(CorpusFile([]byte{1, 'a'}, uint8(7), true, uint32(0xffffffff), uint64(3), "s"))
	want := "go test fuzz v1\n[]byte(\"\\x01a\")\nuint8(7)\nbool(true)\nuint32(4294967295)\nuint64(3)\nstring(\"s\")\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	args, err := ReadCorpusFile([]byte(got))
	if err != nil {
		t.Fatal(err)
	}
	if again := string(CorpusFile(args...)); again != got {
		t.Errorf("read back as %q", again)
	}
	// go test writes byte arguments as rune literals.
	for lit, want := range map[string]byte{`'\x16'`: 0x16, `'a'`: 'a', `'\''`: '\'', `'\xff'`: 0xff} {
		args, err := ReadCorpusFile([]byte("go test fuzz v1\nbyte(" + lit + ")\n"))
		if err != nil || len(args) != 1 || args[0] != any(want) {
			t.Errorf("byte(%s) read as %v, %v; want %#x", lit, args, err, want)
		}
	}
	for _, bad := range []string{"go test fuzz v1\nbyte('\\u0100')\n", "go test fuzz v1\nbyte('ab')\n", "go test fuzz v1\nbyte('a)\n", "", "go test fuzz v2\n", "go test fuzz v1\nuint8(300)\n", "go test fuzz v1\nfloat64(1)\n", "go test fuzz v1\n[]byte(x)\n"} {
		if _, err := ReadCorpusFile([]byte(bad)); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

// TestReadCorpusFileCharLiterals reads byte and rune values as go test
// writes them: character literals.
func TestReadCorpusFileCharLiterals(t *testing.T) {
	args, err := ReadCorpusFile([]byte("go test fuzz v1\nbyte('w')\nbyte('\\x00')\nbyte('\\xff')\nrune('é')\nint32('\\n')\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{uint8('w'), uint8(0), uint8(0xff), int32('é'), int32('\n')}
	if len(args) != len(want) {
		t.Fatalf("got %d args, want %d", len(args), len(want))
	}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("arg %d: got %#v, want %#v", i, args[i], want[i])
		}
	}
	for _, bad := range []string{"byte('ab')", "byte('\\u0100')", "byte('')", "byte('x)"} {
		if _, err := ReadCorpusFile([]byte("go test fuzz v1\n" + bad + "\n")); err == nil {
			t.Errorf("%s read", bad)
		}
	}
}
