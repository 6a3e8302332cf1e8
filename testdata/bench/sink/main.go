// Command sink is the server resume.sh sends lunar's requests to,
// llmtest.Sink: it reads each request body whole and answers "ok" in the
// stream format of the API called, decoding nothing, so that the figures
// are lunar's own (llmtest-server decodes every request, seconds on a 130
// MB body). It
// listens on 127.0.0.1 on a free port and prints its base URL (".../v1")
// as the first line of stdout.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/lunar-cli/lunar/agent/llmtest"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "sink:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	err = http.Serve(ln, llmtest.Sink())
	fmt.Fprintln(os.Stderr, "sink:", err)
	os.Exit(1)
}
