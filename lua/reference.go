package lua

// This file renders the API reference part of docs/hooks.md from the same
// tables as TypesMeta (events, lunar, ctx, stdlib); a test keeps the
// document's generated section equal to it (go test ./lua -run
// TestDocsReference -update rewrites it).

import (
	"fmt"
	"strings"

	"github.com/lunar-cli/lunar/stdlib"
)

// ReferenceMarkdown returns the generated reference of the hook API, in
// Markdown.
func ReferenceMarkdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	w("### Events")
	w("")
	w("| event | aliases | kind | when | payload (besides `type`) | result |")
	w("|---|---|---|---|---|---|")
	for id := range events {
		e := &events[id]
		var payload, result []string
		for _, f := range e.Payload {
			payload = append(payload, "`"+f.Name+"`")
		}
		for _, f := range e.Result {
			result = append(result, "`"+f.Name+"`")
		}
		res := "—"
		if len(result) > 0 {
			res = "{" + strings.Join(result, ", ") + "}"
		}
		aliases := "—"
		if len(e.Aliases) > 0 {
			aliases = "`" + strings.Join(e.Aliases, "`, `") + "`"
		}
		pl := strings.Join(payload, ", ")
		if pl == "" {
			pl = "—"
		}
		when := e.When
		if e.NoTimeout {
			when += " (no timeout)"
		}
		w("| `%s` | %s | %s | %s | %s | %s |", e.Name, aliases, e.Kind, when, pl, res)
	}
	w("")
	for id := range events {
		e := &events[id]
		if len(e.Payload) == 0 && len(e.Result) == 0 {
			continue
		}
		w("#### `%s`", e.Name)
		w("")
		if len(e.Payload) > 0 {
			w("Payload:")
			w("")
			fieldList(&b, e.Payload)
		}
		if len(e.Result) > 0 {
			w("Result (%s):", e.Kind)
			w("")
			fieldList(&b, e.Result)
			if e.ResultDoc != "" {
				w("%s", e.ResultDoc)
				w("")
			}
		}
	}

	lunar := lunarModule()
	w("### The `lunar` module")
	w("")
	funcList(&b, "lunar.", lunar.Funcs)
	for _, c := range lunar.Classes {
		classSection(&b, c)
	}

	ui, sess, models, cmd := ctxTables(nil)
	w("### `ctx`")
	w("")
	w("Fields:")
	w("")
	fieldList(&b, ctxFields)
	funcList(&b, "ctx.", ctxFuncs(nil).Funcs)
	w("`ctx.ui`: %s", ui.Doc)
	w("")
	funcList(&b, "ctx.ui.", ui.Funcs)
	w("`ctx.session`: %s", sess.Doc)
	w("")
	funcList(&b, "ctx.session.", sess.Funcs)
	w("`ctx.models`: %s", models.Doc)
	w("")
	funcList(&b, "ctx.models.", models.Funcs)
	sessions := sessionsModule(nil)
	w("`ctx.sessions`: %s", sessions.Doc)
	w("")
	funcList(&b, "ctx.sessions.", sessions.Funcs)
	w("%s", cmd.Doc)
	w("")
	fieldList(&b, commandFields)
	funcList(&b, "ctx.", cmd.Funcs)

	w("### Data shapes")
	w("")
	for _, c := range dataClasses {
		classSection(&b, c)
	}

	w("### Standard modules")
	w("")
	for _, m := range stdlib.Modules(nil) {
		w("#### `%s` — `require(\"%s\")`", m.Name, m.Name)
		w("")
		w("%s", m.Doc)
		w("")
		for _, f := range m.Fields {
			w("- `%s.%s` (%s): %s", m.Name, f.Name, f.Type, f.Doc)
		}
		if len(m.Fields) > 0 {
			w("")
		}
		funcList(&b, m.Name+".", m.Funcs)
		for _, c := range m.Classes {
			classSection(&b, c)
		}
	}
	return b.String()
}

func fieldList(b *strings.Builder, fields []stdlib.Field) {
	for _, f := range fields {
		if f.Doc != "" {
			fmt.Fprintf(b, "- `%s` (`%s`): %s\n", f.Name, f.Type, f.Doc)
		} else {
			fmt.Fprintf(b, "- `%s` (`%s`)\n", f.Name, f.Type)
		}
	}
	b.WriteString("\n")
}

func funcList(b *strings.Builder, prefix string, funcs []stdlib.Func) {
	for _, f := range funcs {
		var ps []string
		for _, p := range f.Params {
			n := p.Name
			if p.Optional {
				n += "?"
			}
			ps = append(ps, n)
		}
		sig := prefix + f.Name + "(" + strings.Join(ps, ", ") + ")"
		if f.Returns != "" {
			sig += " → " + f.Returns
		}
		fmt.Fprintf(b, "- `%s` — %s\n", sig, f.Doc)
	}
	b.WriteString("\n")
}

func classSection(b *strings.Builder, c stdlib.Class) {
	name, _, _ := strings.Cut(c.Name, ":")
	fmt.Fprintf(b, "`%s`", strings.TrimSpace(name))
	if c.Doc != "" {
		fmt.Fprintf(b, ": %s", c.Doc)
	}
	b.WriteString("\n\n")
	fieldList(b, c.Fields)
}
