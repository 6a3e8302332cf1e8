// Command rawpost is the floor of a one-shot round trip: a minimal Go
// client that sends the request lunar sent (taken from an llmtest-server
// --record file) and reads the streamed answer, printing its text.
//
//	rawpost URL RECORD.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rawpost BASE_URL RECORD.jsonl")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "rawpost:", err)
		os.Exit(1)
	}
}

func run(baseURL, record string) error {
	data, err := os.ReadFile(record)
	if err != nil {
		return err
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	var rec struct {
		Path   string              `json:"path"`
		Header map[string][]string `json:"header"`
		Body   json.RawMessage     `json:"body"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return fmt.Errorf("%s: %w", record, err)
	}
	url := strings.TrimSuffix(baseURL, "/v1") + rec.Path
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(rec.Body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-bench")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", res.Status)
	}
	var out strings.Builder
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		payload, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || payload == "[DONE]" {
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(payload), &chunk); err != nil {
			return err
		}
		for _, c := range chunk.Choices {
			out.WriteString(c.Delta.Content)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	fmt.Println(out.String())
	return nil
}
