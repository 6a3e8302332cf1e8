package hooksd_test

// The differential test of prompt templates: pi 0.73.1's own
// expandPromptTemplate and parseFrontmatter (run with node) and
// lib/template_args.lua and text.front_matter on the same cases. Skipped
// when node or the pi package is missing; LUNAR_PI_DIR names the package
// folder when it is not under `npm root -g`.

import (
	"bytes"
	"encoding/json"
	"github.com/lunar-cli/lunar/agent/llmtest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	glua "github.com/yuin/gopher-lua"

	hooksd "github.com/lunar-cli/lunar/hooks.d"
	"github.com/lunar-cli/lunar/stdlib"
)

const piVersion = llmtest.PiVersion

// piDir returns the folder of the pi package, or skips the test.
func piDir(t *testing.T) string { return llmtest.PiDir(t) }

// piTemplates runs pi's functions on the cases: for each expansion case
// expandPromptTemplate("/t " + args) of a template t, for each file
// parseFrontmatter's body and description (null when there is none).
const piTemplates = `
import { readFileSync } from "fs";
const dist = process.argv[1];
const { expandPromptTemplate } = await import(dist + "/core/prompt-templates.js");
const { parseFrontmatter } = await import(dist + "/utils/frontmatter.js");
const req = JSON.parse(readFileSync(0, "utf8"));
const expand = req.expand.map(c => expandPromptTemplate(c.args === null ? "/t" : "/t " + c.args, [{ name: "t", content: c.template }]));
const front = req.front.map(s => { const { frontmatter, body } = parseFrontmatter(s); return { body, description: frontmatter.description ?? null }; });
process.stdout.write(JSON.stringify({ expand, front }));
`

type expandCase struct {
	Template string  `json:"template"`
	Args     *string `json:"args"`
}

func TestTemplateExpansionMatchesPi(t *testing.T) {
	dir := piDir(t)
	s := func(v string) *string { return &v }
	const all = "1=$1 2=$2 @=$@ A=$ARGUMENTS rest=${@:2} one=${@:2:1}"
	cases := []expandCase{
		{all, s("a b c")},
		{all, nil},
		{all, s("")},
		{all, s(`"quoted words" 'single "inner"' plain`)},
		{all, s(`unclosed "quote runs to the end`)},
		{all, s(`a""b "" '' c`)},
		{all, s("  spaced\tand\ttabbed   ")},
		{all, s("line\nbreak kept")},
		{"$10 $11 $1 $0 $01", s("1 2 3 4 5 6 7 8 9 ten eleven")},
		{"${@:0} | ${@:1} | ${@:3} | ${@:9} | ${@:2:0} | ${@:1:2} | ${@:2:}", s("a b c d")},
		{"${@:99999999999999999999} ${@:1:99999999999999999999} $99999999999999999999", s("a b")},
		{"$@ and $ARGUMENTS and $ARGS and $@@", s("x")},
		{"nested: $1 / $@", s(`'$2' '${@:1}' $ARGUMENTS`)},
		{"percent: $1 %1 %%", s("100% %d")},
		{"no placeholders", s("ignored words")},
		{"$", s("a")},
		{"${@:", s("a")},
		{"unicode: $2 $1", s("héllo 世界")},
	}
	fronts := []string{
		"---\ndescription: Review code\nargument-hint: <file>\n---\n\nBody $1\n\n",
		"---\r\ndescription: 'quoted: yes'\r\n---\r\nCRLF body\r\n",
		"no front matter\n  keeps its spaces  \n",
		"---\ndescription: x\nno closing line",
		"---\n---\nempty header",
		"---\nother: 1\n---\nno description",
		"---\ndescription: >\n  folded\n  text\n---\nb",
		"---\ndescription: d\n----\nfour dashes",
	}
	req, err := json.Marshal(map[string]any{"expand": cases, "front": fronts})
	require.NoError(t, err)
	cmd := exec.Command("node", "--input-type=module", "-e", piTemplates, filepath.Join(dir, "dist"))
	cmd.Stdin = bytes.NewReader(req)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var pi struct {
		Expand []string `json:"expand"`
		Front  []struct {
			Body        string  `json:"body"`
			Description *string `json:"description"`
		} `json:"front"`
	}
	require.NoError(t, json.Unmarshal(out, &pi))
	require.Len(t, pi.Expand, len(cases))

	L := glua.NewState()
	defer L.Close()
	stdlib.Preload(L, stdlib.Modules(nil))
	code, err := hooksd.FS.ReadFile("lib/template_args.lua")
	require.NoError(t, err)
	require.NoError(t, L.DoString(string(code)))
	mod := L.Get(-1).(*glua.LTable)
	L.Pop(1)
	expand := L.GetField(mod, "expand")
	for i, c := range cases {
		args := ""
		if c.Args != nil {
			args = strings.TrimSpace(*c.Args) // lunar hands commands the trimmed text
		}
		require.NoError(t, L.CallByParam(glua.P{Fn: expand, NRet: 1, Protect: true}, glua.LString(c.Template), glua.LString(args)))
		got := L.Get(-1).String()
		L.Pop(1)
		assert.Equal(t, pi.Expand[i], got, "case %d: %q with %v", i, c.Template, c.Args)
	}

	require.NoError(t, L.DoString(`text = require("text")`))
	for i, f := range fronts {
		L.SetGlobal("src", glua.LString(f))
		require.NoError(t, L.DoString(`local data, b = text.front_matter(src) assert(data, b) body, desc = b, type(data) == "table" and data.description or nil`))
		assert.Equal(t, pi.Front[i].Body, L.GetGlobal("body").String(), "front %d body", i)
		if pi.Front[i].Description == nil {
			assert.Equal(t, glua.LNil, L.GetGlobal("desc"), "front %d description", i)
		} else {
			assert.Equal(t, *pi.Front[i].Description, L.GetGlobal("desc").String(), "front %d description", i)
		}
	}
}
