package kernelref

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

func expectedOutputs(c *Case) map[int][]byte {
	outs := map[int][]byte{}
	for _, i := range c.Buffers() {
		outs[i] = bytes.Clone(c.Args[i].Expected)
	}
	return outs
}

func TestCheckAcceptsExpectedRejectsWrong(t *testing.T) {
	for _, c := range AllCases() {
		outs := expectedOutputs(&c)
		if err := c.Check(outs); err != nil {
			t.Fatalf("%s: expected image rejected: %v", c.Name, err)
		}
		changed := false
		for _, i := range c.Buffers() {
			a := c.Args[i]
			if a.Kind == BufferIn {
				continue
			}
			// The kernel must change something: Init differs from Expected.
			if !bytes.Equal(a.Init, a.Expected) {
				changed = true
			}
			// Flip a high bit of the last element: beyond any tolerance.
			bad := expectedOutputs(&c)
			es := a.Elem.Size()
			bad[i][len(bad[i])-1] ^= 0x40
			if es == 1 {
				bad[i][len(bad[i])-1] ^= 0x80
			}
			err := c.Check(bad)
			if err == nil || !strings.Contains(err.Error(), a.Name) {
				t.Errorf("%s: corrupted %s accepted or error does not name it: %v", c.Name, a.Name, err)
			}
		}
		if !changed {
			t.Errorf("%s: no output differs from its initial contents", c.Name)
		}
		// A clobbered input buffer is an error too.
		for _, i := range c.Buffers() {
			if c.Args[i].Kind == BufferIn {
				bad := expectedOutputs(&c)
				bad[i][0] ^= 1
				if err := c.Check(bad); err == nil {
					t.Errorf("%s: clobbered input %s accepted", c.Name, c.Args[i].Name)
				}
				break
			}
		}
		// Missing and short buffers.
		if i := c.Buffers()[0]; true {
			bad := expectedOutputs(&c)
			delete(bad, i)
			if err := c.Check(bad); err == nil {
				t.Errorf("%s: missing buffer accepted", c.Name)
			}
			bad = expectedOutputs(&c)
			bad[i] = bad[i][:len(bad[i])-1]
			if err := c.Check(bad); err == nil {
				t.Errorf("%s: short buffer accepted", c.Name)
			}
		}
	}
}

func TestTolerance(t *testing.T) {
	c, ok := Lookup("transcendental")
	if !ok {
		t.Fatal("no transcendental case")
	}
	idx := -1
	for i, a := range c.Args {
		if a.Name == "o_exp2" {
			idx = i
		}
	}
	bump := func(ulps int32) error {
		outs := expectedOutputs(&c)
		v := binary.LittleEndian.Uint32(outs[idx][8:])
		binary.LittleEndian.PutUint32(outs[idx][8:], uint32(int32(v)+ulps))
		return c.Check(outs)
	}
	if err := bump(2); err != nil {
		t.Errorf("2 ulp off rejected: %v", err)
	}
	if err := bump(-2); err != nil {
		t.Errorf("-2 ulp off rejected: %v", err)
	}
	if err := bump(3); err == nil {
		t.Error("3 ulp off accepted with a 2-ulp tolerance")
	}
	// Exact buffers take no tolerance at all.
	v, _ := Lookup("vector_add")
	outs := expectedOutputs(&v)
	outs[2][0] ^= 1
	if err := v.Check(outs); err == nil {
		t.Error("1 ulp off accepted on an exact buffer")
	}
}

func TestKernarg(t *testing.T) {
	c, _ := Lookup("many_kernargs")
	addrs := map[int]uint64{}
	for _, i := range c.Buffers() {
		addrs[i] = 0x1000_0000_0000 + uint64(i)*0x100
	}
	ka, err := c.Kernarg(addrs)
	if err != nil {
		t.Fatal(err)
	}
	if len(ka) != 108 {
		t.Fatalf("kernarg size %d, want 108", len(ka))
	}
	le := binary.LittleEndian
	if int8(ka[0]) != -77 || ka[1] != 201 || int16(le.Uint16(ka[2:])) != -12345 {
		t.Errorf("char/uchar/short wrong: % x", ka[:4])
	}
	if le.Uint64(ka[8:]) != addrs[3] || le.Uint64(ka[96:]) != addrs[13] {
		t.Errorf("buffer addresses wrong")
	}
	if math.Float64frombits(le.Uint64(ka[56:])) != -2.718281828459045 || F16ToFloat64(le.Uint16(ka[64:])) != -1.5 {
		t.Errorf("double/half wrong")
	}
	if math.Float32frombits(le.Uint32(ka[80+12:])) != 3e7 || le.Uint32(ka[104:]) != 64 {
		t.Errorf("float4/n wrong")
	}
	delete(addrs, 3)
	if _, err := c.Kernarg(addrs); err == nil {
		t.Error("missing buffer address accepted")
	}
}

func TestDeterministic(t *testing.T) {
	a, b := AllCases(), AllCases()
	for i := range a {
		for j := range a[i].Args {
			x, y := a[i].Args[j], b[i].Args[j]
			if !bytes.Equal(x.Init, y.Init) || !bytes.Equal(x.Expected, y.Expected) || !bytes.Equal(x.Value, y.Value) {
				t.Fatalf("%s arg %s differs between calls", a[i].Name, x.Name)
			}
		}
	}
}

