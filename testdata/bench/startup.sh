#!/bin/sh
# Times the lunar binary as whole processes against the in-repo fake
# server, in paired rounds (testdata/bench/paired) so that a busy machine
# slows both sides of each ratio alike:
#
#   1. lunar --version            vs a Go hello-world built the same way
#   2. lunar -p (session written) vs a minimal Go client sending the same
#                                    request (testdata/bench/rawpost)
#   3. lunar -p with 30 trivial global hooks vs without them (the hooks'
#      compiled chunks cached after the first run, and with the cache off)
#   4. the REPL's first prompt (start -> "> " in a pseudo-terminal) with
#      30 trivial global hooks vs without them (same)
#   5. lunar -p and the REPL's first prompt with 50 prompt templates
#      (hooks.d/templates.lua) vs the templates hook disabled
#
# plus each command's peak RSS and the size of the release binary.
#
#   testdata/bench/startup.sh [ROUNDS]        (from the repository root)
#   LUNAR_BIN=/path/to/lunar testdata/bench/startup.sh   (time another build)
#   LUNAR_BASE=/path/to/old/lunar testdata/bench/startup.sh
#       (also time an older build in the same rounds: before/after rows)
set -eu

rounds=${1:-31}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

cd "$root"
# Every timed binary is copied into place with cp, never run where the
# linker wrote it: the page cache holds a file Go's linker wrote (through
# a memory mapping) differently from one written with write(2), and
# exec maps it slower. The same lunar binary ran --version 16 % slower
# (one-shot 9-11 %) as the linker left it than as a copy, which made a
# built lunar look slower than a copied LUNAR_BASE.
mkdir "$tmp/build"
release() { CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$tmp/build/$1" "$2" && cp "$tmp/build/$1" "$tmp/$1"; }
if [ -n "${LUNAR_BIN:-}" ]; then
	cp "$LUNAR_BIN" "$tmp/lunar"
else
	release lunar .
fi
release hello ./testdata/bench/hello
release rawpost ./testdata/bench/rawpost
go build -o "$tmp/paired" ./testdata/bench/paired
go build -o "$tmp/llmtest-server" ./agent/llmtest/cmd/llmtest-server
echo "release binary: $(wc -c <"$tmp/lunar") bytes (CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w\")"
if [ -n "${LUNAR_BASE:-}" ]; then
	cp "$LUNAR_BASE" "$tmp/base"
	echo "base binary:    $(wc -c <"$tmp/base") bytes"
fi
printf '{"default": {"parts": [{"type": "text", "text": "Hello there, this is a short answer."}]}}\n' >"$tmp/script.json"
# start_server [--record FILE]: starts the fake server, sets $server and $url.
start_server() {
	"$tmp/llmtest-server" --script "$tmp/script.json" "$@" >"$tmp/url" &
	server=$!
	while ! [ -s "$tmp/url" ]; do
		kill -0 "$server" || { echo "llmtest-server did not start" >&2; exit 1; }
		sleep 0.01
	done
	url=$(head -n 1 "$tmp/url")
}
stop_server() { kill "$server"; wait "$server" 2>/dev/null || true; server=; : >"$tmp/url"; }

mkdir -p "$tmp/work" "$tmp/home0" "$tmp/home30/config/hooks.d"
i=0
while [ $i -lt 30 ]; do
	n=$(printf '%02d' $i)
	cat >"$tmp/home30/config/hooks.d/$n-trivial.lua" <<LUA
-- a trivial hook: counts turns, offers a command
local turns = 0
lunar.on("turn.end", function() turns = turns + 1 end)
lunar.command("turns$n", { description = "turns so far", handler = function() return nil end })
LUA
	i=$((i + 1))
done

# The same hooks with the compiled-chunk cache off (its folder cannot be
# made): every run compiles them, as the first run after a change does.
mkdir -p "$tmp/home30nc/state"
cp -r "$tmp/home30/config" "$tmp/home30nc/"
: >"$tmp/home30nc/state/chunks"

# 50 prompt templates with front matter, and the same with the hook off.
mkdir -p "$tmp/home50t/config/prompts" "$tmp/home50off/config"
i=0
while [ $i -lt 50 ]; do
	n=$(printf '%02d' $i)
	printf -- '---\ndescription: template %s\nargument-hint: "<file>"\n---\nReview $1 for problem %s, focusing on ${@:2}.\n' "$n" "$n" \
		>"$tmp/home50t/config/prompts/tpl$n.md"
	i=$((i + 1))
done
cp -r "$tmp/home50t/config/prompts" "$tmp/home50off/config/"
echo '{"disabled_hooks": ["templates"]}' >"$tmp/home50off/config/config.json"

lunar="$tmp/lunar --model openai/gpt-4.1 --api-key sk-bench"

# The request lunar sends, for rawpost to send the same (from a home of
# its own).
start_server --record "$tmp/request.jsonl"
(cd "$tmp/work" && LUNAR_HOME="$tmp/homerec" $lunar --base-url "$url" -p hi >/dev/null)
stop_server
start_server

cd "$tmp/work"
# The homes above are templates, never run in: each row gets a fresh copy
# of its template, so that no two rows (lunar's and the base binary's in
# particular) share a session folder or a chunk cache, and every row's
# cache is warmed the same way, by paired's warm-up rounds.
mkdir "$tmp/rows"
row_home() { d=$(mktemp -d "$tmp/rows/$1.XXXXXX") && cp -R "$2/." "$d" && printf '%s' "$d"; }
# run LABEL HOME ARGS...: a paired-run argument for lunar, and for the base
# binary when there is one (label base-LABEL).
run() {
	label=$1 home=$2
	shift 2
	printf '%s\n' "$label=LUNAR_HOME=$(row_home "$label" "$home") $lunar $*"
	[ -e "$tmp/base" ] && printf '%s\n' "base-$label=LUNAR_HOME=$(row_home "base-$label" "$home") $tmp/base --model openai/gpt-4.1 --api-key sk-bench $*"
	return 0
}
paired() {
	# one argument per line (commands hold no newline)
	old=$IFS
	IFS='
'
	set -- $(printf '%s\n' "$@")
	IFS=$old
	"$tmp/paired" -n "$rounds" ${pty:+-pty "$pty"} "$@"
}
echo
echo "== startup: lunar --version vs hello-world"
paired "hello=$tmp/hello" "$(run version "$tmp/home0" --version)"
echo
echo "== one-shot round trip (session written, bundled hooks) vs a minimal Go client"
paired "rawpost=$tmp/rawpost $url $tmp/request.jsonl" "$(run lunar-p "$tmp/home0" --base-url "$url" -p hi)" \
	"$(run lunar-p-nohooks "$tmp/home0" --base-url "$url" --no-hooks -p hi)"
echo
echo "== 30 trivial global hooks"
paired "$(run lunar-p "$tmp/home0" --base-url "$url" -p hi)" "$(run lunar-p-30hooks "$tmp/home30" --base-url "$url" -p hi)" \
	"$(run lunar-p-30hooks-nocache "$tmp/home30nc" --base-url "$url" -p hi)"
echo
echo "== REPL: start to first prompt, 30 trivial global hooks (wall: until the prompt; cpu: the whole process)"
pty='\n> ' paired "$(run repl "$tmp/home0" --base-url "$url" --yes)" "$(run repl-30hooks "$tmp/home30" --base-url "$url" --yes)" \
	"$(run repl-30hooks-nocache "$tmp/home30nc" --base-url "$url" --yes)"
echo
echo "== 50 prompt templates vs the templates hook disabled (one-shot, then the REPL's first prompt)"
paired "$(run lunar-p-tploff "$tmp/home50off" --base-url "$url" -p hi)" "$(run lunar-p-50tpl "$tmp/home50t" --base-url "$url" -p hi)"
pty='\n> ' paired "$(run repl-tploff "$tmp/home50off" --base-url "$url" --yes)" "$(run repl-50tpl "$tmp/home50t" --base-url "$url" --yes)"
