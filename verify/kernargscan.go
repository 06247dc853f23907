package verify

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/rocjitsu/rocjitsu/dbt/isa"
	"github.com/rocjitsu/rocjitsu/dbt/isa/gfx9"
	"github.com/rocjitsu/rocjitsu/loader"
)

// maxScan bounds the instructions pointerSlots reads from a kernel entry.
const maxScan = 2048

// sloadX2 matches a 64-bit scalar load from an SGPR pair at a constant
// offset, as printed; compiled on first use.
var sloadX2 = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^s_load_dwordx2 s\[\d+:\d+\], s\[(\d+):\d+\], 0x([0-9a-fA-F]+)$`)
})

// pointerSlots returns the kernarg offsets the kernel's code loads as 64-bit
// values (s_load_dwordx2 through the kernarg-segment pointer), read in a
// straight line from the entry: the candidates for pointers inside struct
// arguments. The kernarg pointer's SGPR follows from the descriptor's code
// properties (private segment buffer, dispatch and queue pointers come
// first); a kernel that moves it elsewhere yields no slots.
func pointerSlots(f *loader.File, k *loader.Kernel, t isa.Target, codeProps uint16) map[int]bool {
	if codeProps&8 == 0 {
		return nil
	}
	ka := 4*int(codeProps&1) + 2*int(codeProps>>1&1) + 2*int(codeProps>>2&1)
	text := f.Section(".text")
	if text == nil || k.EntryAddr < text.Addr || k.EntryAddr-text.Addr >= uint64(len(text.Data)) {
		return nil
	}
	out := map[int]bool{}
	off := k.EntryAddr - text.Addr
	for n := 0; n < maxScan && off < uint64(len(text.Data)); n++ {
		in, err := gfx9.Decode(text.Data[off:], text.Addr+off, t)
		if err != nil || in.Size == 0 {
			break
		}
		off += uint64(in.Size)
		m := sloadX2().FindStringSubmatch(gfx9.Print(&in))
		if m == nil {
			continue
		}
		if r, _ := strconv.Atoi(m[1]); r != ka {
			continue
		}
		if v, err := strconv.ParseUint(m[2], 16, 32); err == nil {
			out[int(v)] = true
		}
	}
	return out
}
