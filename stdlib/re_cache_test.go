package stdlib

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	glua "github.com/yuin/gopher-lua"
)

func TestRECacheIsBounded(t *testing.T) {
	L := glua.NewState()
	defer L.Close()
	for i := range 2 * reCacheSize {
		L.Push(glua.LString(fmt.Sprintf("x%d$", i)))
		compileRE(L, L.GetTop())
		L.Pop(1)
	}
	reCache.Lock()
	defer reCache.Unlock()
	assert.Equal(t, reCacheSize, reCache.order.Len())
	assert.Len(t, reCache.byPat, reCacheSize)
	_, newest := reCache.byPat[fmt.Sprintf("x%d$", 2*reCacheSize-1)]
	_, oldest := reCache.byPat["x0$"]
	assert.True(t, newest)
	assert.False(t, oldest, "the least recently used went first")
}
