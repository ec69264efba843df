#!/bin/sh
# The CTest fixture `jvm_agents`: starts one JVM agent per real JDK target (so the conformance tests
# share a few JVMs instead of starting one each), and stops them again.
#   agents.sh start DIR JAVA JAR NAME=FQCN...   writes DIR/token (0600), DIR/NAME.url, DIR/NAME.pid
#   agents.sh stop DIR                           stops the agents whose pids are in DIR/*.pid
set -eu
command=$1
dir=$2
shift 2
case "$command" in
  start)
    java=$1
    jar=$2
    shift 2
    mkdir -p "$dir"
    "$0" stop "$dir"
    umask 077
    # A fresh token per run: 16 random bytes, hex.
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$dir/token"
    for entry in "$@"; do
      name=${entry%%=*}
      purpose=${entry#*=}
      rm -f "$dir/$name.url" "$dir/$name.out"
      # setsid + redirected output: the agent outlives this script without holding ctest's pipes;
      # --max-lifetime is the safety net if the stop test never runs.
      TYPESTAR_DEVICE_TOKEN_FILE="$dir/token" setsid "$java" -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$jar" --class-purpose "$purpose" --port 0 \
        --max-lifetime 3600 > "$dir/$name.out" 2> "$dir/$name.err" < /dev/null &
      echo $! > "$dir/$name.pid"
    done
    for entry in "$@"; do
      name=${entry%%=*}
      tries=0
      until grep -q 'http://' "$dir/$name.out" 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -gt 300 ] || ! kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then
          echo "agents.sh: the agent $name did not start:" >&2
          cat "$dir/$name.err" >&2
          exit 1
        fi
        sleep 0.1
      done
      grep -o 'http://[^ ]*' "$dir/$name.out" | head -n 1 > "$dir/$name.url"
      echo "agents.sh: $name on $(cat "$dir/$name.url")"
    done
    ;;
  stop)
    for pidfile in "$dir"/*.pid; do
      [ -e "$pidfile" ] || continue
      pid=$(cat "$pidfile")
      kill "$pid" 2>/dev/null || true
      rm -f "$pidfile" "${pidfile%.pid}.url"
    done
    ;;
  *)
    echo "usage: agents.sh start DIR JAVA JAR NAME=FQCN... | stop DIR" >&2
    exit 2
    ;;
esac
