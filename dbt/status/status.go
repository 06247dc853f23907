// Package status computes the translator's corpus figures that the README
// quotes: for each corpus directory of gfx950 code objects, how many
// objects translate for the host (exactly or approximately), how many are
// rejected and why, and how many kernels that need more LDS than the host
// has get a virtual-LDS sidecar. The figures are computed, never written
// by hand, so the README block pasted from them cannot go stale unnoticed.
package status

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt"
	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/report"
)

// Source is one corpus directory to measure.
type Source struct {
	// Name labels the group in the output.
	Name string
	// Dir holds the *.co objects.
	Dir string
}

// Sources returns the two corpora the README quotes, relative to the
// project root: the shared aiter gfx950 objects (../shared beside the
// root) and the project's gfx950 test kernels.
func Sources(root string) []Source {
	return []Source{
		{Name: "aiter gfx950", Dir: filepath.Join(root, "..", "shared", "corpus", "aiter", "gfx950")},
		{Name: "test kernels gfx950", Dir: filepath.Join(root, "testdata", "kernels", "gfx950")},
	}
}

// Count is one row of a reason histogram: reasons that differ only in
// their numbers (register counts, addresses) are one row, shown by the
// first of them.
type Count struct {
	Reason string `json:"reason"`
	// N counts objects (rejections) or kernels (missing sidecars).
	N int `json:"n"`
	// Variants counts the distinct reasons of the row.
	Variants int `json:"variants"`
}

// Group is the status of one corpus directory for one host.
type Group struct {
	Name string `json:"name"`
	Host string `json:"host"`
	// Objects counts the *.co files; Translated those committed, split by
	// object fidelity into Exact and Approximate; Rejected the rest.
	Objects     int `json:"objects"`
	Translated  int `json:"translated"`
	Exact       int `json:"exact"`
	Approximate int `json:"approximate"`
	Rejected    int `json:"rejected"`
	// Kernels counts the kernels of the translated objects.
	Kernels int `json:"kernels"`
	// NeedSidecar counts kernels whose static LDS exceeds the host's;
	// Sidecars those that got a virtual-LDS sidecar.
	NeedSidecar int `json:"need_sidecar"`
	Sidecars    int `json:"sidecars"`
	// SpillPerUse counts the sidecars that keep virtual_lds_base in
	// private memory (no SGPR pair free in the scope).
	SpillPerUse int `json:"spill_per_use"`
	// IslandBranches and LongBranches count repaired far branches.
	IslandBranches int `json:"island_branches"`
	LongBranches   int `json:"long_branches"`
	// Rejections counts rejected objects by first-rejection reason;
	// NoSidecar counts kernels without a sidecar by reason.
	Rejections []Count `json:"rejections"`
	NoSidecar  []Count `json:"no_sidecar"`
}

// Status is the figures of every source.
type Status struct {
	Groups []Group `json:"groups"`
}

// Compute translates every object of every source for host (with
// virtual-LDS sidecars) and gathers the figures. An unreadable directory
// or file is an error; an object that does not translate is a figure.
func Compute(sources []Source, host isa.Target) (*Status, error) {
	st := &Status{}
	for _, src := range sources {
		g, err := group(src, host)
		if err != nil {
			return nil, err
		}
		st.Groups = append(st.Groups, g)
	}
	return st, nil
}

func group(src Source, host isa.Target) (Group, error) {
	g := Group{Name: src.Name, Host: host.String()}
	files, err := filepath.Glob(filepath.Join(src.Dir, "*.co"))
	if err != nil {
		return g, fmt.Errorf("status: %s: %w", src.Dir, err)
	}
	if len(files) == 0 {
		return g, fmt.Errorf("status: %s: no *.co objects", src.Dir)
	}
	sort.Strings(files)
	rej, miss := histogram{}, histogram{}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return g, fmt.Errorf("status: %w", err)
		}
		g.Objects++
		res, err := dbt.TranslateWithSidecars(data, dbt.Options{Host: host, Name: filepath.Base(p)}, dbt.SidecarOptions{})
		if err != nil || res == nil || res.Result == nil || res.Object == nil {
			g.Rejected++
			rej.add(firstReason(res, err))
			continue
		}
		g.Translated++
		if res.Report.Fidelity == report.Exact {
			g.Exact++
		} else {
			g.Approximate++
		}
		for _, k := range res.Report.Kernels {
			g.Kernels++
			g.IslandBranches += k.IslandBranches
			g.LongBranches += k.LongBranches
		}
		for _, sc := range res.Sidecars {
			g.NeedSidecar++
			if sc.Made {
				g.Sidecars++
				if sc.SpillPerUse {
					g.SpillPerUse++
				}
			} else {
				miss.add(shorten(sc.Reason))
			}
		}
	}
	g.Rejections, g.NoSidecar = rej.counts(), miss.counts()
	return g, nil
}

// firstReason names why an object was rejected: its first kernel
// rejection (mnemonic and reason) or the translation error.
func firstReason(res *dbt.SidecarResult, err error) string {
	if res != nil && res.Result != nil {
		for _, k := range res.Report.Kernels {
			if len(k.Rejections) > 0 {
				r := k.Rejections[0]
				if r.Mnemonic != "" {
					return r.Mnemonic + ": " + shorten(r.Reason)
				}
				return shorten(r.Reason)
			}
		}
		if res.Report.Error != "" {
			return shorten(res.Report.Error)
		}
	}
	if err != nil {
		return shorten(err.Error())
	}
	return "no object produced"
}

// shorten keeps a reason on one line of at most 120 bytes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// number matches a number that is a word of its own (not the 4 of
// "dwordx4" or the 127 of "a127").
var number = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(0x[0-9a-fA-F]+|[0-9]+)\b`)
})

// histogram counts reasons by their shape (numbers replaced), keeping
// the first reason of each shape as its example.
type histogram map[string]*row

type row struct {
	Count
	seen map[string]bool
}

func (h histogram) add(reason string) {
	key := number().ReplaceAllString(reason, "#")
	r := h[key]
	if r == nil {
		r = &row{Count: Count{Reason: reason}, seen: map[string]bool{}}
		h[key] = r
	}
	r.N++
	if !r.seen[reason] {
		r.seen[reason] = true
		r.Variants++
	}
}

func (h histogram) counts() []Count {
	out := make([]Count, 0, len(h))
	for _, r := range h {
		out = append(out, r.Count)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Reason < out[j].Reason
	})
	return out
}

// WriteText prints the figures, one block per group: the lines the
// README pastes.
func (st *Status) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, g := range st.Groups {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s -> %s: %d objects, %d translate (%d exact, %d approximate), %d rejected\n",
			g.Name, g.Host, g.Objects, g.Translated, g.Exact, g.Approximate, g.Rejected)
		fmt.Fprintf(&b, "  kernels %d; above the host's LDS %d, with a virtual-LDS sidecar %d (%d spill-per-use); far branches: %d long windows, %d through islands\n",
			g.Kernels, g.NeedSidecar, g.Sidecars, g.SpillPerUse, g.LongBranches, g.IslandBranches)
		for _, c := range g.Rejections {
			fmt.Fprintf(&b, "  rejected %d: %s%s\n", c.N, c.Reason, variants(c.Variants))
		}
		for _, c := range g.NoSidecar {
			fmt.Fprintf(&b, "  no sidecar %d: %s%s\n", c.N, c.Reason, variants(c.Variants))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the figures as indented JSON.
func (st *Status) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// variants notes that a row stands for reasons that differ from its
// example in their numbers.
func variants(n int) string {
	if n > 1 {
		return fmt.Sprintf(" [%d variants]", n)
	}
	return ""
}
