package bounds

import (
	"math"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		name  string
		n     Number
		want  string
		in    []float64
		notIn []float64
	}{
		{"positive seconds", Number{Min: V(0), MinExclusive: true, Unit: "seconds"}, "a positive number of seconds",
			[]float64{0.5, 300}, []float64{0, -1, math.NaN(), math.Inf(1)}},
		{"whole, 1 or more", Number{Min: V(1), Integer: true}, "a whole number, 1 or more",
			[]float64{1, 5}, []float64{0, 1.5}},
		{"share", Number{Min: V(0.1), Max: V(1), Unit: "the context window"}, "a number of the context window between 0.1 and 1",
			[]float64{0.1, 1, 0.8}, []float64{0.05, 1.01}},
		{"zero or more", Number{Min: V(0), Integer: true, Unit: "characters"}, "a whole number of characters, 0 or more",
			[]float64{0, 2048}, []float64{-1}},
		{"above", Number{Min: V(1), MinExclusive: true}, "a number above 1", []float64{1.5}, []float64{1}},
		{"at most", Number{Max: V(2)}, "a number, 2 or less", []float64{-3, 2}, []float64{2.1}},
		{"any", Number{}, "a number", []float64{-1e9, 0}, []float64{math.NaN()}},
		{"positive whole", Number{Min: V(0), MinExclusive: true, Integer: true, Unit: "bytes"}, "a positive whole number of bytes",
			[]float64{1}, []float64{0, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.n.Want(); got != tt.want {
				t.Errorf("Want() = %q, want %q", got, tt.want)
			}
			for _, v := range tt.in {
				if !tt.n.Contains(v) {
					t.Errorf("Contains(%v) = false", v)
				}
			}
			for _, v := range tt.notIn {
				if tt.n.Contains(v) {
					t.Errorf("Contains(%v) = true", v)
				}
			}
		})
	}
}
