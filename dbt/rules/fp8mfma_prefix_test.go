package rules

import (
	"strings"
	"testing"
)

// TestFP8MFMAPrefix: chainAcc and fp8Eligible skip the map lookup for
// names without fp8MFMAPrefix, so every fp8MFMA name must have it.
func TestFP8MFMAPrefix(t *testing.T) {
	for name := range fp8MFMA {
		if !strings.HasPrefix(name, fp8MFMAPrefix) {
			t.Errorf("%s does not start with %s", name, fp8MFMAPrefix)
		}
	}
}
