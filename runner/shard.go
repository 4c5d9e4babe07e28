package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// Shard is one part of a run split over several jobs (`--shard i/n`): Index of Count, 1-based.
type Shard struct {
	Index, Count int
}

// MaxShards bounds n in i/n (GitHub Actions runs at most 256 jobs of one matrix).
const MaxShards = 256

// ParseShard reads "i/n" with 1 ≤ i ≤ n ≤ MaxShards.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q is not i/n (write e.g. 2/4: the second of four shards)", s)
	case n < 1 || n > MaxShards:
		return Shard{}, fmt.Errorf("%q: the shard count must be from 1 to %d", s, MaxShards)
	case i < 1 || i > n:
		return Shard{}, fmt.Errorf("%q: the shard index must be from 1 to %d", s, n)
	}
	return Shard{Index: i, Count: n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Assignment methods (results.ShardInfo.Method).
const (
	ShardByHash      = "hash"
	ShardByDurations = "durations"
)

// Assignment says which shard runs each task of a suite.
type Assignment struct {
	Owner  map[string]int // task id → 1-based shard index
	Method string
	// Plan identifies the durations used ("" for hash): every shard must compute the same one.
	Plan string
}

// AssignTasks splits a suite's tasks between count shards. Without durations each task goes to
// the shard picked by a stable hash of the suite name and the task id, so every job computes the
// same split on its own and a task keeps its shard while others come and go. With durations
// (task id → milliseconds, from a baseline's results) it is the longest-first greedy split: tasks
// from the longest down, each to the least-loaded shard (the lowest index on a tie); tasks the
// baseline does not know count as the mean of the known ones. Either way every task is in
// exactly one shard.
func AssignTasks(suite string, ids []string, count int, durations map[string]int64) Assignment {
	a := Assignment{Owner: make(map[string]int, len(ids)), Method: ShardByHash}
	if count < 1 {
		count = 1
	}
	var known int64
	n := 0
	for _, id := range ids {
		if d := durations[id]; d > 0 {
			known += d
			n++
		}
	}
	if n == 0 {
		for _, id := range ids {
			a.Owner[id] = hashShard(suite, id, count)
		}
		return a
	}
	mean := known / int64(n)
	type item struct {
		id string
		ms int64
		h  uint64
	}
	items := make([]item, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		ms := durations[id]
		if ms <= 0 {
			ms = mean
		}
		items = append(items, item{id, ms, hash64(suite, id)})
	}
	sort.Slice(items, func(i, j int) bool {
		if items[i].ms != items[j].ms {
			return items[i].ms > items[j].ms
		}
		if items[i].h != items[j].h {
			return items[i].h < items[j].h
		}
		return items[i].id < items[j].id
	})
	load := make([]int64, count)
	h := sha256.New()
	for _, it := range items {
		best := 0
		for s := 1; s < count; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += it.ms
		a.Owner[it.id] = best + 1
		fmt.Fprintf(h, "%s=%d\n", it.id, it.ms)
	}
	a.Method = ShardByDurations
	a.Plan = "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
	return a
}

// TriggerShard is the shard that runs a trigger prompt: always by hash (prompts are short and
// alike).
func TriggerShard(suite, promptID string, count int) int {
	return hashShard(suite, "trigger\x00"+promptID, count)
}

func hashShard(suite, id string, count int) int {
	return int(hash64(suite, id)%uint64(count)) + 1
}

func hash64(suite, id string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, suite)
	h.Write([]byte{0})
	io.WriteString(h, id)
	return h.Sum64()
}

// TaskDurations reads the per-run duration of every task that ran in a results file, for
// AssignTasks: the mean over its trials.
func TaskDurations(res *results.SuiteResult) map[string]int64 {
	if res == nil {
		return nil
	}
	out := map[string]int64{}
	// A baseline read in passes (results.OpenFile) gives its tasks one by one; one that can no
	// longer be read leaves the durations read so far (a shard split by hash for the others).
	res.EachTask(func(t *results.TaskResult) error {
		if t.Stats != nil && t.Stats.AvgDurationMS > 0 {
			out[t.ID] = t.Stats.AvgDurationMS
			return nil
		}
		var sum int64
		for _, r := range t.Runs {
			sum += r.DurationMS
		}
		if len(t.Runs) > 0 && sum > 0 {
			out[t.ID] = sum / int64(len(t.Runs))
		}
		return nil
	})
	return out
}
