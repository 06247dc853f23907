package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/disasm"
	"github.com/rocjitsu/rocjitsu/dbt/isa/objfile"
)

func init() {
	register(command{
		name:    "disasm",
		summary: "disassemble AMDGPU code objects like llvm-objdump -d (gfx942, gfx950, gfx1200, gfx1201)",
		run:     runDisasm,
	})
}

func runDisasm(args []string, stdout, stderr io.Writer) int {
	defer lessGC()()
	fs := flag.NewFlagSet("disasm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mcpu := fs.String("mcpu", "", "target to decode for (gfx942, gfx950, gfx1200, gfx1201); default: the object's own target (e_flags mach)")
	wave64 := fs.Bool("wave64", false, "decode gfx1200/gfx1201 code as wave64 (like llvm-objdump --mattr=+wavefrontsize64); default wave32, as llvm-objdump-19 -d prints even wave64 kernels")
	stats := fs.Bool("stats", false, "print an instruction histogram instead of the listing (over all FILEs)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu disasm [--mcpu gfxNNN] [--wave64] [--stats] FILE...")
		fs.PrintDefaults()
	}
	// Accept flags after the file names too.
	var files []string
	rest := args
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		rest = fs.Args()
		if len(rest) > 0 {
			files = append(files, rest[0])
			rest = rest[1:]
		}
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	var opt disasm.Options
	if *mcpu != "" {
		t, err := isa.ParseTarget(*mcpu)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			return 2
		}
		opt.Target = t
	}
	opt.NoListing = *stats
	opt.Wave64 = *wave64
	if f, ok := stdout.(*os.File); ok && !*stats {
		growPipe(f)
	}
	listers, largest := disasmListers(files)
	var code int
	if len(listers) == 1 {
		code = disasmStream(files, opt, listers[0], largest, stdout, stderr)
	} else {
		code = disasmParallel(files, opt, listers, stdout, stderr)
	}
	if code == exitWrite {
		return 1
	}
	if *stats {
		total := &disasm.Stats{}
		for _, l := range listers {
			total.Add(l.Stats())
		}
		if err := total.WriteHistogram(stdout); err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			return 1
		}
	}
	return code
}

// exitWrite is disasmStream's and disasmParallel's result when the output
// could not be written (the command stops at once, with exit code 1).
const exitWrite = -1

// disasmStream lists files one after another with l, writing each listing
// as it is made through l's one buffer, reading them into one buffer made
// for the largest (bytes); it returns 0, 1 when a file could not be
// listed, or exitWrite.
func disasmStream(files []string, opt disasm.Options, l *disasm.Lister, largest int64, stdout, stderr io.Writer) int {
	ew := &errWriter{w: stdout}
	code := 0
	// One buffer for every file: grown file by file, each larger file
	// took new memory (faulted in page by page, the old never reused).
	raw := make([]byte, 0, min(largest, 1<<30)+512)
	for _, name := range files {
		var f *objfile.File
		var err error
		f, raw, err = objfile.OpenInto(name, raw)
		if err == nil {
			err = l.WriteListing(ew, f, name, opt)
		}
		if err != nil {
			// What was listed before goes out before the message.
			l.Flush(ew)
		}
		if ew.err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", ew.err)
			return exitWrite
		}
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			code = 1
		}
	}
	if l.Flush(ew); ew.err != nil {
		fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", ew.err)
		return exitWrite
	}
	return code
}

// errWriter is a writer that keeps the first error of w.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(b []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(b)
	e.err = err
	return n, err
}

// disasmParallel lists files on the goroutines of disasmFiles, one per
// Lister, and writes the listings in file order; it returns as
// disasmStream does.
func disasmParallel(files []string, opt disasm.Options, listers []*disasm.Lister, stdout, stderr io.Writer) int {
	code := 0
	for _, r := range disasmFiles(files, opt, listers) {
		if _, err := stdout.Write(r.out); err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", err)
			return exitWrite
		}
		if r.err != nil {
			fmt.Fprintf(stderr, "rocjitsu disasm: %v\n", r.err)
			code = 1
		}
	}
	return code
}

