package mem

import (
	"errors"
	"testing"
)

func TestAllocReadWriteFault(t *testing.T) {
	m := New()
	a, err := m.Alloc(100, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Alloc(8, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if b%4096 != 0 || b <= a+100 {
		t.Fatalf("bad placement a=%#x b=%#x", a, b)
	}
	if err := m.Store32(a+96, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if v, err := m.Load32(a + 96); err != nil || v != 0xdeadbeef {
		t.Fatalf("Load32 = %#x, %v", v, err)
	}
	var f *Fault
	if _, err := m.Load32(a + 97); !errors.As(err, &f) || f.Addr != a+97 {
		t.Fatalf("straddling read: %v", err)
	}
	if err := m.Store64(b, 1); err != nil {
		t.Fatal(err)
	}
	if err := m.Store64(b+4, 1); err == nil {
		t.Fatal("write past the end must fault")
	}
	if _, err := m.Load32(0); err == nil {
		t.Fatal("null must fault")
	}
	if err := m.Free(a); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Load32(a); err == nil {
		t.Fatal("freed memory must fault")
	}
	if err := m.Free(a); err == nil {
		t.Fatal("double free must fail")
	}
}
