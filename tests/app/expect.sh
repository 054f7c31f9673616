#!/usr/bin/env bash
# expect.sh CODE REGEX COMMAND...: runs COMMAND, requires exit status CODE and output (stdout+stderr) matching
# the extended REGEX. For failures (CODE 2) the error must be one line on stderr and nothing on stdout, so
# a user sees exactly one clear message.
set -u
code=$1
pattern=$2
shift 2
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
status=$?
if [ "$status" -ne "$code" ]; then
  echo "expected exit $code, got $status from: $*"
  cat "$out" "$err"
  exit 1
fi
if ! cat "$out" "$err" | grep -Eq -- "$pattern"; then
  echo "output of '$*' does not match /$pattern/:"
  cat "$out" "$err"
  exit 1
fi
if [ "$code" -eq 2 ]; then
  lines=$(wc -l <"$err")
  if [ "$lines" -ne 1 ] || [ -s "$out" ]; then
    echo "expected one line on stderr and nothing on stdout, got $lines line(s):"
    cat "$out" "$err"
    exit 1
  fi
fi
exit 0
