#!/bin/sh
# List the commits since the last tag, one per line.
set -eu
last=$(git describe --tags --abbrev=0 2>/dev/null || true)
if [ -n "$last" ]; then
  git log --oneline "$last..HEAD"
else
  git log --oneline
fi
