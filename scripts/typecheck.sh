#!/usr/bin/env bash
# scripts/typecheck.sh — mypy over jupyter_accel with a ratchet: an error that is not in tools/mypy-baseline.txt
# fails the check; errors of the baseline that are gone are reported so the baseline can shrink (never grow).
# Errors are compared without line numbers, so moving code does not count as a new error.
# --update rewrites the baseline from the current errors (only when it shrinks).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BASELINE=tools/mypy-baseline.txt
out=$(python -m mypy --no-error-summary --no-pretty --show-error-codes 2>&1)
rc=$?
if [ $rc -gt 1 ]; then echo "$out"; echo "mypy itself failed (status $rc)"; exit 1; fi
now=$(sed -E 's/^([^:]+):[0-9]+(:[0-9]+)?: /\1: /' <<<"$out" | grep ': error: ' | sort)
new=$(comm -13 <(sort "$BASELINE") <(echo "$now"))
gone=$(comm -23 <(sort "$BASELINE") <(echo "$now"))
count() { [ -z "$1" ] && echo 0 || wc -l <<<"$1"; }
echo "mypy: $(count "$now") errors; baseline $(count "$(cat "$BASELINE")"); new $(count "$new"); fixed $(count "$gone")"
if [ "${1:-}" = "--update" ]; then
  [ -z "$new" ] || { echo "refusing to grow the baseline; fix these first:"; echo "$new"; exit 1; }
  echo "$now" > "$BASELINE"; echo "baseline rewritten"; exit 0
fi
if [ -n "$gone" ]; then echo "fixed since the baseline (run scripts/typecheck.sh --update to tighten it):"; echo "$gone"; fi
if [ -n "$new" ]; then echo "NEW type errors (not in $BASELINE; with line numbers below):"; echo "$new"
  grep ': error: ' <<<"$out" | grep -F -f <(cut -d: -f1 <<<"$new" | sort -u); exit 1; fi
