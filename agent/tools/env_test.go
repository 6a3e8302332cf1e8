//go:build unix

package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBashHidesAPIKeys runs the bash tool and looks at the variables the
// command sees.
func TestBashHidesAPIKeys(t *testing.T) {
	env := []string{"PATH=/usr/bin:/bin", "HOME=/home/u",
		"ANTHROPIC_API_KEY=sk-ant", "OPENAI_API_KEY=sk-oai", "GEMINI_API_KEY=g", "OPENROUTER_API_KEY=or",
		"GROQ_API_KEY=gq", "XAI_API_KEY=x", "DEEPSEEK_API_KEY=d", "MISTRAL_API_KEY=m",
		"MY_PROXY_KEY=custom", "OPENAI_API_KEY_NOTE=not-a-key-variable"}
	show := `{"command":"env | grep -E '_KEY|^HOME=' | sort"}`
	cases := []struct {
		name string
		opts BashOptions
		want string
	}{
		{"provider keys removed", BashOptions{},
			"HOME=/home/u\nMY_PROXY_KEY=custom\nOPENAI_API_KEY_NOTE=not-a-key-variable\n"},
		{"configured key variables removed too", BashOptions{SecretEnv: []string{"MY_PROXY_KEY"}},
			"HOME=/home/u\nOPENAI_API_KEY_NOTE=not-a-key-variable\n"},
		{"kept when asked", BashOptions{KeepAPIKeys: true, SecretEnv: []string{"MY_PROXY_KEY"}},
			"ANTHROPIC_API_KEY=sk-ant\nDEEPSEEK_API_KEY=d\nGEMINI_API_KEY=g\nGROQ_API_KEY=gq\nHOME=/home/u\n" +
				"MISTRAL_API_KEY=m\nMY_PROXY_KEY=custom\nOPENAI_API_KEY=sk-oai\nOPENAI_API_KEY_NOTE=not-a-key-variable\n" +
				"OPENROUTER_API_KEY=or\nXAI_API_KEY=x\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Environ = func() []string { return env }
			tools, err := ByName([]string{"bash"}, BuiltinsWith(t.TempDir(), Options{Bash: c.opts}))
			require.NoError(t, err)
			res := call(t, tools[0], show)
			require.False(t, res.IsError, text(res))
			assert.Equal(t, c.want, text(res))
		})
	}
}

// TestBashHidesAPIKeysOfLunarsEnvironment checks the default: lunar's own
// environment, without the keys.
func TestBashHidesAPIKeysOfLunarsEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-the-environment")
	t.Setenv("LUNAR_TEST_VISIBLE", "yes")
	res := call(t, builtin(t, "bash", t.TempDir()), `{"command":"echo \"[${OPENAI_API_KEY-unset}] [$LUNAR_TEST_VISIBLE]\""}`)
	assert.Equal(t, "[unset] [yes]\n", text(res))

	// RunBash, which the user's own !command uses, passes everything.
	out, err := RunBash(t.Context(), t.TempDir(), `echo "[$OPENAI_API_KEY]"`, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, "[sk-from-the-environment]\n", out.Output)
}

func TestWithoutVars(t *testing.T) {
	env := []string{"A=1", "B=2", "=C:=C:\\x", "AB=3", "B=4"}
	assert.Equal(t, []string{"A=1", "=C:=C:\\x", "AB=3"}, withoutVars(env, []string{"B"}))
	assert.Equal(t, env, withoutVars(env, nil))
}
