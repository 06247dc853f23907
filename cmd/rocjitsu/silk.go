package main

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/hsa/aql"
	"github.com/rocjitsu/rocjitsu/hsa/sim"
	"github.com/rocjitsu/rocjitsu/hsa/sim/att"
	"github.com/rocjitsu/rocjitsu/silkrt"
	"github.com/rocjitsu/rocjitsu/silkrt/hip"
	"github.com/rocjitsu/rocjitsu/silkrt/simulator"
)

func init() {
	register(command{
		name:    "silk",
		summary: "Silk GPU bundles: bundle, inspect, run",
		run:     runSilk,
	})
}

const silkUsage = `usage:
  rocjitsu silk bundle --entry NAME=FILE.hsaco [--entry ...] --into EXE [-o OUT] [--target gfxNNN] [--replace]
      append a Silk GPU bundle v3 with the named kernels to EXE (in place
      unless -o is given); kernarg sizes and the target come from the code
      objects' metadata
  rocjitsu silk inspect EXE
      list the bundle at the end of EXE
  rocjitsu silk run EXE ENTRY --grid X[,Y,Z] --block X[,Y,Z] [--arg A ...]
                   [--dyn-lds BYTES] [--provider auto|hip|sim] [--hip-lib PATH] [--att DIR]
      launch ENTRY of EXE's bundle and wait for it; grid and block are in
      work-items. --att DIR (simulator only) writes a simulated SQTT
      capture, the rocprofv3 --att tree, to DIR. --provider auto (the default) uses HIP when a GPU is
      present and the simulator (gfx942, gfx950) otherwise. Arguments,
      packed in order at their natural alignment:
        N | u64:N | u32:N | i32:N | f32:X | f64:X   scalar
        buf:SIZE        zeroed device buffer of SIZE bytes (pointer)
        in:FILE         device buffer holding FILE (pointer)
        out:FILE:SIZE   zeroed device buffer copied to FILE afterwards (pointer)
  rocjitsu silk packet --grid X[,Y,Z] --block X[,Y,Z] [--kernel-object A] [--kernarg A]
                       [--signal H] [--private N] [--group N] [--max-flat N]
                       [--barrier] [--acquire none|agent|system] [--release ...]
      build an AQL kernel dispatch packet with the validation rules and print
      its 64 bytes and fields
  rocjitsu silk packet --decode HEX
      print the fields of a 64-byte AQL packet (kernel dispatch or barrier)
`

func runSilk(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, silkUsage)
		return 2
	}
	var err error
	switch args[0] {
	case "bundle":
		err = silkBundle(args[1:], stdout, stderr)
	case "inspect":
		err = silkInspect(args[1:], stdout, stderr)
	case "run":
		err = silkRun(args[1:], stdout, stderr)
	case "packet":
		err = silkPacket(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, silkUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "rocjitsu silk: unknown subcommand %q\n%s", args[0], silkUsage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, silkUsage)
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "rocjitsu silk %s: %v\n%s", args[0], err, silkUsage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu silk %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// parseInterleaved parses flags that may come before, between or after the
// positional arguments and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	return fs
}

