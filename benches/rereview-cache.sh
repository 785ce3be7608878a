#!/usr/bin/env bash
# What a second review of a change costs after a one-hunk fix: three parts
# and four parts (files of 150 KB), reviewed, one line of one file fixed in a new
# commit, reviewed again, against crit-testkit's fake Anthropic server with
# the prompt cache simulated as the API keeps one (tokens are bytes / 4 of
# each block; a prefix up to a cache breakpoint is written once and read
# after). Prints the input tokens not read from the cache (paid at full
# price or more) of each review and the second's share of the first's.
# The hunk cache is off, as when the first review found something in every
# file (it would leave the unchanged files out altogether).
# Usage: benches/rereview-cache.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --test crit --quiet review_rereview -- --nocapture 2>&1 | grep -E "re-review after|test result"
