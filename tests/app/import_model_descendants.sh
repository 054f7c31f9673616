#!/bin/sh
# import_model_descendants.sh SYNCSIM MODE: what the tracing Python starts does not outlive `syncsim import-model`
# (found by fuzzing: a model that started a process left it running, and one that forked kept the command waiting
# on the pipes its child held). The stand-in Python (SYNCSIM_PYTHON) starts a background `sleep`, which holds the
# child's standard output and error, writes its pid, then
#   exit     exits at once: syncsim must not wait for the sleep, and must stop it;
#   timeout  sleeps past --timeout 1: syncsim must stop both.
# Either way syncsim exits 2 with one line and no process of the child's group is left.
set -u
syncsim=$1
mode=$2
dir=$(mktemp -d)
left=""
cleanup() {
  [ -n "$left" ] && kill -9 "$left" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
case $mode in
  exit) last="exit 1" ;;
  timeout) last="exec sleep 3600" ;;
  *) echo "usage: $0 SYNCSIM exit|timeout" >&2; exit 2 ;;
esac
cat >"$dir/python" <<SCRIPT
#!/bin/sh
sleep 3600 &
echo \$! >"$dir/descendant.tmp" && mv "$dir/descendant.tmp" "$dir/descendant.pid"
$last
SCRIPT
chmod +x "$dir/python"
SYNCSIM_PYTHON="$dir/python" "$syncsim" import-model torchvision:resnet50 --input 3x224x224 -o "$dir/out.yaml" \
  --timeout 1 2>"$dir/stderr"
status=$?
left=$(cat "$dir/descendant.pid" 2>/dev/null)
if [ "$status" -ne 2 ]; then
  echo "FAIL: syncsim exited $status, expected 2:"; cat "$dir/stderr"; exit 1
fi
if [ "$(wc -l <"$dir/stderr")" -ne 1 ]; then
  echo "FAIL: expected one line on stderr:"; cat "$dir/stderr"; exit 1
fi
if [ -z "$left" ]; then
  echo "FAIL: the stand-in Python did not start its descendant:"; cat "$dir/stderr"; exit 1
fi
# SIGKILL is delivered before kill() returns, but the sleep may still be a zombie until init reaps it.
for _ in 1 2 3 4 5 6 7 8 9 10; do
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' /proc/"$left"/status 2>/dev/null)
  [ -z "$state" ] || [ "$state" = Z ] && break
  sleep 0.1
done
if [ -n "$state" ] && [ "$state" != Z ]; then
  echo "FAIL: the descendant $left is still running (state $state)"; exit 1
fi
left=""
echo "ok ($mode): $(cat "$dir/stderr")"
