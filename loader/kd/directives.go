package kd

import "github.com/rocjitsu/rocjitsu/loader/target"

// Directive is one assembler directive of an .amdhsa_kernel block, as
// LLVM spells it (".amdhsa_next_free_vgpr").
type Directive struct {
	// Name is the directive, with its leading dot.
	Name string
	// Value is the directive's operand.
	Value int64
}

// Directives returns the descriptor as the .amdhsa_* directives that
// reproduce it, in the order LLVM's disassembler prints them for processor
// p and code object version cov (4, 5 or 6). Values that the descriptor
// cannot recover (.amdhsa_reserve_vcc, .amdhsa_reserve_xnack_mask,
// .amdhsa_reserve_flat_scratch) are 0; register counts are the granule
// values multiplied out. Bits that have no directive (for example gfx12's
// INST_PREF_SIZE) are not listed: read them with Get.
func (d *Descriptor) Directives(p target.Processor, cov int) []Directive {
	fam := p.Family
	gfx10plus := fam >= target.FamilyGFX10
	gfx12 := fam == target.FamilyGFX12
	var out []Directive
	add := func(name string, v uint32) { out = append(out, Directive{name, int64(v)}) }
	fld := func(name string, f Field) { add(name, d.Get(f)) }

	add(".amdhsa_group_segment_fixed_size", d.GroupSegmentFixedSize)
	add(".amdhsa_private_segment_fixed_size", d.PrivateSegmentFixedSize)
	add(".amdhsa_kernarg_size", d.KernargSize)
	// COMPUTE_PGM_RSRC3 comes before RSRC1 in the descriptor.
	if fam == target.FamilyGFX90A {
		add(".amdhsa_accum_offset", uint32(d.AccumOffset()))
		fld(".amdhsa_tg_split", RSRC3_TG_SPLIT)
	} else if gfx10plus && !gfx12 && !d.Wave32(p) {
		fld(".amdhsa_shared_vgpr_count", RSRC3_SHARED_VGPR_COUNT)
	}
	add(".amdhsa_next_free_vgpr", uint32(d.NextFreeVGPR(p)))
	add(".amdhsa_reserve_vcc", 0)
	if !p.ArchitectedFlatScratch {
		add(".amdhsa_reserve_flat_scratch", 0)
	}
	add(".amdhsa_reserve_xnack_mask", 0)
	add(".amdhsa_next_free_sgpr", uint32(d.NextFreeSGPR()))
	fld(".amdhsa_float_round_mode_32", RSRC1_FLOAT_ROUND_MODE_32)
	fld(".amdhsa_float_round_mode_16_64", RSRC1_FLOAT_ROUND_MODE_16_64)
	fld(".amdhsa_float_denorm_mode_32", RSRC1_FLOAT_DENORM_MODE_32)
	fld(".amdhsa_float_denorm_mode_16_64", RSRC1_FLOAT_DENORM_MODE_16_64)
	if !gfx12 {
		fld(".amdhsa_dx10_clamp", RSRC1_ENABLE_DX10_CLAMP)
		fld(".amdhsa_ieee_mode", RSRC1_ENABLE_IEEE_MODE)
	}
	fld(".amdhsa_fp16_overflow", RSRC1_FP16_OVFL)
	if gfx10plus {
		fld(".amdhsa_workgroup_processor_mode", RSRC1_WGP_MODE)
		fld(".amdhsa_memory_ordered", RSRC1_MEM_ORDERED)
		fld(".amdhsa_forward_progress", RSRC1_FWD_PROGRESS)
	}
	if gfx12 {
		fld(".amdhsa_round_robin_scheduling", RSRC1_ENABLE_WG_RR_EN)
	}
	if p.ArchitectedFlatScratch {
		fld(".amdhsa_enable_private_segment", RSRC2_ENABLE_PRIVATE_SEGMENT)
	} else {
		fld(".amdhsa_system_sgpr_private_segment_wavefront_offset", RSRC2_ENABLE_PRIVATE_SEGMENT)
	}
	fld(".amdhsa_system_sgpr_workgroup_id_x", RSRC2_ENABLE_SGPR_WORKGROUP_ID_X)
	fld(".amdhsa_system_sgpr_workgroup_id_y", RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y)
	fld(".amdhsa_system_sgpr_workgroup_id_z", RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z)
	fld(".amdhsa_system_sgpr_workgroup_info", RSRC2_ENABLE_SGPR_WORKGROUP_INFO)
	fld(".amdhsa_system_vgpr_workitem_id", RSRC2_ENABLE_VGPR_WORKITEM_ID)
	fld(".amdhsa_exception_fp_ieee_invalid_op", RSRC2_EXCEPTION_FP_INVALID_OPERATION)
	fld(".amdhsa_exception_fp_denorm_src", RSRC2_EXCEPTION_FP_DENORMAL_SOURCE)
	fld(".amdhsa_exception_fp_ieee_div_zero", RSRC2_EXCEPTION_FP_DIVISION_BY_ZERO)
	fld(".amdhsa_exception_fp_ieee_overflow", RSRC2_EXCEPTION_FP_OVERFLOW)
	fld(".amdhsa_exception_fp_ieee_underflow", RSRC2_EXCEPTION_FP_UNDERFLOW)
	fld(".amdhsa_exception_fp_ieee_inexact", RSRC2_EXCEPTION_FP_INEXACT)
	fld(".amdhsa_exception_int_div_zero", RSRC2_EXCEPTION_INT_DIVIDE_BY_ZERO)
	if !p.ArchitectedFlatScratch {
		fld(".amdhsa_user_sgpr_private_segment_buffer", KCP_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER)
	}
	fld(".amdhsa_user_sgpr_dispatch_ptr", KCP_ENABLE_SGPR_DISPATCH_PTR)
	fld(".amdhsa_user_sgpr_queue_ptr", KCP_ENABLE_SGPR_QUEUE_PTR)
	fld(".amdhsa_user_sgpr_kernarg_segment_ptr", KCP_ENABLE_SGPR_KERNARG_SEGMENT_PTR)
	fld(".amdhsa_user_sgpr_dispatch_id", KCP_ENABLE_SGPR_DISPATCH_ID)
	if !p.ArchitectedFlatScratch {
		fld(".amdhsa_user_sgpr_flat_scratch_init", KCP_ENABLE_SGPR_FLAT_SCRATCH_INIT)
	}
	fld(".amdhsa_user_sgpr_private_segment_size", KCP_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE)
	if gfx10plus {
		fld(".amdhsa_wavefront_size32", KCP_ENABLE_WAVEFRONT_SIZE32)
	}
	if cov >= 5 {
		fld(".amdhsa_uses_dynamic_stack", KCP_USES_DYNAMIC_STACK)
	}
	if v := d.Get(KERNARG_PRELOAD_SPEC_LENGTH); v != 0 {
		add(".amdhsa_user_sgpr_kernarg_preload_length", v)
	}
	if v := d.Get(KERNARG_PRELOAD_SPEC_OFFSET); v != 0 {
		add(".amdhsa_user_sgpr_kernarg_preload_offset", v)
	}
	return out
}
