package llmtest

import (
	"encoding/json"
	"fmt"
)

// UserTexts are the texts of the request's user messages, in order, in
// either API's body: a message's content is a string or a list of parts,
// whose texts are joined (images and tool results have none).
func (r Request) UserTexts() ([]string, error) {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	var out []string
	for _, m := range body.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return nil, fmt.Errorf("user message content: %w", err)
			}
			for _, p := range parts {
				s += p.Text
			}
		}
		out = append(out, s)
	}
	return out, nil
}
