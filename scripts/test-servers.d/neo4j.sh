# shellcheck shell=bash
# Neo4j 5.26 LTS, run embedded from testservers/neo4j, is the Bolt + Cypher server
# the graph tests use in place of Memgraph. Sourced by scripts/test-servers.sh,
# which provides ROOT, STATE and free_port.

NEO4J_PROJECT="$ROOT/testservers/neo4j"
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
  wait_ready "neo4j test server" "$pid" "$dir" 120 neo4j_answers "$dir" "$port" || return 1
  echo "export TEST_BOLT_URI=bolt://127.0.0.1:$port" >>"$STATE/env"
}

# Ready once it has said so and Bolt accepts connections.
neo4j_answers() {
  grep -q "neo4j test server ready" "$1/server.log" &&
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$2),1).close()"
}

# A clean shutdown takes a few seconds; do not leave it running.
stop_neo4j() { stop_server neo4j 30; }

EXTRA_SERVERS+=(neo4j)
