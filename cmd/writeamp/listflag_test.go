package main

import (
	"reflect"
	"testing"
)

func TestSplitList(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		`a"b`:               {`a"b`},
		`"My,Schema"`:       {`"My,Schema"`},
		`"a""b", c`:         {`"a""b"`, "c"},
		`"S"."T,x",u`:       {`"S"."T,x"`, "u"},
		`app.jobs,  "Jobs"`: {"app.jobs", `"Jobs"`},
	} {
		got, err := splitList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitList(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{`"open`, `a,,b`, `a,`} {
		if _, err := splitList(bad); err == nil {
			t.Errorf("splitList(%s): want an error", bad)
		}
	}
	if unquoteItem(`"a ""q"" b"`) != `a "q" b` {
		t.Error(unquoteItem(`"a ""q"" b"`))
	}
}
