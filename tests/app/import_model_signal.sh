#!/bin/sh
# import_model_signal.sh SYNCSIM SIGNAL: `syncsim import-model` sent SIGNAL (TERM or INT) while its tracing Python
# runs ends with exit 128 + the signal, and its child ends with it: no process of the child is left (it was left
# running). The child is a stand-in Python (SYNCSIM_PYTHON) that writes its pid and sleeps; the script waits for that
# pid, never for a fixed time, so a busy machine only makes it slower.
set -u
syncsim=$1
signal=$2
case $signal in
  TERM) expected=143 ;;
  INT) expected=130 ;;
  *) echo "usage: $0 SYNCSIM TERM|INT" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
child=""
cleanup() {
  [ -n "$child" ] && kill -9 "$child" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
cat >"$dir/python" <<SCRIPT
#!/bin/sh
echo \$\$ >"$dir/child.tmp" && mv "$dir/child.tmp" "$dir/child.pid"
exec sleep 3600
SCRIPT
chmod +x "$dir/python"
SYNCSIM_PYTHON="$dir/python" "$syncsim" import-model torchvision:resnet50 --input 3x224x224 -o "$dir/out.yaml" \
  2>"$dir/stderr" &
pid=$!
while [ ! -s "$dir/child.pid" ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "FAIL: syncsim ended before its child started:"; cat "$dir/stderr"; exit 1
  fi
  sleep 0.02
done
child=$(cat "$dir/child.pid")
kill -s "$signal" "$pid"
wait "$pid"
status=$?
if [ "$status" -ne "$expected" ]; then
  echo "FAIL: syncsim exited $status after SIG$signal, expected $expected:"; cat "$dir/stderr"; exit 1
fi
# syncsim reaps its child before it exits: the pid is gone, not a zombie, and not left running.
if kill -0 "$child" 2>/dev/null; then
  echo "FAIL: the child $child ($(cat /proc/"$child"/cmdline 2>/dev/null | tr '\0' ' ')) outlived syncsim"; exit 1
fi
if [ -e "$dir/out.yaml" ]; then
  echo "FAIL: an output was written"; exit 1
fi
child=""
echo "ok: SIG$signal ended syncsim ($status) and its child"
