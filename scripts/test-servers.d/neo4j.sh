# shellcheck shell=bash
# Neo4j 5.26 LTS, run embedded from testenv/neo4j, is the Bolt + Cypher server
# the graph tests use in place of Memgraph. Sourced by scripts/test-servers.sh,
# which provides ROOT, STATE and free_port.

NEO4J_PROJECT="$ROOT/testenv/neo4j"
NEO4J_JAR="$NEO4J_PROJECT/target/neo4j-test-server.jar"

neo4j_tools() {
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    echo "installing a JDK and Maven for the Neo4j test server" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven >/dev/null
  fi
}

neo4j_build() {
  if [ -f "$NEO4J_JAR" ] && [ -z "$(find "$NEO4J_PROJECT/pom.xml" "$NEO4J_PROJECT/src" -newer "$NEO4J_JAR" -type f)" ]; then
    return 0
  fi
  echo "building the Neo4j test server (first run downloads it from Maven Central)" >&2
  # Offline first so a warm local repository never touches the network.
  (cd "$NEO4J_PROJECT" && { mvn -o -q -B package >/dev/null 2>&1 || mvn -q -B package; })
}

start_neo4j() {
  neo4j_tools
  neo4j_build
  local port dir pid
  port="$(free_port)"
  dir="$(mktemp -d -t regintel-neo4j.XXXXXX)"
  java -Xms256m -Xmx1g -XX:+UseSerialGC -jar "$NEO4J_JAR" "$port" "$dir/data" >"$dir/server.log" 2>&1 &
  pid=$!
  echo "$pid" >"$STATE/neo4j.pid"
  echo "$dir" >"$STATE/neo4j.dir"
  local deadline=$((SECONDS + 120))
  until grep -q "neo4j test server ready" "$dir/server.log" 2>/dev/null &&
    python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port),1).close()" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "neo4j test server exited; its log:" >&2; tail -50 "$dir/server.log" >&2; return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "neo4j test server not ready after 120s; its log:" >&2; tail -50 "$dir/server.log" >&2; return 1
    fi
    sleep 1
  done
  echo "export TEST_BOLT_URI=bolt://127.0.0.1:$port" >>"$STATE/env"
}

stop_neo4j() {
  [ -f "$STATE/neo4j.pid" ] || return 0
  local pid dir i
  pid="$(cat "$STATE/neo4j.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    # A clean shutdown takes a few seconds; do not leave it running.
    for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  if [ -f "$STATE/neo4j.dir" ]; then
    dir="$(cat "$STATE/neo4j.dir")"
    case "$dir" in */regintel-neo4j.*) rm -rf "$dir" ;; esac
  fi
  rm -f "$STATE/neo4j.pid" "$STATE/neo4j.dir"
}

EXTRA_SERVERS+=(neo4j)
