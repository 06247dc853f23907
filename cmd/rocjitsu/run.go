package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/att"
)

func init() {
	register(command{
		name:    "run",
		summary: "run a kernel of a code object on the simulator",
		run:     runRun,
	})
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func parseDims(s string) ([3]uint32, error) {
	d := [3]uint32{1, 1, 1}
	parts := strings.Split(s, ",")
	if len(parts) > 3 || s == "" {
		return d, fmt.Errorf("%q: want X[,Y[,Z]]", s)
	}
	for i, p := range parts {
		v, err := strconv.ParseUint(strings.TrimSpace(p), 0, 32)
		if err != nil || v == 0 {
			return d, fmt.Errorf("%q: dimension %d is not a positive integer", s, i)
		}
		d[i] = uint32(v)
	}
	return d, nil
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	gridS := fs.String("grid", "", "grid size in work-items: X[,Y,Z] (required)")
	blockS := fs.String("block", "", "workgroup size in work-items: X[,Y,Z] (required)")
	target := fs.String("target", "", "run as this device: gfx942, gfx950, gfx1200 or gfx1201 (default: the object's target)")
	stats := fs.Bool("stats", false, "print instruction counts")
	trace := fs.Bool("trace", false, "print every executed instruction (wave, code offset, EXEC, instruction) to stdout")
	attDir := fs.String("att", "", "write a simulated SQTT capture of the dispatch (the rocprofv3 --att tree: markers timed by sim.DefaultCycleModel) to DIR")
	maxInsts := fs.Uint64("max-insts", sim.DefaultMaxInstructions, "fail when a wave executes more instructions than this (0: no limit)")
	var argSpecs, dumps multiFlag
	fs.Var(&argSpecs, "arg", "next explicit kernel argument: buf:SIZE, buf:@PATH, u32:V, i32:V, u64:V, f32:V, f64:V (repeatable)")
	fs.Var(&dumps, "dump", "N=PATH: write the final bytes of buffer argument N to PATH (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu run FILE KERNEL --grid X[,Y,Z] --block X[,Y,Z] [--arg SPEC]... [--dump N=PATH]... [--target gfx942|gfx950|gfx1200|gfx1201] [--att DIR]")
		fs.PrintDefaults()
	}
	// Accept flags before and after the positional arguments.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if len(pos) != 2 || *gridS == "" || *blockS == "" {
		fs.Usage()
		return 2
	}
	grid, err := parseDims(*gridS)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: --grid %v\n", err)
		return 2
	}
	block, err := parseDims(*blockS)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: --block %v\n", err)
		return 2
	}
	image, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: %v\n", err)
		return 1
	}
	if *target == "" {
		if *target, err = sim.TargetOf(image); err != nil {
			fmt.Fprintf(stderr, "rocjitsu run: %s: %v\n", pos[0], err)
			return 1
		}
	}
	agent, err := sim.NewAgent(*target)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: %v\n", err)
		return 1
	}
	agent.MaxInstructions = *maxInsts
	if *trace {
		agent.Trace = stdout
	}
	var attW *att.Writer
	if *attDir != "" {
		if attW, err = att.NewWriter(*attDir); err != nil {
			fmt.Fprintf(stderr, "rocjitsu run: --att: %v\n", err)
			return 1
		}
		agent.Capture = sim.NewCapture(attW)
	}
	ex, err := agent.LoadCodeObject(image)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: %s: %v\n", pos[0], err)
		return 1
	}
	k, err := ex.Kernel(pos[1])
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: %s: %v\n", pos[0], err)
		return 1
	}
	explicit := k.Explicit()
	if len(argSpecs) != len(explicit) {
		fmt.Fprintf(stderr, "rocjitsu run: kernel %s takes %d explicit arguments, %d --arg given\n", k.Name, len(explicit), len(argSpecs))
		return 2
	}
	ka := make([]byte, k.KernargSegmentSize)
	bufs := map[int]struct {
		addr uint64
		size int
	}{}
	le := binary.LittleEndian
	for i, spec := range argSpecs {
		a := explicit[i]
		kind, val, ok := strings.Cut(spec, ":")
		if !ok {
			fmt.Fprintf(stderr, "rocjitsu run: --arg %q: want KIND:VALUE\n", spec)
			return 2
		}
		if a.Offset+a.Size > len(ka) {
			fmt.Fprintf(stderr, "rocjitsu run: argument %d lies outside the kernarg segment\n", i)
			return 1
		}
		dst := ka[a.Offset : a.Offset+a.Size]
		need := func(n int) bool {
			if a.Size != n {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: argument %d (%s) is %d bytes, not %d\n", spec, i, a.Name, a.Size, n)
				return false
			}
			return true
		}
		switch kind {
		case "buf":
			var data []byte
			if strings.HasPrefix(val, "@") {
				if data, err = os.ReadFile(val[1:]); err != nil {
					fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
					return 1
				}
			} else {
				n, err := strconv.ParseUint(val, 0, 40)
				if err != nil {
					fmt.Fprintf(stderr, "rocjitsu run: --arg %q: bad size\n", spec)
					return 2
				}
				data = make([]byte, n)
			}
			if !need(8) {
				return 2
			}
			addr, err := agent.Alloc(uint64(len(data)))
			if err == nil {
				err = agent.CopyIn(addr, data)
			}
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
				return 1
			}
			le.PutUint64(dst, addr)
			bufs[i] = struct {
				addr uint64
				size int
			}{addr, len(data)}
		case "u32", "i32":
			if !need(4) {
				return 2
			}
			var v int64
			if kind == "u32" {
				u, e := strconv.ParseUint(val, 0, 32)
				v, err = int64(u), e
			} else {
				v, err = strconv.ParseInt(val, 0, 32)
			}
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
				return 2
			}
			le.PutUint32(dst, uint32(v))
		case "u64":
			if !need(8) {
				return 2
			}
			u, err := strconv.ParseUint(val, 0, 64)
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
				return 2
			}
			le.PutUint64(dst, u)
		case "f32":
			if !need(4) {
				return 2
			}
			f, err := strconv.ParseFloat(val, 32)
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
				return 2
			}
			le.PutUint32(dst, math.Float32bits(float32(f)))
		case "f64":
			if !need(8) {
				return 2
			}
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				fmt.Fprintf(stderr, "rocjitsu run: --arg %q: %v\n", spec, err)
				return 2
			}
			le.PutUint64(dst, math.Float64bits(f))
		default:
			fmt.Fprintf(stderr, "rocjitsu run: --arg %q: unknown kind %q\n", spec, kind)
			return 2
		}
	}
	type dump struct {
		n    int
		path string
	}
	var ds []dump
	for _, d := range dumps {
		ns, path, ok := strings.Cut(d, "=")
		n, err := strconv.Atoi(ns)
		if !ok || err != nil || path == "" {
			fmt.Fprintf(stderr, "rocjitsu run: --dump %q: want N=PATH\n", d)
			return 2
		}
		if _, ok := bufs[n]; !ok {
			fmt.Fprintf(stderr, "rocjitsu run: --dump %q: argument %d is not a buffer\n", d, n)
			return 2
		}
		ds = append(ds, dump{n, path})
	}
	err = agent.Dispatch(k, grid, block, ka)
	if attW != nil && len(attW.Dirs) > 0 {
		fmt.Fprintf(stderr, "rocjitsu run: --att: %d marker records in %s\n", attW.Markers, attW.Dirs[len(attW.Dirs)-1])
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu run: %v\n", err)
		return 1
	}
	for _, d := range ds {
		b := bufs[d.n]
		data := make([]byte, b.size)
		if err := agent.CopyOut(b.addr, data); err != nil {
			fmt.Fprintf(stderr, "rocjitsu run: %v\n", err)
			return 1
		}
		if err := os.WriteFile(d.path, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "rocjitsu run: %v\n", err)
			return 1
		}
	}
	if *stats {
		fmt.Fprintf(stdout, "kernel %s on %s: %d waves, %d instructions, %d lane-instructions\n",
			k.Name, *target, agent.Stats.Waves, agent.Stats.Instructions, agent.Stats.LaneInstructions)
	}
	return 0
}
