package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/vlds"
	"github.com/rocjitsu/rocjitsu/loader"
)

func init() {
	register(command{
		name:    "vlds",
		summary: "translate with virtual-LDS sidecars, or show an object's .rocjitsu.lds",
		run:     runVLDS,
	})
}

func runVLDS(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("vlds", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write the translated code object with sidecars here")
	all := fs.Bool("all", false, "make sidecars for every LDS-using kernel, not only those above the host limit")
	hostLDS := fs.Uint("host-lds", 65536, "host LDS bytes per workgroup")
	to := fs.String("to", "gfx942", "host target: gfx942, gfx1201 or gfx1200 (wave64, CU mode)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rocjitsu vlds IN [--to gfx942|gfx1201|gfx1200] [-o OUT] [-all] [-host-lds N]   translate a gfx950 object with sidecars")
		fmt.Fprintln(stderr, "       rocjitsu vlds OBJ                              (a translated object) show its .rocjitsu.lds")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu vlds: %v\n", err)
		return 1
	}
	f, err := loader.Parse(data)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu vlds: %v\n", err)
		return 1
	}
	if sec := f.Section(vlds.SectionName); sec != nil && *out == "" {
		s, err := vlds.Parse(sec.Data)
		if err != nil {
			fmt.Fprintf(stderr, "rocjitsu vlds: %v\n", err)
			return 1
		}
		names := map[uint64]string{}
		for _, k := range f.Kernels() {
			names[k.DescriptorAddr] = k.Name
		}
		fmt.Fprintf(stdout, "%s v%d: host LDS %d bytes, %d sidecars\n", vlds.SectionName, vlds.Version, s.HostLDS, len(s.Entries))
		for _, e := range s.Entries {
			fmt.Fprintf(stdout, "  %s: normal kd %#x -> sidecar kd %#x, static LDS %d, private %d, wrapper %d bytes (prefix %d, kernarg pointer @%d, state @%d), workgroup IDs %s\n",
				names[e.Normal], e.Normal, e.Sidecar, e.StaticLDS, e.Private, e.Wrapper.Size, e.Wrapper.Prefix, e.Wrapper.OrigPtr, e.Wrapper.State, dims(e.Flags))
		}
		return 0
	}
	host, err := isa.ParseTarget(*to)
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu vlds: --to: %v\n", err)
		return 2
	}
	res, err := dbt.TranslateWithSidecars(data, dbt.Options{Name: pos[0], Host: host, HostLDS: uint32(*hostLDS)}, dbt.SidecarOptions{AllLDS: *all})
	if err != nil {
		fmt.Fprintf(stderr, "rocjitsu vlds: %v\n", err)
		return 1
	}
	made := 0
	for _, s := range res.Sidecars {
		if s.Made {
			made++
			fmt.Fprintf(stdout, "%s: sidecar kd %#x entry %#x, static LDS %d, %d LDS accesses lowered, %d bytes, base s[%d:%d]\n",
				s.Kernel, s.Descriptor, s.Entry, s.StaticLDS, s.Lowered, s.Bytes, s.BaseSGPR, s.BaseSGPR+1)
		} else {
			fmt.Fprintf(stdout, "%s: no sidecar: %s\n", s.Kernel, s.Reason)
		}
	}
	fmt.Fprintf(stdout, "%d of %d kernels considered have sidecars\n", made, len(res.Sidecars))
	if *out != "" {
		if err := os.WriteFile(*out, res.Object, 0o644); err != nil {
			fmt.Fprintf(stderr, "rocjitsu vlds: %v\n", err)
			return 1
		}
	}
	return 0
}

func dims(flags uint32) string {
	s := ""
	for i, c := range "xyz" {
		if flags&(vlds.FlagWorkgroupIDX<<i) != 0 {
			s += string(c)
		}
	}
	if s == "" {
		return "none"
	}
	return s
}
