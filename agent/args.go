package agent

// This file decodes the arguments of a tool call once, strictly, into the
// one text every later reader is given. The permission policy reads them
// as a Lua table (exact key names, last duplicate wins) and a built-in
// tool as a Go struct (encoding/json: key names matched without regard to
// case, last match wins); raw model output such as
// {"command":"git status","Command":"touch pwned"} reads as two different
// calls to them. Refusing duplicate and case-variant keys and handing on
// a canonical re-encoding leaves one reading.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// parseArgs parses args, which must be one JSON object and nothing after
// it, in which no object has a key twice, nor two keys that differ only
// by case. It returns the value as jsonschema.Decode would (numbers as
// json.Number) and its canonical text: compact, keys in the order given,
// strings re-encoded from their decoded value (invalid UTF-8 and lone
// surrogates become U+FFFD, as encoding/json reads them), numbers as
// written.
func parseArgs(args []byte) (any, []byte, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	p := argParser{dec: dec, out: make([]byte, 0, len(args))}
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, syntaxError(err)
	}
	if tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("expected object, got %s", tokenType(tok))
	}
	v, err := p.value(tok)
	if err != nil {
		return nil, nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, syntaxError(errors.New("invalid character after top-level value"))
	}
	return v, p.out, nil
}

func syntaxError(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("not valid JSON (%v); arguments must be a JSON object", err)
}

// argParser walks the tokens of one document, writing the canonical text.
type argParser struct {
	dec *json.Decoder
	out []byte
}

func (p *argParser) next() (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	return tok, nil
}

func (p *argParser) value(tok json.Token) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return p.array()
		}
		return p.object()
	case string:
		p.out = appendString(p.out, t)
		return t, nil
	case json.Number:
		p.out = append(p.out, t...)
		return t, nil
	case bool:
		if t {
			p.out = append(p.out, "true"...)
		} else {
			p.out = append(p.out, "false"...)
		}
		return t, nil
	case nil:
		p.out = append(p.out, "null"...)
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func (p *argParser) object() (any, error) {
	obj := map[string]any{}
	var folded map[string]string // folded key → key as given; made on the first key
	p.out = append(p.out, '{')
	for p.dec.More() {
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string) // the decoder accepts only strings as keys
		if _, dup := obj[k]; dup {
			return nil, fmt.Errorf("key %q appears twice in one object", k)
		}
		if folded == nil {
			folded = map[string]string{}
		}
		fk := foldKey(k)
		if other, dup := folded[fk]; dup {
			return nil, fmt.Errorf("keys %q and %q differ only by case (names are case-sensitive)", other, k)
		}
		folded[fk] = k
		if len(obj) > 0 {
			p.out = append(p.out, ',')
		}
		p.out = appendString(p.out, k)
		p.out = append(p.out, ':')
		if tok, err = p.next(); err != nil {
			return nil, err
		}
		if obj[k], err = p.value(tok); err != nil {
			return nil, err
		}
	}
	if _, err := p.next(); err != nil { // }
		return nil, err
	}
	p.out = append(p.out, '}')
	return obj, nil
}

func (p *argParser) array() (any, error) {
	arr := []any{}
	p.out = append(p.out, '[')
	for p.dec.More() {
		if len(arr) > 0 {
			p.out = append(p.out, ',')
		}
		tok, err := p.next()
		if err != nil {
			return nil, err
		}
		v, err := p.value(tok)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	if _, err := p.next(); err != nil { // ]
		return nil, err
	}
	p.out = append(p.out, ']')
	return arr, nil
}

// tokenType is the JSON type of the value tok starts.
func tokenType(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "array" // '{' is never asked
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// foldKey maps keys that strings.EqualFold (and so encoding/json) takes
// for one name to one string.
func foldKey(k string) string {
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			return strings.ToLower(strings.ToUpper(k))
		}
	}
	return strings.ToLower(k)
}

// appendString appends s, valid UTF-8, as a JSON string: quotes,
// backslashes and control characters escaped, nothing else (no HTML
// escaping, which would only make the text longer).
func appendString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
