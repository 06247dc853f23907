// Package flame turns the stacks collected by package waves into
// flamegraph outputs: folded stacks (the standard "stack cycles" lines read
// by flamegraph.pl, inferno and speedscope, or the upstream four-column
// form), speedscope JSON and a self-contained interactive SVG.
package flame

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rocjitsu/rocjitsu/sqtt"
	"github.com/rocjitsu/rocjitsu/sqtt/waves"
)

// Collector is a waves.Sink that attributes interval cycles to the stack
// trie.
type Collector struct{}

// WaveStart implements waves.Sink.
func (c *Collector) WaveStart(*waves.Wave) {}

// Interval adds dt cycles and one execution to the stack ending at n.
func (c *Collector) Interval(w *waves.Wave, n *waves.Node, dt int64) {
	// Order: wave, then interval within the wave.
	if key := w.Seq<<32 | w.Intervals&0xFFFFFFFF; n.FirstSample == 0 || key < n.FirstSample {
		n.FirstSample = key
	}
	n.Cycles += dt
	n.Execs++
}

// Enter implements waves.Sink.
func (c *Collector) Enter(*waves.Wave, int64, *waves.Node) {}

// Exit implements waves.Sink.
func (c *Collector) Exit(*waves.Wave, int64, *waves.Node) {}

// Point implements waves.Sink; points carry no weight.
func (c *Collector) Point(*waves.Wave, int64, *sqtt.Entry) {}

// Unmatched implements waves.Sink.
func (c *Collector) Unmatched(*waves.Wave, int64) {}

// WaveEnd implements waves.Sink; frames open at the wave end get no
// trailing time.
func (c *Collector) WaveEnd(*waves.Wave) {}

// Stack is one folded stack with its weight.
type Stack struct {
	// Frames are the frame names, outermost first.
	Frames []string
	// Cycles is the total self time of the stack.
	Cycles int64
	// Execs is the number of intervals.
	Execs int64
}

// Key returns the frames joined with ';'.
func (s Stack) Key() string { return strings.Join(s.Frames, ";") }

// Stacks lists the stacks with weight in the order they were first
// sampled. With demangle, every frame name is demangled.
func Stacks(trie *waves.Trie, demangle bool) []Stack {
	var nodes []*waves.Node
	trie.Walk(func(n *waves.Node) {
		if n.Execs > 0 {
			nodes = append(nodes, n)
		}
	})
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].FirstSample < nodes[j].FirstSample })
	cache := map[string]string{}
	out := make([]Stack, 0, len(nodes))
	for _, n := range nodes {
		frames := n.Path()
		if demangle {
			for i, f := range frames {
				d, ok := cache[f]
				if !ok {
					d = sqtt.Demangle(f)
					cache[f] = d
				}
				frames[i] = d
			}
		}
		out = append(out, Stack{frames, n.Cycles, n.Execs})
	}
	return out
}

// Merge adds stacks with the same frames (used after demangling, which can
// map two names to one).
func Merge(stacks []Stack) []Stack {
	idx := map[string]int{}
	var out []Stack
	for _, s := range stacks {
		k := s.Key()
		if i, ok := idx[k]; ok {
			out[i].Cycles += s.Cycles
			out[i].Execs += s.Execs
			continue
		}
		idx[k] = len(out)
		out = append(out, s)
	}
	return out
}

// Format selects the folded line format.
type Format int

const (
	// Standard is "frame;frame cycles", sorted by stack: the format of
	// flamegraph.pl, inferno and speedscope.
	Standard Format = iota
	// Upstream is sqtt_flamegraph.py's "frame;frame cycles execs avg",
	// sorted by descending cycles (ties in first-sample order).
	Upstream
)

// WriteFolded writes stacks as folded lines.
func WriteFolded(w io.Writer, stacks []Stack, f Format) error {
	s := append([]Stack(nil), stacks...)
	if f == Upstream {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Cycles > s[j].Cycles })
	} else {
		sort.SliceStable(s, func(i, j int) bool { return s[i].Key() < s[j].Key() })
	}
	bw := bufio.NewWriter(w)
	for _, st := range s {
		bw.WriteString(st.Key())
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(st.Cycles, 10))
		if f == Upstream {
			avg := float64(st.Cycles) / float64(st.Execs)
			fmt.Fprintf(bw, " %d %s", st.Execs, strconv.FormatFloat(roundHalfEven(avg), 'f', 0, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// roundHalfEven rounds like Python's "%.0f" formatting.
func roundHalfEven(x float64) float64 {
	s := strconv.FormatFloat(x, 'f', 0, 64)
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// WriteSpeedscope writes one sampled profile: shared frames in first
// appearance order, samples sorted by descending cycles, weights in cycles.
func WriteSpeedscope(w io.Writer, stacks []Stack, exporter string) error {
	frameIdx := map[string]int{}
	var frames []string
	for _, s := range stacks {
		for _, f := range s.Frames {
			if _, ok := frameIdx[f]; !ok {
				frameIdx[f] = len(frames)
				frames = append(frames, f)
			}
		}
	}
	s := append([]Stack(nil), stacks...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Cycles > s[j].Cycles })
	var total int64
	for _, st := range s {
		total += st.Cycles
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n  \"shared\": {\n    \"frames\": [")
	for i, f := range frames {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n      {\"name\": ")
		bw.WriteString(jsonString(f))
		bw.WriteString("}")
	}
	bw.WriteString("\n    ]\n  },\n  \"profiles\": [\n    {\n      \"type\": \"sampled\",\n      \"name\": \"SQTT Trace\",\n      \"unit\": \"cycles\",\n      \"startValue\": 0,\n")
	fmt.Fprintf(bw, "      \"endValue\": %d,\n      \"samples\": [", total)
	for i, st := range s {
		if i > 0 {
			bw.WriteString(", ")
		}
		bw.WriteByte('[')
		for j, f := range st.Frames {
			if j > 0 {
				bw.WriteString(", ")
			}
			bw.WriteString(strconv.Itoa(frameIdx[f]))
		}
		bw.WriteByte(']')
	}
	bw.WriteString("],\n      \"weights\": [")
	for i, st := range s {
		if i > 0 {
			bw.WriteString(", ")
		}
		bw.WriteString(strconv.FormatInt(st.Cycles, 10))
	}
	fmt.Fprintf(bw, "]\n    }\n  ],\n  \"name\": \"SQTT Flamegraph\",\n  \"activeProfileIndex\": 0,\n  \"exporter\": %s\n}\n", jsonString(exporter))
	return bw.Flush()
}

// jsonString quotes s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
