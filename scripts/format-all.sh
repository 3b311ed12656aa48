#!/bin/sh
# Rewrite the formatting of every file in Biome's scope (biome.jsonc `files.includes`: src, test,
# scripts, bench) in place. No behaviour change: Biome's formatter only moves whitespace, line
# breaks, parentheses, quotes and trailing commas. Commit the result as its own commit and add its
# sha to .git-blame-ignore-revs. `npm run lint` checks that the tree stays formatted.
set -eu
cd "$(dirname "$0")/.."
npx --no-install biome format --write "$@"
# A second pass: on a tree never formatted, the first one leaves a few call chains that a second
# pass lays out otherwise (then it is stable).
npx --no-install biome format --write "$@"