// TestF16 checks the binary16 conversions exhaustively: every finite half
// survives a round trip, values just off a midpoint go to the nearer half,
// and exact midpoints go to the even one.
func TestF16(t *testing.T) {
	for h := 0; h < 0x10000; h++ {
		u := uint16(h)
		v := F16ToFloat64(u)
		if math.IsNaN(v) {
			if u&0x7c00 != 0x7c00 || u&0x3ff == 0 {
				t.Fatalf("0x%04x decoded as NaN", u)
			}
			continue
		}
		if got := F16FromFloat64(v); got != u {
			t.Fatalf("round trip 0x%04x -> %g -> 0x%04x", u, v, got)
		}
		if u&0x7fff >= 0x7bff { // the largest finite magnitude and infinity: no next value
			continue
		}
		next := F16ToFloat64(u + 1)
		mid := (v + next) / 2
		even := u
		if u&1 != 0 {
			even = u + 1
		}
		if got := F16FromFloat64(mid); got != even {
			t.Fatalf("midpoint of 0x%04x and 0x%04x (%g) -> 0x%04x, want 0x%04x", u, u+1, mid, got, even)
		}
		eps := math.Abs(next-v) / 1024
		if got := F16FromFloat64(mid - math.Copysign(eps, v)); got != u && v != 0 {
			t.Fatalf("just below midpoint of 0x%04x -> 0x%04x", u, got)
		}
		if got := F16FromFloat64(mid + math.Copysign(eps, next)); got != u+1 {
			t.Fatalf("just above midpoint of 0x%04x -> 0x%04x", u, got)
		}
	}
	if F16FromFloat64(65519.99) != 0x7bff || F16FromFloat64(65520) != 0x7c00 || F16FromFloat64(-1e9) != 0xfc00 {
		t.Error("overflow rounding wrong")
	}
	if F16FromFloat64(math.Ldexp(1, -25)) != 0 || F16FromFloat64(math.Ldexp(1.0001, -25)) != 1 {
		t.Error("underflow rounding wrong")
	}
}

// TestReferenceProperties checks facts about the expected images that do
// not depend on how the reference computes them.
func TestReferenceProperties(t *testing.T) {
	u32s := func(b []byte) []uint32 {
		s := make([]uint32, len(b)/4)
		for i := range s {
			s[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return s
	}
	get := func(name string) Case {
		c, ok := Lookup(name)
		if !ok {
			t.Fatalf("no case %s", name)
		}
		return c
	}

	// Bitonic network: each group sorted and a permutation of its input.
	c := get("bitonic_sort_local")
	in, out := u32s(c.Args[0].Init), u32s(c.Args[0].Expected)
	for g := 0; g < len(in); g += 256 {
		a, b := slices.Clone(in[g:g+256]), out[g:g+256]
		slices.Sort(a)
		if !slices.Equal(a, b) {
			t.Errorf("bitonic_sort_local group %d not the sorted input", g/256)
		}
	}
	// Histogram counts add up to n.
	c = get("histogram")
	var total uint32
	for _, v := range u32s(c.Args[1].Expected) {
		total += v
	}
	if total != 4000 {
		t.Errorf("histogram total %d", total)
	}
	// The scan's last element per group is the group's sum.
	c = get("prefix_scan_u32")
	in, out = u32s(c.Args[0].Init), u32s(c.Args[1].Expected)
	for g := 0; g < len(in); g += 128 {
		var s uint32
		for _, v := range in[g : g+128] {
			s += v
		}
		if out[g+127] != s {
			t.Errorf("scan group %d ends with %d, sum %d", g/128, out[g+127], s)
		}
	}
	// Transposing twice is the identity.
	c = get("transpose")
	in, out = u32s(c.Args[0].Init), u32s(c.Args[1].Expected)
	for y := 0; y < 32; y++ {
		for x := 0; x < 64; x++ {
			if out[x*32+y] != in[y*64+x] {
				t.Fatalf("transpose (%d,%d)", x, y)
			}
		}
	}
	// The matrix cases use integer data, so A*B+C is exact.
	c = get("mfma_f32_32x32x8f16")
	d := c.Args[3].Expected
	for i := 0; i < len(d); i += 4 {
		f := math.Float32frombits(binary.LittleEndian.Uint32(d[i:]))
		if f != float32(math.Trunc(float64(f))) {
			t.Fatalf("mfma result %g is not an integer", f)
		}
	}
	// early_exit_loop really exits early on some rows and not on others.
	c = get("early_exit_loop")
	early, full := 0, 0
	for _, v := range u32s(c.Args[1].Expected) {
		if v < 64 {
			early++
		} else {
			full++
		}
	}
	if early == 0 || full == 0 {
		t.Errorf("early_exit_loop: %d early, %d full rows", early, full)
	}
	// divergence takes all eight paths.
	c = get("divergence")
	paths := map[uint32]bool{}
	for _, v := range u32s(c.Args[0].Init) {
		paths[v%8] = true
	}
	if len(paths) != 8 {
		t.Errorf("divergence covers %d paths", len(paths))
	}
}

func TestCasesExcludesDispatchExtras(t *testing.T) {
	all, plain := AllCases(), Cases()
	if len(plain) >= len(all) {
		t.Fatalf("Cases %d, AllCases %d", len(plain), len(all))
	}
	for _, c := range plain {
		if c.DynamicLDS() != 0 || c.GFX950Only() {
			t.Errorf("%s needs dynamic LDS or is gfx950-only but is in Cases", c.Name)
		}
	}
	n950 := 0
	for _, c := range all {
		if c.GFX950Only() {
			n950++
		}
	}
	if n950 < 7 {
		t.Errorf("%d gfx950-only cases", n950)
	}
	c, ok := Lookup("dynamic_lds")
	if !ok || c.DynamicLDS() != 512 {
		t.Errorf("dynamic_lds: %v %d", ok, c.DynamicLDS())
	}
}
