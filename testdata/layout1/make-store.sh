#!/bin/sh
# Regenerates store-v1.tar.gz: a store in ref layout 1, made by the release
# before namespaced identity (commit d13b4bc), for store/migrate_test.go.
#
#   go build -o /tmp/skillstore-d13b4bc ./cmd/skillstore   # at commit d13b4bc
#   sh testdata/layout1/make-store.sh /tmp/skillstore-d13b4bc
#
# The store holds: two plugins (kit: alpha, beta, gamma; tools: hammer), a
# managed skill (notes), an adopted one (tools' saw), a candidate of a plugin skill (kit's beta, edited on
# both sides: a three-way candidate), a fast-forward candidate of gamma that superseded an older one, a
# plugin skill disabled (kit's alpha, a state record), a removed managed
# skill (old), and a skill named "skills" with a candidate, whose layout 1
# ref refs/heads/candidates/skills is where layout 2 puts a directory.
set -eu
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SKILLSTORE_DIR="$work/store" HOME="$work/home" GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=Fixture GIT_AUTHOR_EMAIL=fixture@example.com
export GIT_COMMITTER_NAME=Fixture GIT_COMMITTER_EMAIL=fixture@example.com
mkdir -p "$HOME"
skill() { # DIR NAME LINE...
	dir=$1 name=$2
	shift 2
	mkdir -p "$dir"
	{
		printf -- '---\nname: %s\ndescription: The %s skill of the layout 1 fixture.\n---\n\n' "$name" "$name"
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$dir/SKILL.md"
}
"$bin" init
kit=$work/up/kit
skill "$kit/skills/alpha" alpha one two three
skill "$kit/skills/beta" beta one two three four five
skill "$kit/skills/gamma" gamma one two three four five
skill "$kit/skills/skills" skills one two three four five
tools=$work/up/tools
skill "$tools/skills/hammer" hammer one
skill "$tools/skills/saw" saw one
"$bin" plugin add --id kit "$kit"
"$bin" plugin add --id tools "$tools"
skill "$work/notes" notes mine
skill "$work/old" old gone
"$bin" add "$work/notes" "$work/old"
"$bin" plugin adopt tools saw
"$bin" rm --reason "fixture: removed" old
"$bin" disable --reason "fixture: disabled" alpha
# beta and skills: edited on both sides -> three-way candidates.
skill "$work/edit/beta" beta "one local" two three four five
skill "$work/edit/skills" skills "one local" two three four five
"$bin" add --reason "local edit" "$work/edit/beta" "$work/edit/skills" || true
skill "$kit/skills/beta" beta one two three four "five upstream"
skill "$kit/skills/skills" skills one two three four "five upstream"
# gamma: a reviewed fast-forward candidate, superseded by a newer upstream.
skill "$kit/skills/gamma" gamma one two three four "five upstream"
"$bin" sync --review || true
skill "$kit/skills/gamma" gamma one two three four "five newer"
"$bin" sync --review || true
"$bin" list --all
"$bin" candidates list || true
git -C "$SKILLSTORE_DIR" for-each-ref --format='%(refname)'
rm -f "$SKILLSTORE_DIR/skillstore/lock"
tar -C "$work" -czf "$here/store-v1.tar.gz" store
echo "wrote $here/store-v1.tar.gz"
