package target

import "testing"

func TestParseIDForms(t *testing.T) {
	for in, want := range map[string]string{
		"amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-": "amdgcn-amd-amdhsa--gfx950:sramecc+:xnack-",
		"amdgcn-amd-amdhsa--gfx942:xnack-:sramecc+": "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
		"amdgcn-amd-amdhsa-gfx942":                  "amdgcn-amd-amdhsa--gfx942",
		"amdgcn-gfx1201":                            "amdgcn-amd-amdhsa--gfx1201",
		"gfx1200":                                   "amdgcn-amd-amdhsa--gfx1200",
		"gfx942:xnack+":                             "amdgcn-amd-amdhsa--gfx942:xnack+",
	} {
		id, err := ParseID(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if id.String() != want {
			t.Errorf("%s: %s, want %s", in, id, want)
		}
	}
	for _, bad := range []string{"gfx9999", "gfx1200:xnack+", "gfx942:foo+", "gfx942:xnack", "gfx942:sramecc?", "nvptx-sm90"} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestFlags(t *testing.T) {
	fl := DecodeFlags(0x54f)
	if fl.Mach != MachGFX950 || fl.XNACK != FeatureAny || fl.SRAMECC != FeatureAny || fl.Encode() != 0x54f {
		t.Errorf("0x54f: %+v", fl)
	}
	fl = DecodeFlags(0x0100_0e4c | 0x1000)
	if fl.Mach != MachGFX942 || fl.XNACK != FeatureOff || fl.SRAMECC != FeatureOn || fl.GenericVersion != 1 || fl.Other != 0x1000 || fl.Encode() != 0x0100_1e4c {
		t.Errorf("flags: %+v (0x%x)", fl, fl.Encode())
	}
	id, err := FromFlags(0x0e4c)
	if err != nil || id.String() != "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" {
		t.Errorf("FromFlags: %v %v", id, err)
	}
	if e, _ := id.Flags(); e != 0x0e4c {
		t.Errorf("Flags: 0x%x", e)
	}
	if _, err := FromFlags(0x7e); err == nil {
		t.Error("unknown mach accepted")
	}
	for _, name := range []string{"gfx942", "gfx950", "gfx1200", "gfx1201"} {
		p, ok := ByName(name)
		q, ok2 := ByMach(p.Mach)
		if !ok || !ok2 || q.Name != name {
			t.Errorf("%s: lookup %v %v %v", name, ok, ok2, q.Name)
		}
	}
	if p, _ := ByName("gfx1201"); p.Family != FamilyGFX12 || p.XNACK || p.Wave64 {
		t.Errorf("gfx1201: %+v", p)
	}
	if p, _ := ByName("gfx950"); p.Family != FamilyGFX90A || !p.ArchitectedFlatScratch {
		t.Errorf("gfx950: %+v", p)
	}
}
