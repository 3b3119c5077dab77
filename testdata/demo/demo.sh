#!/usr/bin/env bash
# make demo: a store in a temp dir, the bundled example plugin as a real git
# repository, a local edit, an upstream update, a real sync, and what it did.
set -euo pipefail

bin=${1:?usage: demo.sh PATH-TO-SKILLSTORE-BINARY}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/skillstore-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

export SKILLSTORE_DIR="$work/store"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/gitconfig"
# The upstream repository is committed to by its maintainer; the store records
# the local user (or $GIT_AUTHOR_NAME/$GIT_AUTHOR_EMAIL) as the actor.
upstream() { git -C "$work/upstream" -c user.name="Upstream Maintainer" -c user.email=upstream@example.com "$@"; }

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '$'; printf ' %q' "$@"; printf '\n'; "$@"; }
ss() { printf '$ skillstore'; printf ' %q' "$@"; printf '\n'; "$bin" "$@"; }

step "The upstream plugin: a git repository with three skills"
cp -R "$here/plugin" "$work/upstream"
upstream init -q -b main
upstream add -A
upstream commit -qm "example-dev-skills 1.0.0"
show find "$work/upstream" -name SKILL.md -printf '%P\n'

step "Create a store and add the plugin: every skill becomes version v1"
ss init
ss plugin add "file://$work/upstream" --id example
ss list

step "A local edit: we tune code-review and record it as v2"
"$bin" checkout code-review "$work/code-review" >/dev/null
sed -i 's/^Lead with the most important finding\./Lead with the most important finding, then the rest by severity./' "$work/code-review/SKILL.md"
ss add "$work/code-review" --reason "order findings by severity"

step "Upstream publishes 1.1.0: code-review, commit-message and release-notes change"
sed -i 's/^- Tests: every behaviour change has a test that would fail without it\./- Tests: every behaviour change has a test that would fail without it.\n- Security: untrusted input is validated at the boundary./' "$work/upstream/skills/code-review/SKILL.md"
sed -i 's/at most 50 characters/at most 72 characters/' "$work/upstream/skills/commit-message/SKILL.md"
printf '\nKeep each line under 80 characters.\n' >> "$work/upstream/skills/release-notes/SKILL.md"
upstream commit -qam "example-dev-skills 1.1.0"
show git -C "$work/upstream" --no-pager diff --stat HEAD~1 HEAD

step "Sync (what cron runs): fast-forwards are published, our edited skill becomes a candidate"
set +e
ss sync
rc=$?
set -e
echo "(exit code $rc: 4 means candidates are waiting for review)"

step "Review the candidate: our local edit and upstream's change merged cleanly"
ss candidates list
ss candidates diff code-review
ss candidates accept code-review --reason "reviewed upstream 1.1.0"

step "History: every version is a commit; git log alone tells the story"
ss log code-review
show git --git-dir "$SKILLSTORE_DIR" --no-pager log --format='%h %s' refs/heads/plugins/example/code-review

step "A second sync does nothing"
ss sync
echo "(quiet: nothing changed upstream)"

step "Export the published skills into an agent's skills folder"
ss target add claude "$work/agent/.claude/skills"
ss export
show find "$work/agent/.claude/skills" -name SKILL.md -printf '%P\n'

step "Upstream fixes a typo in commit-message: sync publishes it and re-exports it (hot: SKILL.md text only)"
sed -i 's/Summarise the change/Summarize the change/' "$work/upstream/skills/commit-message/SKILL.md"
upstream commit -qam "example-dev-skills 1.1.1"
ss sync
ss status

step "The store verifies, and plain git agrees"
ss verify
show git --git-dir "$SKILLSTORE_DIR" fsck --strict --no-progress
echo "(the notice only says the store has no HEAD branch: skills live under refs/heads/skills/ and refs/heads/plugins/)"
printf '\ndemo done: the store was in %s (removed on exit)\n' "$work"
