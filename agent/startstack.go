package agent

// Every lunar program imports agent, so agent carries this process-wide
// start-up measure: agent/internal/startstack imports nothing, so Go
// initialises it before the dependencies that compile regular
// expressions at init (goldmark, yaml), and their deep recursion then
// finds the main goroutine's stack already grown (see that package).
import _ "github.com/lunar-cli/lunar/agent/internal/startstack"
