// Command hello is the floor lunar's startup is compared with: a Go
// hello-world built the same way as lunar (see startup.sh).
package main

import "fmt"

func main() { fmt.Println("hello") }
