// This file converts the Go values callers pass (kwargs, Message.Extra) into
// the engine's values, refusing types it cannot represent instead of letting
// them turn silently into undefined.
package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"

	"github.com/ardanlabs/jinja"
)

// toValue converts v. Besides plain scalars, slices and string-keyed maps it
// accepts a jinja.Value as is, and json.RawMessage decoded with its object
// keys in source order: Go maps have no order, so map keys are sorted, but
// tool schemas pass through |tojson and must keep the order the client sent
// to match what Python (whose dicts keep insertion order) renders.
func toValue(v any) (jinja.Value, error) {
	switch x := v.(type) {
	case nil:
		return jinja.None(), nil
	case jinja.Value:
		return x, nil
	case bool:
		return jinja.NewBool(x), nil
	case string:
		return jinja.NewString(x), nil
	case int:
		return jinja.NewInt(int64(x)), nil
	case int8:
		return jinja.NewInt(int64(x)), nil
	case int16:
		return jinja.NewInt(int64(x)), nil
	case int32:
		return jinja.NewInt(int64(x)), nil
	case int64:
		return jinja.NewInt(x), nil
	case uint8:
		return jinja.NewInt(int64(x)), nil
	case uint16:
		return jinja.NewInt(int64(x)), nil
	case uint32:
		return jinja.NewInt(int64(x)), nil
	case float32:
		return jinja.NewFloat(float64(x)), nil
	case float64:
		return jinja.NewFloat(x), nil
	case json.Number:
		return jinja.FromGoValue(x), nil
	case json.RawMessage:
		return decodeJSON(x)
	}

	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		items := make([]jinja.Value, rv.Len())
		for i := range rv.Len() {
			item, err := toValue(rv.Index(i).Interface())
			if err != nil {
				return jinja.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			items[i] = item
		}
		return jinja.NewList(items), nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return jinja.Value{}, fmt.Errorf("map key type %s is not a string", rv.Type().Key())
		}
		keys := make([]string, 0, rv.Len())
		for _, k := range rv.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		d := jinja.NewDict()
		for _, k := range keys {
			item, err := toValue(rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())).Interface())
			if err != nil {
				return jinja.Value{}, fmt.Errorf("[%q]: %w", k, err)
			}
			d.AsDict().Set(k, item)
		}
		return d, nil
	case reflect.Pointer:
		if rv.IsNil() {
			return jinja.None(), nil
		}
		return toValue(rv.Elem().Interface())
	}
	return jinja.Value{}, fmt.Errorf("unsupported type %T", v)
}

// sortedKeys returns m's keys in a fixed order so renders are reproducible.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeJSON decodes one JSON document, keeping object keys in source order
// and integers as integers (so |tojson prints 3, not 3.0).
func decodeJSON(raw []byte) (jinja.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeJSONValue(dec)
	if err != nil {
		return jinja.Value{}, fmt.Errorf("json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return jinja.Value{}, errors.New("json: trailing data after the value")
	}
	return v, nil
}

func decodeJSONValue(dec *json.Decoder) (jinja.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return jinja.Value{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			var items []jinja.Value
			for dec.More() {
				item, err := decodeJSONValue(dec)
				if err != nil {
					return jinja.Value{}, err
				}
				items = append(items, item)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Value{}, err
			}
			if items == nil {
				items = []jinja.Value{}
			}
			return jinja.NewList(items), nil
		case '{':
			d := jinja.NewDict()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jinja.Value{}, err
				}
				key, ok := kt.(string)
				if !ok {
					return jinja.Value{}, fmt.Errorf("object key %v is not a string", kt)
				}
				item, err := decodeJSONValue(dec)
				if err != nil {
					return jinja.Value{}, err
				}
				d.AsDict().Set(key, item)
			}
			if _, err := dec.Token(); err != nil {
				return jinja.Value{}, err
			}
			return d, nil
		}
		return jinja.Value{}, fmt.Errorf("unexpected delimiter %v", t)
	case json.Number:
		return jinja.FromGoValue(t), nil
	default:
		// string, bool or nil.
		return toValue(t)
	}
}