// pipeSize is the buffer size growPipe asks for: a few listings of large
// objects, so that the listing is not written 64 KB (the default) per
// wake-up of the reader.
const pipeSize = 1 << 20

// growPipe raises the kernel buffer of f to pipeSize when f is a pipe
// (Linux F_SETPIPE_SZ; the request fails harmlessly where the limit is
// lower or f is not a pipe).
func growPipe(f *os.File) {
	if runtime.GOOS != "linux" {
		return
	}
	const fSetPipeSz = 1031
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, fSetPipeSz, pipeSize)
	})
}

// disasmResult is one file's listing (written before its error, as the
// sequential listing would be).
type disasmResult struct {
	out []byte
	err error
}

// disasmListers returns the Listers that list files (they share their
// memo, sized by the files' total size), and the size of the largest
// file: one Lister per core but one, which is
// left to the writer and to whatever reads the listing. With one Lister,
// the listing is streamed (disasmStream): on the 2-core machine of
// BenchmarkDisasmListing, listing on two goroutines and handing the
// listings to a writer cost 1.35-1.6x the CPU time of streaming from one
// and was no faster in wall time under load.
func disasmListers(files []string) ([]*disasm.Lister, int64) {
	size, largest := int64(0), int64(0)
	for _, name := range files {
		if fi, err := os.Stat(name); err == nil {
			size += fi.Size()
			largest = max(largest, fi.Size())
		}
	}
	return disasm.NewListers(max(1, min(runtime.GOMAXPROCS(0)-1, len(files))), int(min(size/4, 1<<30))), largest
}

// disasmFiles disassembles files on one goroutine per Lister (each lists,
// and counts, the files it is given) and yields the results in file order;
// at most a few listings are held at once, and a listing's storage is
// reused once yield has returned (yield must not keep r.out). The
// Listers' counts are complete once the sequence has ended.
func disasmFiles(files []string, opt disasm.Options, listers []*disasm.Lister) func(yield func(int, disasmResult) bool) {
	return func(yield func(int, disasmResult) bool) {
		workers := len(listers)
		slots := make([]chan disasmResult, len(files))
		for i := range slots {
			slots[i] = make(chan disasmResult, 1)
		}
		// window bounds the files started but not yet yielded.
		window := make(chan struct{}, 2*workers)
		next := make(chan int)
		stop := make(chan struct{})
		defer close(stop)
		// free holds the listings already written, for reuse.
		free := make(chan []byte, 2*workers+1)
		for _, l := range listers {
			go func() {
				// raw holds the file being listed; its storage is
				// reused for the next file.
				var raw []byte
				for i := range next {
					var buf []byte
					select {
					case buf = <-free:
					default:
					}
					var r disasmResult
					r, raw = disasmOne(l, files[i], opt, buf, raw)
					slots[i] <- r
				}
			}()
		}
		go func() {
			defer close(next)
			for i := range files {
				select {
				case window <- struct{}{}:
				case <-stop:
					return
				}
				select {
				case next <- i:
				case <-stop:
					return
				}
			}
		}()
		for i := range files {
			r := <-slots[i]
			<-window
			if !yield(i, r) {
				return
			}
			if cap(r.out) > 0 {
				select {
				case free <- r.out[:0]:
				default:
				}
			}
		}
	}
}

// disasmOne lists the file name with l into buf's storage, reading the
// file into raw's; it returns the result and the file's storage.
func disasmOne(l *disasm.Lister, name string, opt disasm.Options, buf, raw []byte) (disasmResult, []byte) {
	f, raw, err := objfile.OpenInto(name, raw)
	if err != nil {
		return disasmResult{out: buf[:0], err: err}, raw
	}
	if cap(buf) == 0 {
		// About 25 bytes of listing per byte of code.
		n := 4096
		for _, s := range f.Sections {
			n += 25 * len(s.Data)
		}
		buf = make([]byte, 0, n)
	}
	out, err := l.AppendListing(buf[:0], f, name, opt)
	return disasmResult{out: out, err: err}, raw
}
