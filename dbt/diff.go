package dbt

import (
	"fmt"
	"io"

	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/dbt/pair"
)

// Change is one guest instruction whose host code is not its own bytes:
// an expansion or a relocated control-flow window.
type Change struct {
	Kernel string
	// Src is the guest address; Host the address of the host code.
	Src, Host uint64
	// Guest is the guest instruction; HostCode the host instructions.
	Guest    string
	HostCode []string
}

// changes lists, for every kernel, the instructions whose host bytes
// differ from the guest bytes, in source order.
func changes(kts []*kernelT, hostText []byte, textAddr uint64, bases []uint64, pr pair.Pair) []Change {
	var out []Change
	for i, kt := range kts {
		xs := kt.bodyPairs() // by body offset
		for j, x := range xs {
			pc := x.Src
			in, _ := kt.g.Inst(pc)
			lo := x.Off
			hi := len(kt.body.Code)
			if j+1 < len(xs) {
				hi = xs[j+1].Off
			}
			at := bases[i] + uint64(lo) - textAddr
			got := hostText[at : at+uint64(hi-lo)]
			if string(got) == string(kt.raw(in)) {
				continue
			}
			c := Change{Kernel: kt.k.Name, Src: pc, Host: bases[i] + uint64(lo), Guest: gfx9.Print(in)}
			for off := 0; off < len(got); {
				h, err := pr.HostDecode(got[off:], c.Host+uint64(off))
				if err != nil || h.Size == 0 {
					c.HostCode = append(c.HostCode, fmt.Sprintf("<undecodable: %v>", err))
					break
				}
				c.HostCode = append(c.HostCode, pr.HostPrint(&h))
				off += int(h.Size)
			}
			out = append(out, c)
		}
	}
	return out
}

// WriteDiff writes changes as a readable diff: the guest instruction with
// its address, then the host instructions that replace it.
func WriteDiff(w io.Writer, cs []Change) error {
	for _, c := range cs {
		if _, err := fmt.Fprintf(w, "%s %#x -> %#x\n- %s\n", c.Kernel, c.Src, c.Host, c.Guest); err != nil {
			return err
		}
		for _, h := range c.HostCode {
			if _, err := fmt.Fprintf(w, "+ %s\n", h); err != nil {
				return err
			}
		}
	}
	return nil
}