func silkBundle(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bundle", stderr)
	var entries listFlag
	fs.Var(&entries, "entry", "NAME=FILE.hsaco (repeatable)")
	into := fs.String("into", "", "executable to append the bundle to")
	out := fs.String("o", "", "write the result here instead of modifying --into")
	target := fs.String("target", "", "processor tag override (gfx942); default from the code objects")
	replace := fs.Bool("replace", false, "replace a bundle EXE already has")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	if *into == "" || len(entries) == 0 {
		return usageError{"need --into EXE and at least one --entry NAME=FILE"}
	}
	b := &silkrt.Bundle{Provider: silkrt.ProviderHIP}
	for _, e := range entries {
		name, file, ok := strings.Cut(e, "=")
		if !ok || name == "" || file == "" {
			return usageError{fmt.Sprintf("--entry %q: want NAME=FILE", e)}
		}
		code, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		entry, tag, err := silkrt.EntryFromCodeObject(name, code)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if b.Target != 0 && tag != b.Target && *target == "" {
			return fmt.Errorf("%s is for processor tag %d, earlier entries for %d; one bundle holds one target", file, tag, b.Target)
		}
		b.Target = tag
		b.Entries = append(b.Entries, entry)
	}
	if *target != "" {
		tag, err := silkrt.ParseTargetTag(*target)
		if err != nil {
			return err
		}
		b.Target = tag
	}
	exe, err := os.ReadFile(*into)
	if err != nil {
		return err
	}
	if _, loc, err := silkrt.ParseBundle(exe); err == nil {
		if !*replace {
			return fmt.Errorf("%s already has a bundle at offset %d (use --replace)", *into, loc.Start)
		}
		exe = exe[:loc.Start]
	}
	res, err := silkrt.AppendBundle(exe, b)
	if err != nil {
		return err
	}
	dst := *out
	if dst == "" {
		dst = *into
	}
	mode := os.FileMode(0o755)
	if st, err := os.Stat(*into); err == nil {
		mode = st.Mode().Perm()
	}
	if err := writeFileAtomic(dst, res, mode); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: appended Silk GPU bundle v3 (%s, target %d, %d entries, %d bytes) at offset %d\n",
		dst, b.Provider, b.Target, len(b.Entries), len(res)-len(exe), (len(exe)+7)&^7)
	return nil
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func readBundle(path string) (*silkrt.Bundle, silkrt.Location, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, silkrt.Location{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, silkrt.Location{}, err
	}
	b, loc, err := silkrt.ReadBundle(f, st.Size())
	if err != nil {
		return nil, loc, fmt.Errorf("%s: %w", path, err)
	}
	return b, loc, nil
}

func silkInspect(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("inspect", stderr)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"want one EXE"}
	}
	b, loc, err := readBundle(pos[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: Silk GPU bundle v%d at offset %d, %d bytes\n", pos[0], silkrt.BundleVersion, loc.Start, loc.Length+silkrt.TrailerSize)
	fmt.Fprintf(stdout, "provider %s, target %d, %d entries\n", b.Provider, b.Target, len(b.Entries))
	fmt.Fprintf(stdout, "%-4s %-10s %-10s %-10s %s\n", "#", "kernarg", "code", "processor", "name")
	problems := 0
	for i, e := range b.Entries {
		proc, note := "-", ""
		if b.Provider == silkrt.ProviderHIP {
			info, err := silkrt.InspectCodeObject(e.CodeObject)
			switch {
			case err != nil:
				proc, note = "?", "  ! "+err.Error()
			default:
				proc = info.Processor
				if k, ok := info.Kernel(e.Name); !ok {
					note = "  ! the code object has no kernel of this name"
				} else if k.ExplicitKernargSize != e.KernargSize {
					note = fmt.Sprintf("  ! metadata says %d kernarg bytes", k.ExplicitKernargSize)
				} else if info.Target != b.Target {
					note = fmt.Sprintf("  ! bundle target is %d", b.Target)
				}
			}
		}
		if note != "" {
			problems++
		}
		fmt.Fprintf(stdout, "%-4d %-10d %-10d %-10s %s%s\n", i, e.KernargSize, len(e.CodeObject), proc, e.Name, note)
	}
	if problems > 0 {
		return fmt.Errorf("%d of %d entries disagree with their code objects", problems, len(b.Entries))
	}
	return nil
}

// kernArg is one parsed --arg.
type kernArg struct {
	bytes   []byte // scalar value; nil for buffers
	size    uint64 // buffer size
	in      []byte // initial buffer contents
	outFile string // where to copy the buffer afterwards
}

func parseKernArg(s string) (kernArg, error) {
	kind, val, ok := strings.Cut(s, ":")
	if !ok {
		kind, val = "u64", s
	}
	le := binary.LittleEndian
	bad := func(err error) (kernArg, error) { return kernArg{}, fmt.Errorf("--arg %q: %v", s, err) }
	switch kind {
	case "u64":
		v, err := strconv.ParseUint(val, 0, 64)
		if err != nil {
			return bad(err)
		}
		return kernArg{bytes: le.AppendUint64(nil, v)}, nil
	case "u32":
		v, err := strconv.ParseUint(val, 0, 32)
		if err != nil {
			return bad(err)
		}
		return kernArg{bytes: le.AppendUint32(nil, uint32(v))}, nil
	case "i32":
		v, err := strconv.ParseInt(val, 0, 32)
		if err != nil {
			return bad(err)
		}
		return kernArg{bytes: le.AppendUint32(nil, uint32(int32(v)))}, nil
	case "f32":
		v, err := strconv.ParseFloat(val, 32)
		if err != nil {
			return bad(err)
		}
		return kernArg{bytes: le.AppendUint32(nil, math.Float32bits(float32(v)))}, nil
	case "f64":
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return bad(err)
		}
		return kernArg{bytes: le.AppendUint64(nil, math.Float64bits(v))}, nil
	case "buf":
		n, err := strconv.ParseUint(val, 0, 64)
		if err != nil || n == 0 {
			return bad(errors.New("want buf:SIZE with SIZE > 0"))
		}
		return kernArg{size: n}, nil
	case "in":
		data, err := os.ReadFile(val)
		if err != nil {
			return bad(err)
		}
		if len(data) == 0 {
			return bad(errors.New("empty file"))
		}
		return kernArg{size: uint64(len(data)), in: data}, nil
	case "out":
		i := strings.LastIndexByte(val, ':')
		if i <= 0 {
			return bad(errors.New("want out:FILE:SIZE"))
		}
		n, err := strconv.ParseUint(val[i+1:], 0, 64)
		if err != nil || n == 0 {
			return bad(errors.New("want out:FILE:SIZE with SIZE > 0"))
		}
		return kernArg{size: n, outFile: val[:i]}, nil
	}
	return bad(errors.New("unknown kind (want u64, u32, i32, f32, f64, buf, in, out)"))
}

func silkRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	gridS := fs.String("grid", "", "grid size in work-items: X[,Y,Z]")
	blockS := fs.String("block", "", "workgroup size in work-items: X[,Y,Z]")
	var argS listFlag
	fs.Var(&argS, "arg", "kernel argument (repeatable)")
	hipLib := fs.String("hip-lib", "", "HIP runtime library (default: libamdhip64.so, .so.6, .so.5)")
	provider := fs.String("provider", "auto", "auto, hip or sim")
	dynLDS := fs.Uint("dyn-lds", 0, "dynamic LDS bytes per workgroup")
	attDir := fs.String("att", "", "with the simulator: write a simulated SQTT capture (rocprofv3 --att tree) to DIR")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageError{"want EXE ENTRY"}
	}
	if *gridS == "" || *blockS == "" {
		return usageError{"need --grid and --block"}
	}
	grid, err := silkrt.ParseDim3(*gridS)
	if err != nil {
		return err
	}
	block, err := silkrt.ParseDim3(*blockS)
	if err != nil {
		return err
	}
	var kargs []kernArg
	for _, a := range argS {
		k, err := parseKernArg(a)
		if err != nil {
			return err
		}
		kargs = append(kargs, k)
	}
	b, _, err := readBundle(pos[0])
	if err != nil {
		return err
	}
	entry, ok := b.Entry(pos[1])
	if !ok {
		names := make([]string, len(b.Entries))
		for i, e := range b.Entries {
			names[i] = e.Name
		}
		return fmt.Errorf("%s: bundle has no entry %q (entries: %s)", pos[0], pos[1], strings.Join(names, ", "))
	}
	// Check what can be checked before touching a GPU runtime.
	if _, err := silkrt.LaunchConfig(grid, block, 0); err != nil {
		return err
	}
	packedLen := 0
	for _, k := range kargs {
		n := len(k.bytes)
		if k.bytes == nil {
			n = 8
		}
		packedLen = (packedLen+n-1)/n*n + n
	}
	if packedLen != int(entry.KernargSize) {
		return fmt.Errorf("entry %q takes %d bytes of kernel arguments; the --arg list packs to %d", entry.Name, entry.KernargSize, packedLen)
	}
	if b.Provider != silkrt.ProviderHIP {
		return fmt.Errorf("%s: bundle is for provider %s; only hip is supported", pos[0], b.Provider)
	}
	p, err := openProvider(*provider, *hipLib, b.Target, stderr)
	if err != nil {
		return err
	}
	defer p.Close()
	var attW *att.Writer
	if *attDir != "" {
		a := simulator.Agent(p)
		if a == nil {
			return fmt.Errorf("--att needs the simulator provider, not %s", p.Name())
		}
		if attW, err = att.NewWriter(*attDir); err != nil {
			return err
		}
		a.Capture = sim.NewCapture(attW)
		defer func() { // also after a faulting dispatch, whose trace is written
			if len(attW.Dirs) > 0 {
				fmt.Fprintf(stdout, "att: %d marker records in %s\n", attW.Markers, attW.Dirs[len(attW.Dirs)-1])
			}
		}()
	}
	if err := p.Load(b); err != nil {
		return err
	}
	var packed []byte
	ptrs := make([]silkrt.DevicePtr, len(kargs))
	for i, k := range kargs {
		v := k.bytes
		if v == nil {
			ptr, err := p.Alloc(k.size)
			if err != nil {
				return err
			}
			ptrs[i] = ptr
			init := k.in
			if init == nil {
				init = make([]byte, k.size)
			}
			if err := p.CopyIn(ptr, init); err != nil {
				return err
			}
			v = binary.LittleEndian.AppendUint64(nil, uint64(ptr))
		}
		for len(packed)%len(v) != 0 {
			packed = append(packed, 0)
		}
		packed = append(packed, v...)
	}
	if *dynLDS > math.MaxUint32 {
		return errors.New("--dyn-lds must fit 32 bits")
	}
	if err := p.LaunchWith(entry.Name, grid, block, packed, silkrt.LaunchOptions{DynamicGroupSegmentSize: uint32(*dynLDS)}); err != nil {
		return err
	}
	if err := p.Synchronize(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ran %s grid=%v block=%v kernargs=%d bytes on %s\n", entry.Name, grid, block, len(packed), p.Name())
	if a := simulator.Agent(p); a != nil {
		fmt.Fprintf(stdout, "simulator %s: %d waves, %d wave instructions, %d lane instructions\n", a.Target, a.Stats.Waves, a.Stats.Instructions, a.Stats.LaneInstructions)
	}
	for i, k := range kargs {
		if k.outFile == "" {
			continue
		}
		data := make([]byte, k.size)
		if err := p.CopyOut(data, ptrs[i]); err != nil {
			return err
		}
		if err := os.WriteFile(k.outFile, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d bytes to %s\n", len(data), k.outFile)
	}
	return nil
}

// openProvider opens the named provider for a bundle of the given target
// tag. "auto" tries HIP and falls back to the simulator when there is no
// HIP runtime or no GPU.
func openProvider(name, hipLib string, target uint32, stderr io.Writer) (silkrt.Provider, error) {
	simTarget := fmt.Sprintf("gfx%d", target)
	switch name {
	case "hip":
		return hip.Open(hip.Options{Library: hipLib})
	case "sim":
		return simulator.New(simTarget)
	case "auto":
		h, err := hip.Open(hip.Options{Library: hipLib})
		if err == nil {
			return h, nil
		}
		s, serr := simulator.New(simTarget)
		if serr != nil {
			return nil, fmt.Errorf("no provider: %v; %v", err, serr)
		}
		fmt.Fprintf(stderr, "rocjitsu silk run: using the simulator (%s): %v\n", simTarget, err)
		return s, nil
	}
	return nil, usageError{fmt.Sprintf("--provider %q: want auto, hip or sim", name)}
}

func parseScope(s string) (aql.FenceScope, error) {
	switch s {
	case "none":
		return aql.FenceScopeNone, nil
	case "agent":
		return aql.FenceScopeAgent, nil
	case "system":
		return aql.FenceScopeSystem, nil
	}
	return 0, usageError{fmt.Sprintf("fence scope %q: want none, agent or system", s)}
}

func silkPacket(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("packet", stderr)
	decode := fs.String("decode", "", "hex of a 64-byte packet to decode")
	gridS := fs.String("grid", "", "grid size in work-items: X[,Y,Z]")
	blockS := fs.String("block", "", "workgroup size in work-items: X[,Y,Z]")
	kobj := fs.Uint64("kernel-object", 0, "kernel descriptor address")
	karg := fs.Uint64("kernarg", 0, "kernarg segment address")
	signal := fs.Uint64("signal", 0, "completion signal handle")
	private := fs.Uint("private", 0, "private segment bytes per work-item")
	group := fs.Uint("group", 0, "group segment bytes per workgroup")
	maxFlat := fs.Uint("max-flat", 0, "max flat workgroup size (0: 1024)")
	barrier := fs.Bool("barrier", false, "set the barrier bit")
	acq := fs.String("acquire", "system", "acquire fence scope")
	rel := fs.String("release", "system", "release fence scope")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", pos[0])}
	}
	if *decode != "" {
		b, err := hex.DecodeString(strings.TrimPrefix(strings.ReplaceAll(*decode, " ", ""), "0x"))
		if err != nil {
			return fmt.Errorf("--decode: %v", err)
		}
		if len(b) != aql.PacketSize {
			return fmt.Errorf("--decode: %d bytes, want %d", len(b), aql.PacketSize)
		}
		return printPacket(stdout, b)
	}
	if *gridS == "" || *blockS == "" {
		return usageError{"need --grid and --block (or --decode HEX)"}
	}
	grid, err := silkrt.ParseDim3(*gridS)
	if err != nil {
		return err
	}
	block, err := silkrt.ParseDim3(*blockS)
	if err != nil {
		return err
	}
	if *private > math.MaxUint32 || *group > math.MaxUint32 || *maxFlat > math.MaxUint32 {
		return errors.New("--private, --group and --max-flat must fit 32 bits")
	}
	c, err := silkrt.LaunchConfig(grid, block, uint32(*maxFlat))
	if err != nil {
		return err
	}
	c.KernelObject, c.KernargAddress, c.CompletionSignal = *kobj, *karg, *signal
	c.PrivateSegmentSize, c.GroupSegmentSize = uint32(*private), uint32(*group)
	c.Barrier = *barrier
	if c.AcquireFenceScope, err = parseScope(*acq); err != nil {
		return err
	}
	if c.ReleaseFenceScope, err = parseScope(*rel); err != nil {
		return err
	}
	var b [aql.PacketSize]byte
	if err := silkrt.EncodeDispatchPacket(&c, b[:]); err != nil {
		return err
	}
	return printPacket(stdout, b[:])
}

