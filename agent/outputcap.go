package agent

import (
	"fmt"
	"io"

	"github.com/skillgate/skillgate/internal/envmib"
)

// MaxOutputBytes bounds what skillgate reads of one agent run's standard output (default 64
// MiB; environment variable SKILLGATE_MAX_AGENT_OUTPUT_MIB, whole MiB). Past it the agent's
// process group is killed and the run errors with "output over the limit": its parsed
// transcript would otherwise cost several times what the agent printed.
var MaxOutputBytes = envmib.Bytes(MaxOutputEnv, 64<<20)

// MaxOutputEnv names the environment variable that sets MaxOutputBytes.
const MaxOutputEnv = "SKILLGATE_MAX_AGENT_OUTPUT_MIB"

// cappedOutput reads an agent's stdout up to MaxOutputBytes; one byte more calls over (which
// kills the agent) and fails the read.
type cappedOutput struct {
	r    io.Reader
	left int64
	over func()
	err  error
}

func capOutput(r io.Reader, over func()) *cappedOutput {
	return &cappedOutput{r: r, left: MaxOutputBytes, over: over}
}

func (c *cappedOutput) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.err = fmt.Errorf("the agent's output is over the limit of %d MiB (set %s to raise it)", MaxOutputBytes>>20, MaxOutputEnv)
		c.over()
		return int(c.left), c.err
	}
	c.left -= int64(n)
	return n, err
}
