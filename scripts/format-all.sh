#!/bin/sh
# Rewrite the formatting of every file in Biome's scope (biome.jsonc `files.includes`: src, test,
# scripts, bench) in place. No behaviour change: Biome's formatter only moves whitespace, line
# breaks, parentheses, quotes and trailing commas. Commit the result as its own commit and add its
# sha to .git-blame-ignore-revs. `npm run lint` checks that the tree stays formatted.
set -eu
cd "$(dirname "$0")/.."
exec npx --no-install biome format --write "$@"
