// Package hooksd embeds lunar's bundled hooks: the *.lua files of this
// folder (loaded first, by file name) and the modules in lib/ that they
// require. They are ordinary hooks built on the public API of package lua.
package hooksd

import "embed"

// Guards are the bundled hooks that are guards (lua.Source.Guard): when
// one cannot answer a tool.execute.before, the call is refused. The other
// bundled hooks are features, which fail open.
var Guards = []string{"permissions.lua"}

// FS holds the bundled hooks at its root and their modules under lib/.
//
//go:embed *.lua lib
var FS embed.FS
