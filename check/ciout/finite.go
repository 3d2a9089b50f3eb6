package ciout

import (
	"math"
	"reflect"
)

// finite removes every NaN and infinity from what v points to before it is
// encoded: JSON has neither, and encoding/json aborts the whole document
// on one ("json: unsupported value: +Inf"), losing the report and the
// verdict with it. A *float64 becomes nil (n/a), a float64 0, a map entry
// goes. Outputs call it on what they encode; nothing of a check should
// produce such a number in the first place.
func finite(v any) {
	scrub(reflect.ValueOf(v), 0)
}

func scrub(v reflect.Value, depth int) {
	if depth > 32 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.Float64 || e.Kind() == reflect.Float32 {
			if bad(e.Float()) && v.CanSet() {
				v.SetZero()
			} else if bad(e.Float()) && e.CanSet() {
				e.SetFloat(0)
			}
			return
		}
		scrub(v.Elem(), depth+1)
	case reflect.Interface:
		if !v.IsNil() && v.Elem().Kind() == reflect.Pointer {
			scrub(v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scrub(v.Field(i), depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			scrub(v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			switch e.Kind() {
			case reflect.Float64, reflect.Float32:
				if bad(e.Float()) {
					v.SetMapIndex(k, reflect.Value{})
				}
			case reflect.Map, reflect.Pointer, reflect.Slice, reflect.Interface:
				scrub(e, depth+1)
			case reflect.Struct:
				c := reflect.New(e.Type()).Elem()
				c.Set(e)
				scrub(c, depth+1)
				v.SetMapIndex(k, c)
			}
		}
	case reflect.Float64, reflect.Float32:
		if bad(v.Float()) && v.CanSet() {
			v.SetFloat(0)
		}
	}
}

func bad(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
