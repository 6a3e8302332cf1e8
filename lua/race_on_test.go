//go:build race

package lua_test

// raceEnabled reports whether the tests run under the race detector,
// whose shadow memory cannot live under an address-space limit.
const raceEnabled = true
