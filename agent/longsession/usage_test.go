package longsession

import "testing"

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 12.3456: "$12.35", 1.5: "$1.50", 0.015: "$0.015", 0.0323: "$0.0323", 0.1: "$0.10", 0.00004: "$0.00"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %q, want %q", v, got, want)
		}
	}
}
