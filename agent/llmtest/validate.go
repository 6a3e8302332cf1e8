package llmtest

// This file checks request bodies with the official SDKs' own request
// types, so that a body a client writes by hand that the API would reject
// fails the test that sent it: the server answers 400 invalid_request_error
// naming the first field at fault.
//
// The SDKs can decode their request types (openai-go's
// ChatCompletionNewParams, anthropic-sdk-go's MessageNewParams) but do so
// leniently: an unknown field or a value of the wrong type is dropped, not
// refused. So a body is decoded into the SDK's type, encoded again by the
// SDK, and both are compared as JSON values: whatever the SDK did not keep
// is what the API does not know.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// Extensions are fields some OpenAI-compatible services take that OpenAI's
// own types do not have, accepted by the server wherever they appear in a
// chat completions body: reasoning sent back (DeepSeek, llama.cpp,
// OpenRouter), DeepSeek's thinking switch, OpenRouter's reasoning object,
// Mistral's tool name in results.
var openAIExtensions = map[string]bool{
	"messages.*.reasoning_content": true,
	"messages.*.reasoning":         true,
	"messages.*.reasoning_text":    true,
	"messages.*.reasoning_details": true,
	"messages.*.name":              true,
	"thinking":                     true,
	"reasoning":                    true,
}

// checkBody reports why body is not a valid request of api (nil when it
// is). extra lists more top-level fields to accept (Server.AllowFields).
func checkBody(api string, body []byte, extra map[string]bool) error {
	var orig any
	if err := json.Unmarshal(body, &orig); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	top, ok := orig.(map[string]any)
	if !ok {
		return fmt.Errorf("not a JSON object")
	}
	if s, ok := top["stream"]; ok && s != true && s != false {
		return fmt.Errorf("stream: %s is not valid here", brief(s))
	}
	delete(top, "stream") // not a field of the SDKs' params: their streaming calls add it
	var again []byte
	var err error
	switch api {
	case APIOpenAI:
		var p openai.ChatCompletionNewParams
		if err = json.Unmarshal(body, &p); err == nil {
			again, err = json.Marshal(p)
		}
	case APIAnthropic:
		var p anthropic.MessageNewParams
		if err = json.Unmarshal(body, &p); err == nil {
			again, err = json.Marshal(p)
		}
		anthropicStrings(top)
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("the SDK's request type refuses it: %v", err)
	}
	// The SDKs' unions keep a member of an unknown kind as it came, and
	// take any JSON as a tool call's input: check those by hand.
	if err := checkKinds(api, top); err != nil {
		return err
	}
	var kept any
	if err := json.Unmarshal(again, &kept); err != nil {
		return fmt.Errorf("the SDK's request type: %v", err)
	}
	allowed := func(path string) bool {
		if extra[path] {
			return true
		}
		return api == APIOpenAI && openAIExtensions[wildcard(path)]
	}
	return compareJSON("", dropNulls(top), dropNulls(kept), allowed)
}

