// Command rocjitsu is the offline front end of rocjitsu: code-object
// inspection and disassembly, translation, the simulator, SQTT marker tools
// and Silk bundles. Each subcommand lives in its own file and registers itself
// with register.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand of the CLI.
type command struct {
	// name is the word that selects the command (for example "inspect"
	// or "sqtt").
	name string
	// summary is a one-line description for the usage listing.
	summary string
	// run executes the command with the arguments after its name. It
	// writes normal output to stdout and diagnostics to stderr and returns
	// the process exit code.
	run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// register adds a subcommand. It is called from the init functions of the
// files that implement subcommands; registering a name twice is a
// programming error.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("rocjitsu: subcommand registered twice: " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: rocjitsu COMMAND [ARGS]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "  version      print the rocjitsu version")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'rocjitsu COMMAND -h' for the options of a command.")
}

// Version is the rocjitsu version string; it is part of cache keys.
const Version = "0.1.0-dev"

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

func runMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "version", "--version":
		fmt.Fprintln(stdout, "rocjitsu", Version)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rocjitsu: unknown command %q\n", args[0])
		if s := suggest(args[0]); s != "" {
			fmt.Fprintf(stderr, "did you mean %q?\n", s)
		}
		usage(stderr)
		return 2
	}
	return c.run(args[1:], stdout, stderr)
}

func suggest(word string) string {
	for n := range commands {
		if strings.HasPrefix(n, word) || strings.HasPrefix(word, n) {
			return n
		}
	}
	return ""
}

// parseInterspersed parses fs over args where flags may follow positional
// arguments (rocjitsu translate IN -o OUT) and returns the positional ones
// in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
