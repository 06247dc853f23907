package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/status"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/internal/kernelref"
)

func init() {
	register(command{
		name:    "corpus",
		summary: "list the test-kernel corpus, or check code objects against its CPU references on the simulator",
		run:     runCorpus,
	})
}

func corpusUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: rocjitsu corpus list [--json]")
	fmt.Fprintln(w, "       rocjitsu corpus status [--json] [--root DIR] [--host gfx942]")
	fmt.Fprintln(w, "       rocjitsu corpus check [--target gfx942|gfx950|gfx1200|gfx1201] [--root DIR] [--object PATH] (NAME... | --all)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "check runs each kernel of testdata/kernels on the simulator with the case's seeded")
	fmt.Fprintln(w, "inputs and compares every buffer with the Go CPU reference (internal/kernelref).")
	fmt.Fprintln(w, "--object runs another code object (for example a translation) in place of")
	fmt.Fprintln(w, "ROOT/testdata/kernels/TARGET/NAME.co; it needs exactly one NAME.")
	fmt.Fprintln(w, "status translates ROOT/../shared/corpus/aiter/gfx950 and ROOT/testdata/kernels/gfx950")
	fmt.Fprintln(w, "(with virtual-LDS sidecars) and prints the figures the README quotes.")
}

func runCorpus(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		corpusUsage(stderr)
		return 2
	}
	switch args[0] {
	case "list":
		return corpusList(args[1:], stdout, stderr)
	case "check":
		return corpusCheck(args[1:], stdout, stderr)
	case "status":
		return corpusStatus(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		corpusUsage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "rocjitsu corpus: unknown subcommand %q\n", args[0])
	corpusUsage(stderr)
	return 2
}

func corpusList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("corpus list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print testdata/kernels/kernels.json (the manifest)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *asJSON {
		stdout.Write(kernelref.Manifest())
		return 0
	}
	for _, c := range kernelref.AllCases() {
		fmt.Fprintf(stdout, "%-30s %-28s %s\n", c.Name, strings.Join(c.Targets, ","), c.Doc)
	}
	return 0
}

func corpusCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("corpus check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("target", "gfx942", "simulated device: gfx942, gfx950, gfx1200 or gfx1201")
	root := fs.String("root", ".", "project root holding testdata/kernels")
	object := fs.String("object", "", "code object to run instead of the corpus object (one NAME only)")
	all := fs.Bool("all", false, "check every case built for the target")
	fs.Usage = func() { corpusUsage(stderr); fs.PrintDefaults() }
	var names []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *all == (len(names) > 0) || (*object != "" && len(names) != 1) {
		fs.Usage()
		return 2
	}
	var cases []kernelref.Case
	if *all {
		for _, c := range kernelref.AllCases() {
			if c.HasTarget(*target) {
				cases = append(cases, c)
			}
		}
	} else {
		for _, n := range names {
			c, ok := kernelref.Lookup(n)
			if !ok {
				fmt.Fprintf(stderr, "rocjitsu corpus: no kernel %q (see 'rocjitsu corpus list')\n", n)
				return 2
			}
			cases = append(cases, c)
		}
	}
	okN, failN := 0, 0
	for i := range cases {
		c := &cases[i]
		path := *object
		if path == "" {
			if !c.HasTarget(*target) {
				fmt.Fprintf(stderr, "rocjitsu corpus: %s is not built for %s (targets %s)\n", c.Name, *target, strings.Join(c.Targets, ","))
				failN++
				continue
			}
			path = filepath.Join(*root, c.Object(*target))
		}
		n, err := checkCase(c, path, *target)
		if err != nil {
			fmt.Fprintf(stdout, "FAIL %s (%s as %s): %v\n", c.Name, path, *target, err)
			failN++
			continue
		}
		fmt.Fprintf(stdout, "ok   %s (%s as %s, %d buffers match)\n", c.Name, path, *target, n)
		okN++
	}
	fmt.Fprintf(stdout, "%d ok, %d failed\n", okN, failN)
	if failN > 0 {
		return 1
	}
	return 0
}

// checkCase runs case c from the object at path on a simulated target and
// compares the buffers with the reference. It returns the number of
// buffers compared.
func checkCase(c *kernelref.Case, path, target string) (int, error) {
	image, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	a, err := sim.NewAgent(target)
	if err != nil {
		return 0, err
	}
	ex, err := a.LoadCodeObject(image)
	if err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	k, err := ex.Kernel(c.Name)
	if err != nil {
		return 0, err
	}
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		init := c.Args[i].Init
		addr, err := a.Alloc(uint64(max(len(init), 1)))
		if err != nil {
			return 0, err
		}
		if err := a.CopyIn(addr, init); err != nil {
			return 0, err
		}
		addrs[i] = addr
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		return 0, err
	}
	if err := a.DispatchExt(k, c.Grid, c.Block, ka, c.DynamicLDS(), 0); err != nil {
		return 0, err
	}
	outs := map[int][]byte{}
	for i, addr := range addrs {
		b := make([]byte, len(c.Args[i].Init))
		if err := a.CopyOut(addr, b); err != nil {
			return 0, err
		}
		outs[i] = b
	}
	return len(outs), c.Check(outs)
}

func corpusStatus(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("corpus status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	root := fs.String("root", ".", "project root (holding testdata/kernels, beside ../shared)")
	hostName := fs.String("host", "gfx942", "host ISA to translate for")
	fs.Usage = func() { corpusUsage(stderr); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	host, err := isa.ParseTarget(*hostName)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu corpus status: --host: %v\n", err)
		return 2
	}
	st, err := status.Compute(status.Sources(*root), host)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu corpus status: %v\n", err)
		return 1
	}
	if *asJSON {
		err = st.WriteJSON(stdout)
	} else {
		err = st.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu corpus status: %v\n", err)
		return 1
	}
	return 0
}
