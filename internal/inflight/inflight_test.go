package inflight

import (
	"sync"
	"testing"
)

func TestGaugePeak(t *testing.T) {
	var g Gauge
	first := g.Enter()
	second := g.Enter()
	second()
	third := g.Enter()
	if g.Peak() != 2 {
		t.Errorf("peak %d after two at once, want 2", g.Peak())
	}
	third()
	first()
	all := make(chan struct{})
	var entered, done sync.WaitGroup
	for range 5 {
		entered.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			leave := g.Enter()
			entered.Done()
			<-all
			leave()
		}()
	}
	entered.Wait()
	close(all)
	done.Wait()
	if g.Peak() != 5 {
		t.Errorf("peak %d after five at once, want 5", g.Peak())
	}
}