// The kinds (role, type) the APIs know where the SDKs' types do not
// check them.
var (
	openAIRoles      = set("developer", "system", "user", "assistant", "tool", "function")
	openAIPartTypes  = set("text", "image_url", "input_audio", "file", "refusal")
	openAICallTypes  = set("function", "custom")
	anthropicRoles   = set("user", "assistant")
	anthropicBlocks  = set("text", "image", "document", "search_result", "thinking", "redacted_thinking", "tool_use", "tool_result", "server_tool_use", "web_search_tool_result")
	anthropicResults = set("text", "image", "document", "search_result")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// checkKinds checks every message's role, every content part's type and
// (Anthropic) that tool inputs are objects.
func checkKinds(api string, top map[string]any) error {
	msgs, _ := top["messages"].([]any)
	kind := func(path string, v any, key string, known map[string]bool) error {
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: an object expected, got %s", path, brief(v))
		}
		if k, _ := o[key].(string); !known[k] {
			return fmt.Errorf("%s.%s: %s is not one the API knows", path, key, brief(o[key]))
		}
		return nil
	}
	for i, m := range msgs {
		path := "messages." + strconv.Itoa(i)
		roles, parts := openAIRoles, openAIPartTypes
		if api == APIAnthropic {
			roles, parts = anthropicRoles, anthropicBlocks
		}
		if err := kind(path, m, "role", roles); err != nil {
			return err
		}
		mm := m.(map[string]any)
		blocks, _ := mm["content"].([]any)
		for j, b := range blocks {
			bp := path + ".content." + strconv.Itoa(j)
			if err := kind(bp, b, "type", parts); err != nil {
				return err
			}
			bm := b.(map[string]any)
			if bm["type"] == "tool_use" {
				if _, ok := bm["input"].(map[string]any); !ok {
					return fmt.Errorf("%s.input: an object expected, got %s", bp, brief(bm["input"]))
				}
			}
			inner, _ := bm["content"].([]any)
			for k, c := range inner {
				if err := kind(bp+".content."+strconv.Itoa(k), c, "type", anthropicResults); err != nil {
					return err
				}
			}
		}
		calls, _ := mm["tool_calls"].([]any)
		for j, c := range calls {
			if err := kind(path+".tool_calls."+strconv.Itoa(j), c, "type", openAICallTypes); err != nil {
				return err
			}
		}
	}
	return nil
}

// anthropicStrings writes the string shorthands the Messages API accepts
// (a message's or a tool result's content, the system prompt) as the block
// arrays the SDK's types hold.
func anthropicStrings(top map[string]any) {
	text := func(v any) any {
		if s, ok := v.(string); ok {
			return []any{map[string]any{"type": "text", "text": s}}
		}
		return v
	}
	top["system"] = text(top["system"])
	if top["system"] == nil {
		delete(top, "system")
	}
	msgs, _ := top["messages"].([]any)
	for _, m := range msgs {
		mm, ok := m.(map[string]any)
		if !ok {
			continue
		}
		mm["content"] = text(mm["content"])
		blocks, _ := mm["content"].([]any)
		for _, b := range blocks {
			if bm, ok := b.(map[string]any); ok && bm["type"] == "tool_result" {
				if _, ok := bm["content"].(string); ok {
					bm["content"] = text(bm["content"])
				}
			}
		}
	}
}

// dropNulls removes object members that are null (the SDKs write an
// absent optional and a null the same way: not at all).
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = dropNulls(e)
			}
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

// wildcard replaces the array indexes of a path with "*".
func wildcard(path string) string {
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, ".")
}

// compareJSON reports the first difference between what was sent and what
// the SDK kept, by path.
func compareJSON(path string, sent, kept any, allowed func(string) bool) error {
	at := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch s := sent.(type) {
	case map[string]any:
		k, ok := kept.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: an object is not valid here", orRoot(path))
		}
		names := make([]string, 0, len(s))
		for n := range s {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			kv, ok := k[n]
			if !ok {
				if allowed(at(n)) {
					continue
				}
				return fmt.Errorf("%s: unknown field, or a value of the wrong type (%s)", at(n), brief(s[n]))
			}
			if err := compareJSON(at(n), s[n], kv, allowed); err != nil {
				return err
			}
		}
		return nil
	case []any:
		k, ok := kept.([]any)
		if !ok || len(k) != len(s) {
			return fmt.Errorf("%s: an array of this shape is not valid here", orRoot(path))
		}
		for i := range s {
			if err := compareJSON(at(strconv.Itoa(i)), s[i], k[i], allowed); err != nil {
				return err
			}
		}
		return nil
	}
	if !reflect.DeepEqual(sent, kept) {
		return fmt.Errorf("%s: %s is not valid here", orRoot(path), brief(sent))
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "the body"
	}
	return path
}

// brief is a value cut short for an error message.
func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
