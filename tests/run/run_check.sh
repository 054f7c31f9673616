#!/usr/bin/env bash
# run_check.sh MODE SYNCSIM SCENARIO OUTDIR [ARGS...]: checks `syncsim run` end to end.
#   ok           exit 0; OUTDIR/report.json and OUTDIR/trace.json exist and parse as JSON (python3, when present)
#                with a convergence section, its charts too
#   deterministic  two runs into OUTDIR/a and OUTDIR/b give byte-identical report.json and trace.json (and charts)
#   fails REGEX  exit 2, one line on stderr matching REGEX (grep -E), nothing on stdout, and OUTDIR not created
#                (or left empty)
set -u
mode=$1
syncsim=$2
scenario=$3
outdir=$4
shift 4
rm -rf "$outdir"
case "$mode" in
ok)
  "$syncsim" run "$scenario" -o "$outdir" "$@" || { echo "exit $? from syncsim run $scenario"; exit 1; }
  for f in report.json trace.json; do
    [ -s "$outdir/$f" ] || { echo "missing $outdir/$f"; exit 1; }
    if command -v python3 >/dev/null; then
      python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$outdir/$f" || { echo "$f does not parse"; exit 1; }
    fi
  done
  grep -q '"traceEvents"' "$outdir/trace.json" || { echo "trace.json has no traceEvents"; exit 1; }
  # With the convergence proxy, its loss chart comes with the report (and the staleness chart when asynchronous).
  if grep -q '"convergence"' "$outdir/report.json"; then
    for f in convergence.svg convergence.png; do [ -s "$outdir/$f" ] || { echo "missing $outdir/$f"; exit 1; }; done
    if ! grep -q '"staleness": null' "$outdir/report.json"; then
      [ -s "$outdir/staleness.svg" ] || { echo "missing $outdir/staleness.svg"; exit 1; }
    fi
  fi
  ;;
deterministic)
  for d in a b; do
    "$syncsim" run "$scenario" -o "$outdir/$d" "$@" >/dev/null || { echo "exit $? from syncsim run"; exit 1; }
  done
  cmp "$outdir/a/report.json" "$outdir/b/report.json" || exit 1
  # A scenario with several jobs writes report.json only (docs/jobs.md).
  if [ -e "$outdir/a/trace.json" ]; then cmp "$outdir/a/trace.json" "$outdir/b/trace.json" || exit 1; fi
  for f in convergence.svg convergence.png staleness.svg staleness.png; do
    if [ -e "$outdir/a/$f" ]; then cmp "$outdir/a/$f" "$outdir/b/$f" || exit 1; fi
  done
  ;;
fails)
  pattern=$1
  shift
  errfile=$(mktemp)
  out=$("$syncsim" run "$scenario" -o "$outdir" "$@" 2>"$errfile")
  status=$?
  err=$(cat "$errfile")
  rm -f "$errfile"
  [ "$status" -eq 2 ] || { echo "expected exit 2, got $status: $err"; exit 1; }
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || { echo "expected one line on stderr: $err"; exit 1; }
  printf '%s\n' "$err" | grep -Eq -- "$pattern" || { echo "stderr does not match /$pattern/: $err"; exit 1; }
  [ -z "$out" ] || { echo "expected nothing on stdout: $out"; exit 1; }
  if [ -e "$outdir" ] && [ -n "$(ls -A "$outdir")" ]; then
    echo "output written despite the error: $(ls -A "$outdir")"
    exit 1
  fi
  ;;
*)
  echo "unknown mode $mode"
  exit 1
  ;;
esac
exit 0
