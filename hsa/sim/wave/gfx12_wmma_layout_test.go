package wave

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
)

// layoutCell is one matrix element's place, as the layout checker
// (testdata/wmma_layout_check.py) compares it with AMD's matrix instruction
// calculator.
type layoutCell struct {
	Inst   string `json:"inst"`
	Wave   int    `json:"wave"`
	Matrix string `json:"matrix"` // A, B, D or K (SWMMAC index), K with Key
	Key    int    `json:"key"`
	Row    int    `json:"row"`
	Col    int    `json:"col"`
	Reg    int    `json:"reg"`
	Lane   int    `json:"lane"`
	Lo     int    `json:"lo"`
	Hi     int    `json:"hi"`
}

// wmmaLayout lists where the simulator reads and writes every element of
// every gfx12 matrix instruction.
func wmmaLayout() []layoutCell {
	var out []layoutCell
	names := make([]string, 0, len(wmmaOps()))
	for n := range wmmaOps() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		op := wmmaOps()[name]
		for _, wave64 := range []bool{false, true} {
			wv := 32
			if wave64 {
				wv = 64
			}
			add := func(m string, key, row, col, reg, lane, lo, n int) {
				out = append(out, layoutCell{name, wv, m, key, row, col, reg, lane, lo, lo + n - 1})
			}
			ab, bb := op.a.bits(), op.b.bits()
			for r := 0; r < 16; r++ {
				for k := 0; k < op.k; k++ {
					if op.sparse {
						// The calculator shows, for a dense k, the pair of
						// stored elements of its group.
						l, g, b := elemPos(ab, op.aStoredK(), wave64, r, 2*(k/4))
						add("A", 0, r, k, g, l, b, 2*ab)
						_, _, win := op.indexPos(wave64, r, k/4)
						for key := 0; key*win < 32; key++ {
							l, b, _ := op.indexPos(wave64, r, k/4)
							add("K", key, r, k, 0, l, b+key*win, 4)
						}
					} else {
						l, g, b := elemPos(ab, op.k, wave64, r, k)
						add("A", 0, r, k, g, l, b, ab)
					}
					l, g, b := elemPos(bb, op.k, wave64, r, k)
					add("B", 0, k, r, g, l, b, bb)
				}
			}
			ob := op.out.bits()
			for i := 0; i < 16; i++ {
				for j := 0; j < 16; j++ {
					l, g, b := outPos(ob, wave64, i, j)
					add("D", 0, i, j, g, l, b, ob)
				}
			}
		}
	}
	return out
}

// TestWMMALayoutDump writes wmmaLayout as JSON to $WMMA_LAYOUT_OUT (for
// testdata/wmma_layout_check.py); without it, it checks that no two
// elements of one operand share bits.
func TestWMMALayoutDump(t *testing.T) {
	cells := wmmaLayout()
	type slot struct {
		inst, m      string
		wave, key    int
		reg, lane, b int
	}
	seen := map[slot]layoutCell{}
	for _, c := range cells {
		if c.Matrix == "A" && wmmaOps()[c.Inst].sparse || c.Matrix == "K" {
			continue // dense k of one group share their pair / nibble
		}
		for b := c.Lo; b <= c.Hi; b++ {
			s := slot{c.Inst, c.Matrix, c.Wave, c.Key, c.Reg, c.Lane, b}
			if o, dup := seen[s]; dup {
				t.Fatalf("%s wave%d %s: (%d,%d) and (%d,%d) share v%d lane %d bit %d", c.Inst, c.Wave, c.Matrix, o.Row, o.Col, c.Row, c.Col, c.Reg, c.Lane, b)
			}
			seen[s] = c
		}
	}
	path := os.Getenv("WMMA_LAYOUT_OUT")
	if path == "" {
		return
	}
	b, err := json.Marshal(cells)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
