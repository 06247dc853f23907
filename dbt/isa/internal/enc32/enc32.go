// Package enc32 classifies the 32-bit scalar (SOP*) and vector (VOP1, VOP2,
// VOPC) encodings by their first-dword prefix. GFX9 and GFX12 lay these
// prefixes out the same way, so both families' classifiers start here and
// only look further when the word is none of them.
package enc32

// Kind is a 32-bit encoding with a shared prefix.
type Kind uint8

// The shared 32-bit encodings.
const (
	None Kind = iota // not a shared 32-bit encoding: a 64-bit or longer one
	SOP1
	SOP2
	SOPK
	SOPC
	SOPP
	VOP1
	VOP2
	VOPC
)

// Classify returns the shared 32-bit encoding of first dword w, or None.
// Bit 31 clear is VOP1, VOPC or else VOP2; bits [31:30] = 2 is the SOP
// family, told apart by bits [31:23] (SOP1, SOPC, SOPP), then [31:28] = 0xb
// (SOPK), else SOP2.
func Classify(w uint32) Kind {
	if w>>31 == 0 {
		switch (w >> 25) & 0x3f {
		case 0x3e:
			return VOPC
		case 0x3f:
			return VOP1
		}
		return VOP2
	}
	if w>>30 == 2 {
		switch w >> 23 {
		case 0x17d:
			return SOP1
		case 0x17e:
			return SOPC
		case 0x17f:
			return SOPP
		}
		if w>>28 == 0xb {
			return SOPK
		}
		return SOP2
	}
	return None
}
