#!/bin/sh
# Times resuming a large session as whole processes, in paired rounds
# (testdata/bench/paired) so that a busy machine slows every command of a
# round alike (issue #27 item 3): lunar --session FILE -p next on a session
# of 100,000 entries (128 MiB, one long path in pi's format, written by
# testdata/bench/bigsession) and of 1,000, with the bundled hooks, sending
# one request to a server that only reads the body (testdata/bench/sink).
# The floor each is compared with is readpost: read the file whole and
# send it as one request to the same server.
#
#   testdata/bench/resume.sh [ROUNDS]         (from the repository root)
#   LUNAR_BIN=/path/to/lunar testdata/bench/resume.sh     (time another build)
#   LUNAR_BASE=/path/to/old/lunar testdata/bench/resume.sh
#       (also time an older build in the same rounds: before/after rows)
#   API=anthropic-messages testdata/bench/resume.sh       (the other API)
#
# Each command resumes a copy of its own, which grows by two entries a
# round. Peak RSS over the file's size is printed for the large session.
set -eu

rounds=${1:-21}
api=${API:-openai-completions}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
server=
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

cd "$root"
release() { CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$@"; }
if [ -n "${LUNAR_BIN:-}" ]; then
	cp "$LUNAR_BIN" "$tmp/lunar"
else
	release "$tmp/lunar" .
fi
[ -n "${LUNAR_BASE:-}" ] && cp "$LUNAR_BASE" "$tmp/base"
release "$tmp/readpost" ./testdata/bench/readpost
go build -o "$tmp/bigsession" ./testdata/bench/bigsession
go build -o "$tmp/sink" ./testdata/bench/sink
go build -o "$tmp/paired" ./testdata/bench/paired

"$tmp/sink" >"$tmp/url" &
server=$!
while ! [ -s "$tmp/url" ]; do
	kill -0 "$server" || { echo "sink did not start" >&2; exit 1; }
	sleep 0.01
done
url=$(head -n 1 "$tmp/url")
base_url=$url
fields=
if [ "$api" = anthropic-messages ]; then
	base_url=${url%/v1}
	fields='"api": "anthropic-messages", '
fi
mkdir -p "$tmp/home/config" "$tmp/work"
printf '{"compaction": {"enabled": false}, "providers": {"big": {%s"base_url": "%s", "api_key": "sk-bench", "models": [{"id": "big-model", "context_window": 1000000000}]}}}\n' \
	"$fields" "$base_url" >"$tmp/home/config/config.json"

for n in 100000 1000; do
	"$tmp/bigsession" -n $n -api "$api" -model big/big-model -cwd "$tmp/work" "$tmp/s$n.jsonl"
	for v in lunar base; do
		[ -e "$tmp/$v" ] && cp "$tmp/s$n.jsonl" "$tmp/$v-$n.jsonl"
	done
done
size=$(wc -c <"$tmp/s100000.jsonl")
echo "lunar: $api, 100,000 entries: $size bytes; load average: $(cut -d' ' -f1-3 /proc/loadavg)"

cd "$tmp/work"
# run LABEL N: paired-run arguments resuming the N-entry session with lunar,
# and with the base binary when there is one (label base-LABEL).
run() {
	printf '%s\n' "$1=LUNAR_HOME=$tmp/home $tmp/lunar --session $tmp/lunar-$2.jsonl -p next"
	[ -e "$tmp/base" ] && printf '%s\n' "base-$1=LUNAR_HOME=$tmp/home $tmp/base --session $tmp/base-$2.jsonl -p next"
	return 0
}
paired() {
	# one argument per line (commands hold no newline)
	old=$IFS
	IFS='
'
	set -- $(printf '%s\n' "$@")
	IFS=$old
	"$tmp/paired" -n "$rounds" "$@" | tee "$tmp/out"
}
echo
echo "== resume 100,000 entries and send one prompt vs reading the file and sending it"
paired "readpost=$tmp/readpost $url $tmp/s100000.jsonl" "$(run resume-100k 100000)"
awk -v size="$size" 'NR > 1 && $4 ~ /MB$/ { rss = $4; sub(/MB$/, "", rss); printf "%-22s peak RSS %.2fx the file\n", $1, rss * 1048576 / size }' "$tmp/out"
echo
echo "== resume 1,000 entries and send one prompt vs reading the file and sending it"
paired "readpost=$tmp/readpost $url $tmp/s1000.jsonl" "$(run resume-1k 1000)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
