package report

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
)

// This file holds the statistics behind Compare: a seeded paired bootstrap, exact tests on
// pass/fail counts and the multiple-testing correction. docs/statistics.md explains them.

// rng is a PCG generator with a bounded-integer draw of our own, so a seed gives the same
// resamples on every platform and Go version (math/rand/v2 does not promise that IntN's
// algorithm never changes; PCG's Uint64 stream is fixed by its specification).
type rng struct{ pcg *rand.PCG }

func newRNG(seed uint64) *rng { return &rng{pcg: rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)} }

// intN returns a value in [0, n) by Lemire's multiply-shift; the bias is below n/2^64.
func (r *rng) intN(n int) int {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(n))
	return int(hi)
}

// seedHasher derives a bootstrap seed from the data being compared, so the same files always
// give the same verdict and different files do not share one random stream.
type seedHasher struct{ h hash64 }

type hash64 interface {
	Write([]byte) (int, error)
	Sum64() uint64
}

func newSeedHasher() *seedHasher { return &seedHasher{h: fnv.New64a()} }

func (s *seedHasher) str(v string) {
	s.h.Write([]byte(v))
	s.h.Write([]byte{0})
}

func (s *seedHasher) num(v float64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
	s.h.Write(b[:])
}

func (s *seedHasher) sum() uint64 { return s.h.Sum64() }

// pairedBootstrap resamples the shared tasks with replacement and returns, for each of the two
// series of per-task deltas (score, pass rate), the sorted means of the resamples. Both series
// share the same resamples, so they stay paired. The resamples are split into fixed blocks,
// each with its own generator derived from the seed, and the blocks run in parallel: the result
// depends on the seed only, never on the number of CPUs.
func pairedBootstrap(a, b []float64, resamples int, seed uint64) (meansA, meansB []float64) {
	n := len(a)
	if n == 0 || resamples <= 0 || len(b) != n {
		return nil, nil
	}
	pairs := make([][2]float64, n)
	for i := range pairs {
		pairs[i] = [2]float64{a[i], b[i]}
	}
	meansA, meansB = make([]float64, resamples), make([]float64, resamples)
	const blockSize = 500
	blocks := (resamples + blockSize - 1) / blockSize
	workers := min(runtime.GOMAXPROCS(0), blocks)
	if n*resamples < 1<<20 {
		workers = 1 // not worth a goroutine
	}
	next := make(chan int, blocks)
	for blk := 0; blk < blocks; blk++ {
		next <- blk
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for blk := range next {
				r := newRNG(seed + uint64(blk)*0x9e3779b97f4a7c15)
				lo, hi := blk*blockSize, min((blk+1)*blockSize, resamples)
				for j := lo; j < hi; j++ {
					var sa, sb float64
					if n < 1<<31 {
						// Two 32-bit draws per generator output: half the generator cost.
						un := uint64(n)
						k := 0
						for ; k+1 < n; k += 2 {
							u := r.pcg.Uint64()
							p := &pairs[((u&0xffffffff)*un)>>32]
							q := &pairs[((u>>32)*un)>>32]
							sa += p[0] + q[0]
							sb += p[1] + q[1]
						}
						if k < n {
							p := &pairs[r.intN(n)]
							sa += p[0]
							sb += p[1]
						}
					} else {
						for range n {
							p := &pairs[r.intN(n)]
							sa += p[0]
							sb += p[1]
						}
					}
					meansA[j], meansB[j] = sa/float64(n), sb/float64(n)
				}
			}
		}()
	}
	wg.Wait()
	sort.Float64s(meansA)
	sort.Float64s(meansB)
	return meansA, meansB
}

// quantileSorted returns the q-quantile of sorted values by linear interpolation.
func quantileSorted(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[len(sorted)-1]
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := lo + 1
	if hi >= len(sorted) {
		return sorted[lo]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}

// expandedTail is the tail probability of Hesterberg's expanded percentile interval: the plain
// bootstrap percentile interval is too narrow for small samples (it behaves like a z interval
// with a variance divided by n instead of n−1), so the percentiles are moved out to those of a
// Student t interval: α'/2 = Φ(−√(n/(n−1)) · t_{1−α/2, n−1}).
func expandedTail(n int, confidence float64) float64 {
	alpha := 1 - confidence
	if n < 2 {
		return 0
	}
	t := studentTQuantile(1-alpha/2, float64(n-1))
	return normalCDF(-math.Sqrt(float64(n)/float64(n-1)) * t)
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func normalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// studentTCDF is the CDF of Student's t distribution with df degrees of freedom.
func studentTCDF(t, df float64) float64 {
	x := df / (df + t*t)
	tail := 0.5 * regIncBeta(x, df/2, 0.5)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// studentTQuantile inverts studentTCDF by bisection (p in (0, 1)).
func studentTQuantile(p, df float64) float64 {
	lo, hi := -1.0, 1.0
	for studentTCDF(lo, df) > p {
		lo *= 2
	}
	for studentTCDF(hi, df) < p {
		hi *= 2
	}
	for i := 0; i < 200 && hi-lo > 1e-12; i++ {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b) (continued fraction,
// Numerical Recipes §6.4).
func regIncBeta(x, a, b float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

func betaCF(x, a, b float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step applies one term aa of the continued fraction (modified Lentz) and returns the
	// factor it multiplies h by.
	step := func(aa float64) float64 {
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// fisher is Fisher's exact test on one task's trials: base passed a of nb trials, head passed c
// of nh. Conditional on the margins, the base passes follow a hypergeometric distribution.
type fisher struct {
	drop, gain       float64 // one-sided p-values: head passes less / more often than base
	minDrop, minGain float64 // the smallest p-value these margins could produce in each direction
}

func fisherExact(a, nb, c, nh int) fisher {
	n, k := nb+nh, a+c
	lo := max(0, k-nh)
	hi := min(k, nb)
	logTotal := logChoose(n, nb)
	pmf := func(x int) float64 {
		return math.Exp(logChoose(k, x) + logChoose(n-k, nb-x) - logTotal)
	}
	var f fisher
	for x := lo; x <= hi; x++ {
		p := pmf(x)
		if x >= a {
			f.drop += p
		}
		if x <= a {
			f.gain += p
		}
	}
	f.drop, f.gain = math.Min(1, f.drop), math.Min(1, f.gain)
	f.minDrop, f.minGain = pmf(hi), pmf(lo)
	return f
}

// binomialUpperTail is P(X ≥ k) for X ~ Binomial(n, 1/2).
func binomialUpperTail(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	var p float64
	for x := k; x <= n; x++ {
		p += math.Exp(logChoose(n, x) - float64(n)*math.Ln2)
	}
	return math.Min(1, p)
}

// signTest is the exact two-sided sign test of down versus up changes (ties already dropped).
// With one trial per side it is McNemar's exact test on task flips.
func signTest(down, up int) float64 {
	n := down + up
	if n == 0 {
		return 1
	}
	return math.Min(1, 2*binomialUpperTail(n, max(down, up)))
}
