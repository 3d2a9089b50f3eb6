package capacity

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/writeamp/writeamp/result"
)

// A variant's leaf-insert figure is keyed in the JSON by the catalogue's name
// of the metric (result.LeafInserts), not by a second spelling of it in a
// struct tag: a renamed metric renames the key. It sits where the tag put
// it, before rows_changed, so the document reads as before.
const leafBefore = "rows_changed"

// plainVariant is VariantPlan without its JSON methods.
type plainVariant VariantPlan

func (v VariantPlan) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainVariant(v))
	if err != nil {
		return nil, err
	}
	leaf, err := json.Marshal(v.LeafInserts)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	emit := func(k string, raw []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(raw)
	}
	placed := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if k == leafBefore {
			emit(result.LeafInserts.Name, leaf)
			placed = true
		}
		emit(k, raw)
	}
	if !placed {
		return nil, fmt.Errorf("capacity: no %s key to place %s before", leafBefore, result.LeafInserts.Name)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

func (v *VariantPlan) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*plainVariant)(v)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return err
	}
	if raw, ok := keys[result.LeafInserts.Name]; ok {
		return json.Unmarshal(raw, &v.LeafInserts)
	}
	return nil
}
