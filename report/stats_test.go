package report

import (
	"math"
	"runtime"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestFisherExact(t *testing.T) {
	tests := []struct {
		name             string
		a, nb, c, nh     int
		drop, gain       float64
		minDrop, minGain float64
	}{
		// 5/5 → 0/5: the most extreme table of its margins.
		{"all pass to none", 5, 5, 0, 5, 1.0 / 252, 1, 1.0 / 252, 1.0 / 252},
		{"three to none", 3, 3, 0, 3, 1.0 / 20, 1, 1.0 / 20, 1.0 / 20},
		// Fisher's tea-tasting table: P(X ≥ 3) = 17/70.
		{"tea tasting", 3, 4, 1, 4, 17.0 / 70, 1 - 1.0/70, 1.0 / 70, 1.0 / 70},
		{"no change", 2, 4, 2, 4, 1 - 1.0/70 - 16.0/70, 1 - 1.0/70 - 16.0/70, 1.0 / 70, 1.0 / 70},
		// Margins with every trial passing allow one table only: nothing is ever significant.
		{"all pass both", 4, 4, 4, 4, 1, 1, 1, 1},
		{"one trial each", 1, 1, 0, 1, 0.5, 1, 0.5, 0.5},
	}
	for _, tt := range tests {
		f := fisherExact(tt.a, tt.nb, tt.c, tt.nh)
		if !near(f.drop, tt.drop, 1e-9) || !near(f.gain, tt.gain, 1e-9) || !near(f.minDrop, tt.minDrop, 1e-9) || !near(f.minGain, tt.minGain, 1e-9) {
			t.Errorf("%s: got %+v, want drop %.6f gain %.6f min %.6f/%.6f", tt.name, f, tt.drop, tt.gain, tt.minDrop, tt.minGain)
		}
	}
}

func TestSignTest(t *testing.T) {
	tests := []struct {
		down, up int
		want     float64
	}{
		{0, 0, 1},
		{8, 1, 2 * 10.0 / 512},
		{1, 8, 2 * 10.0 / 512},
		{2, 0, 0.5},
		{5, 5, 1},
		{10, 0, 2.0 / 1024},
	}
	for _, tt := range tests {
		if got := signTest(tt.down, tt.up); !near(got, tt.want, 1e-12) {
			t.Errorf("signTest(%d, %d) = %v, want %v", tt.down, tt.up, got, tt.want)
		}
	}
}

func TestStudentT(t *testing.T) {
	tests := []struct{ p, df, want float64 }{
		{0.975, 1, 12.706204736},
		{0.975, 4, 2.776445105},
		{0.975, 49, 2.009575237},
		{0.5, 7, 0},
		{0.025, 10, -2.228138852},
		{0.975, 1e7, 1.959964},
	}
	for _, tt := range tests {
		if got := studentTQuantile(tt.p, tt.df); !near(got, tt.want, 1e-5) {
			t.Errorf("t(%v, %v) = %v, want %v", tt.p, tt.df, got, tt.want)
		}
	}
	if got := normalQuantile(0.975); !near(got, 1.959963985, 1e-8) {
		t.Errorf("z(0.975) = %v", got)
	}
}

func TestExpandedTail(t *testing.T) {
	// Larger samples converge to the plain 2.5% tail; small samples move the percentiles out.
	if got := expandedTail(50, 0.95); !near(got, 0.0212, 0.0005) {
		t.Errorf("n=50: %v", got)
	}
	if got := expandedTail(100000, 0.95); !near(got, 0.025, 0.0002) {
		t.Errorf("n=1e5: %v", got)
	}
	if a, b := expandedTail(5, 0.95), expandedTail(10, 0.95); !(a < b && b < 0.025) {
		t.Errorf("tails must widen as n shrinks: n=5 %v, n=10 %v", a, b)
	}
	if got := expandedTail(1, 0.95); got != 0 {
		t.Errorf("n=1: %v", got)
	}
}

func TestQuantileSorted(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for _, tt := range []struct{ q, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {1.0 / 3, 2}, {-1, 1}, {2, 4}} {
		if got := quantileSorted(xs, tt.q); !near(got, tt.want, 1e-12) {
			t.Errorf("q=%v: %v, want %v", tt.q, got, tt.want)
		}
	}
	if quantileSorted(nil, 0.5) != 0 {
		t.Error("empty input")
	}
}

func TestPairedBootstrap(t *testing.T) {
	deltas := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	a, a2 := pairedBootstrap(deltas, deltas, 10000, 99)
	b, _ := pairedBootstrap(deltas, deltas, 10000, 99)
	for i := range a {
		if a[i] != b[i] || a[i] != a2[i] {
			t.Fatalf("same seed, different resample %d", i)
		}
	}
	// The bootstrap distribution of the mean has the mean of the data and a spread of
	// σ/√n (population σ = 2.8723).
	var mean, sq float64
	for _, m := range a {
		mean += m
	}
	mean /= float64(len(a))
	for _, m := range a {
		sq += (m - mean) * (m - mean)
	}
	sd := math.Sqrt(sq / float64(len(a)))
	if !near(mean, 4.5, 0.03) || !near(sd, 2.8723/math.Sqrt(10), 0.03) {
		t.Errorf("bootstrap mean %.4f sd %.4f", mean, sd)
	}
	c, _ := pairedBootstrap(deltas, deltas, 10000, 100)
	differ := false
	for i := range c {
		differ = differ || c[i] != a[i]
	}
	if !differ {
		t.Error("different seeds gave the same resamples")
	}
	constant, other := pairedBootstrap([]float64{-0.5, -0.5, -0.5}, []float64{1, 2, 3}, 100, 1)
	if constant[0] != -0.5 || constant[99] != -0.5 || other[0] < 1 || other[99] > 3 {
		t.Errorf("constant deltas: %v … %v; other %v … %v", constant[0], constant[99], other[0], other[99])
	}

	// The same seed gives the same resamples whether the blocks run on one worker or several.
	big := make([]float64, 3000)
	for i := range big {
		big[i] = float64(i % 17)
	}
	prev := runtime.GOMAXPROCS(1)
	one, _ := pairedBootstrap(big, big, 1000, 5)
	runtime.GOMAXPROCS(4)
	four, _ := pairedBootstrap(big, big, 1000, 5)
	runtime.GOMAXPROCS(prev)
	for i := range one {
		if one[i] != four[i] {
			t.Fatalf("resample %d differs with the number of workers", i)
		}
	}
}

func TestRNGIntNInRange(t *testing.T) {
	r := newRNG(5)
	counts := make([]int, 7)
	for i := 0; i < 70000; i++ {
		k := r.intN(7)
		if k < 0 || k >= 7 {
			t.Fatalf("intN(7) = %d", k)
		}
		counts[k]++
	}
	for k, c := range counts {
		if c < 9500 || c > 10500 {
			t.Errorf("value %d drawn %d times of 70000", k, c)
		}
	}
}
