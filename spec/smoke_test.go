package spec

import (
	"fmt"
	"testing"
)

func TestSmoke(t *testing.T) {
	s, ds := Load("testdata/full/eval.yaml", Options{})
	for _, d := range ds {
		fmt.Println(d.Error())
	}
	for _, tk := range s.Tasks {
		fmt.Printf("%s %q %q\n", tk.ID, tk.Name, tk.Prompt)
		for _, g := range tk.Graders {
			fmt.Printf("   %s %s %v %s %s\n", g.Name, g.Type, g.Weight, g.Pos, g.Implicit)
		}
	}
	fmt.Println(s.Files)
}