func printPacket(w io.Writer, b []byte) error {
	fmt.Fprintf(w, "%x\n", b)
	h, err := aql.ReadHeader(b)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "header             %#04x  %v\n", uint16(h), h)
	switch h.Type() {
	case aql.PacketTypeKernelDispatch:
		p, err := aql.DecodeKernelDispatchPacket(b)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "setup              %#04x  dimensions=%d\n", p.Setup, p.Dimensions())
		fmt.Fprintf(w, "workgroup_size     %d,%d,%d\n", p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ)
		fmt.Fprintf(w, "grid_size          %d,%d,%d\n", p.GridSizeX, p.GridSizeY, p.GridSizeZ)
		fmt.Fprintf(w, "private_segment    %d\n", p.PrivateSegmentSize)
		fmt.Fprintf(w, "group_segment      %d\n", p.GroupSegmentSize)
		fmt.Fprintf(w, "kernel_object      %#x\n", p.KernelObject)
		fmt.Fprintf(w, "kernarg_address    %#x\n", p.KernargAddress)
		fmt.Fprintf(w, "completion_signal  %#x\n", p.CompletionSignal)
		if p.Reserved0 != 0 || p.Reserved2 != 0 {
			fmt.Fprintf(w, "reserved           %#x %#x (must be 0)\n", p.Reserved0, p.Reserved2)
		}
	case aql.PacketTypeBarrierAnd, aql.PacketTypeBarrierOr:
		p, err := aql.DecodeBarrierPacket(b)
		if err != nil {
			return err
		}
		for i, s := range p.DepSignal {
			fmt.Fprintf(w, "dep_signal[%d]      %#x\n", i, s)
		}
		fmt.Fprintf(w, "completion_signal  %#x\n", p.CompletionSignal)
	}
	return nil
}
