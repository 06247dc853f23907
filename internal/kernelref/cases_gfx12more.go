package kernelref

// gfx12Permlane is the v_permlane16_b32 / v_permlanex16_b32 case: lane
// gathers inside rows of 16 lanes (permlane16) and from the other row of a
// 32-lane pair (permlanex16), with a fixed 64-bit nibble select.
func gfx12Permlane() Case {
	const n = 256
	const selLo, selHi = 0x89abcdef, 0x01234567 // a reversal: lane n reads 15-n
	b := newCase("gfx12_permlane", "v_permlane16_b32 / v_permlanex16_b32 gathers within and across 16-lane rows", dim(n, 1, 1), dim(64, 1, 1))
	b.targets(wmmaTargets)
	in := b.rng.u32s(n)
	b.in("in", U32, in)
	p16 := b.out("p16", U32, n)
	px16 := b.out("px16", U32, n)
	b.scalar("sel_lo", U32, uint32(selLo))
	b.scalar("sel_hi", U32, uint32(selHi))
	sel := uint64(selHi)<<32 | selLo
	w16, wx16 := make([]uint32, n), make([]uint32, n)
	for i := range in {
		s := int(sel >> (4 * (i & 15)) & 15)
		w16[i] = in[i&^15|s]
		wx16[i] = in[i&^31|(i&16^16)|s]
	}
	b.expect(p16, w16)
	b.expect(px16, wx16)
	return b.done()
}
