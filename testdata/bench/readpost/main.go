// Command readpost is the floor of resuming a session (resume.sh): it
// reads the session file whole and sends it as the body of one request to
// the sink, then reads the streamed answer and prints its length. Lunar
// does no less: it reads the file and sends a body about as large.
//
//	readpost BASE_URL FILE
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: readpost BASE_URL FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "readpost:", err)
		os.Exit(1)
	}
}

func run(baseURL, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	resp, err := http.Post(baseURL+"/chat/completions", "application/json", bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, answer)
	}
	fmt.Println(len(answer))
	return nil
}
