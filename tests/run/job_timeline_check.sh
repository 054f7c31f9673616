#!/usr/bin/env bash
# job_timeline_check.sh SYNCSIM RELIABILITY_SCENARIO PLAIN_SCENARIO OUTDIR: `syncsim run` writes job_timeline.json
# for a scenario with `reliability:` (a Chrome trace with failures, byte-identical on a second run) and none for one
# without: a plain run into the same folder takes the earlier timeline away with its set.
set -u
syncsim=$1
reliable=$2
plain=$3
outdir=$4
rm -rf "$outdir"
mkdir -p "$outdir"
for d in a b; do
  "$syncsim" run "$reliable" -o "$outdir/$d" >"$outdir/$d.txt" || { echo "exit $? from syncsim run $reliable"; exit 1; }
done
cmp "$outdir/a/job_timeline.json" "$outdir/b/job_timeline.json" || exit 1
grep -q '"traceEvents"' "$outdir/a/job_timeline.json" || { echo "no traceEvents"; exit 1; }
grep -q '"cat": *"failure"' "$outdir/a/job_timeline.json" || { echo "no failure in the job timeline"; exit 1; }
grep -q 'job_timeline.json' "$outdir/a.txt" || { echo "the summary does not name job_timeline.json"; exit 1; }
if command -v python3 >/dev/null; then
  python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$outdir/a/job_timeline.json" || exit 1
fi
"$syncsim" run "$plain" -o "$outdir/a" >/dev/null || { echo "exit $? from syncsim run $plain"; exit 1; }
[ ! -e "$outdir/a/job_timeline.json" ] || { echo "a run without reliability left job_timeline.json"; exit 1; }
exit 0
