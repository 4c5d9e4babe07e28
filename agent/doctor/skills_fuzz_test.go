package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// FuzzReadSkills: doctor reads the frontmatter of every SKILL.md it is pointed at; whatever the
// file holds, it is a skill with a name or an error naming the file, never a panic.
func FuzzReadSkills(f *testing.F) {
	if data, err := os.ReadFile("testdata/skills/sg-greeter/SKILL.md"); err == nil {
		f.Add(data)
	}
	for _, s := range []string{"", "---\n", "---\n---", "---\nname: [x\n---\n", "\ufeff---\nname: a\n---\n", "---\r\nname: b\r\n---\r\n",
		"---\nname: 3\ndescription: {a: b}\n---\n", "---\n&a [*a]\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, "one/SKILL.md", "many/s/SKILL.md")
		for _, d := range []string{"one", "many"} {
			skills, err := ReadSkills([]string{filepath.Join(dir, d)})
			if err != nil {
				if !strings.Contains(err.Error(), "SKILL.md") {
					t.Fatalf("error without the file: %v", err)
				}
				continue
			}
			if len(skills) != 1 {
				t.Fatalf("%d skills", len(skills))
			}
			if s := skills[0]; s.Name == "" || s.Description != strings.TrimSpace(s.Description) {
				t.Fatalf("skill %+v", s)
			}
		}
	})
}
