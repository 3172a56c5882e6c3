#!/usr/bin/env bash
# Local Apache Kafka (KRaft) and Apache Cassandra servers as plain JVM
# processes, for development and integration tests. No Docker needed: the
# server jars come from Maven Central through deploy/local/pom.xml.
#
# Usage: servers.sh fetch
#        servers.sh start  [kafka|cassandra|all|cluster|kafkaN|cassandraN]
#        servers.sh wait   [kafka|cassandra|all|cluster|kafkaN|cassandraN]
#        servers.sh stop   [kafka|cassandra|all|cluster|kafkaN|cassandraN]
#        servers.sh status [kafka|cassandra|all|cluster|kafkaN|cassandraN]
#        servers.sh clean            # stop, then delete run/ (data and logs)
#
# `cluster` is three Kafka brokers (kafka1-3) and three Cassandra nodes (cassandra1-3),
# node N on 127.0.0.N, all with the same ports (AIMEM_CLUSTER_* below).
#
# See README.md next to this file for ports, environment variables and
# measured start-up times.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE_DIR="${AIMEM_LOCAL_CACHE:-$HERE/.cache}"
RUN_DIR="${AIMEM_LOCAL_RUN:-$HERE/run}"

KAFKA_PORT="${AIMEM_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${AIMEM_KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
KAFKA_HEAP="${AIMEM_KAFKA_HEAP:-512m}"

CASSANDRA_PORT="${AIMEM_CASSANDRA_PORT:-9042}"
CASSANDRA_STORAGE_PORT="${AIMEM_CASSANDRA_STORAGE_PORT:-7000}"
CASSANDRA_SSL_STORAGE_PORT="${AIMEM_CASSANDRA_SSL_STORAGE_PORT:-$((CASSANDRA_STORAGE_PORT + 1))}"
CASSANDRA_JMX_PORT="${AIMEM_CASSANDRA_JMX_PORT:-7199}"
CASSANDRA_HEAP="${AIMEM_CASSANDRA_HEAP:-1G}"
# Cassandra mlockall()s its memory at start-up (JNA), which makes every
# committed heap page resident: a small initial heap keeps the idle RSS and
# the start-up time down.
CASSANDRA_HEAP_MIN="${AIMEM_CASSANDRA_HEAP_MIN:-256M}"

# Cassandra commit log: `batch` (default) and `group` acknowledge a write after its
# fsync (batch: as soon as possible, with whatever arrived meanwhile; group: once per
# window); `periodic` acknowledges before it (faster, loses writes on SIGKILL).
# Measured in loadtest/RESULTS.md ("Durable commit log").
CASSANDRA_COMMITLOG="${AIMEM_CASSANDRA_COMMITLOG:-batch}"
CASSANDRA_COMMITLOG_WINDOW="${AIMEM_CASSANDRA_COMMITLOG_WINDOW:-15ms}"

# JIT of both JVMs: `c1` (default here) compiles with the client compiler only; `tiered`
# is the JVM's own default (C1, then C2 for hot code). A young JVM's C2 spends more CPU
# compiling, for minutes, than the servers spend serving on a 2-core box, and these
# servers are short-lived (tests, benchmarks); C2's faster code pays off only for nodes
# that live long. Measured in loadtest/RESULTS.md ("The JVMs' JIT").
JVM_JIT="${AIMEM_JVM_JIT:-c1}"

# The three-node cluster: node N listens on 127.0.0.N; every node uses these ports
# (JMX, which binds 127.0.0.1 only, gets one port per node: base + N).
CLUSTER_KAFKA_PORT="${AIMEM_CLUSTER_KAFKA_PORT:-19092}"
CLUSTER_KAFKA_CONTROLLER_PORT="${AIMEM_CLUSTER_KAFKA_CONTROLLER_PORT:-$((CLUSTER_KAFKA_PORT + 1))}"
CLUSTER_KAFKA_HEAP="${AIMEM_CLUSTER_KAFKA_HEAP:-384m}"
CLUSTER_CASSANDRA_PORT="${AIMEM_CLUSTER_CASSANDRA_PORT:-19042}"
CLUSTER_CASSANDRA_STORAGE_PORT="${AIMEM_CLUSTER_CASSANDRA_STORAGE_PORT:-17000}"
CLUSTER_CASSANDRA_JMX_PORT="${AIMEM_CLUSTER_CASSANDRA_JMX_PORT:-17200}"
CLUSTER_CASSANDRA_HEAP="${AIMEM_CLUSTER_CASSANDRA_HEAP:-768M}"

KEEP_DATA="${AIMEM_KEEP_DATA:-0}"
WAIT_TIMEOUT="${AIMEM_WAIT_TIMEOUT:-180}"
STOP_TIMEOUT="${AIMEM_STOP_TIMEOUT:-60}"

KAFKA_LIB="$CACHE_DIR/kafka/lib"
CASSANDRA_LIB="$CACHE_DIR/cassandra/lib"

log() { printf '[servers] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- Java 17

java_major() {
    # Prints the major version of the java binary in JDK home $1.
    "$1/bin/java" -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p'
}

find_java_home() {
    # Both servers run on Java 17: Cassandra 5.0 supports only 11 and 17, and
    # a newer JDK may be first on PATH. AIMEM_JAVA_HOME is used as given.
    if [[ -n "${AIMEM_JAVA_HOME:-}" ]]; then
        printf '%s\n' "$AIMEM_JAVA_HOME"
        return
    fi
    local candidates=() c java_bin
    [[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
    for c in /usr/lib/jvm/*17* /usr/lib/jvm/*-17-* /opt/java/*17* /opt/*jdk*17*; do
        [[ -d "$c" ]] && candidates+=("$c")
    done
    if java_bin="$(command -v java 2>/dev/null)"; then
        java_bin="$(readlink -f "$java_bin")"
        candidates+=("$(dirname "$(dirname "$java_bin")")")
    fi
    for c in "${candidates[@]}"; do
        if [[ -x "$c/bin/java" && "$(java_major "$c")" == "17" ]]; then
            printf '%s\n' "$c"
            return
        fi
    done
    die "no Java 17 found (looked at JAVA_HOME, /usr/lib/jvm, PATH); set AIMEM_JAVA_HOME"
}

JAVA=""
java_bin() {
    if [[ -z "$JAVA" ]]; then
        JAVA="$(find_java_home)/bin/java"
    fi
    printf '%s\n' "$JAVA"
}

# ------------------------------------------------------------------ fetch

pom_hash() { sha256sum "$HERE/pom.xml" | cut -c1-16; }

fetch_one() {
    # fetch_one NAME: copies the runtime classpath of Maven profile NAME into
    # $CACHE_DIR/NAME/lib. Skipped when the cache was filled from this pom.
    local name="$1" dest="$CACHE_DIR/$1" stamp hash tmp
    stamp="$dest/.fetched"
    hash="$(pom_hash)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -d "$dest/lib" ]]; then
        log "$name: cached ($dest/lib)"
        return
    fi
    command -v mvn >/dev/null || die "mvn not found"
    log "$name: fetching from Maven into $dest/lib"
    tmp="$dest/lib.tmp"
    rm -rf "$tmp"
    mkdir -p "$dest"
    # Maven's output goes to a log file and is shown only when it fails.
    # shellcheck disable=SC2086  # AIMEM_MVN_ARGS is a list of extra flags
    if ! mvn -B -Dstyle.color=never -f "$HERE/pom.xml" -P "$name" ${AIMEM_MVN_ARGS:-} \
        dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" >"$dest/fetch.log" 2>&1; then
        tail -n 40 "$dest/fetch.log" >&2
        die "$name: mvn dependency:copy-dependencies failed (log $dest/fetch.log)"
    fi
    rm -rf "${dest:?}/lib"
    mv "$tmp" "$dest/lib"
    printf '%s\n' "$hash" >"$stamp"
}

cmd_fetch() {
    fetch_one kafka
    fetch_one cassandra
}

# ------------------------------------------------------------- processes

pid_file() { printf '%s/%s.pid\n' "$RUN_DIR" "$1"; }
log_file() { printf '%s/%s.log\n' "$RUN_DIR" "$1"; }

kind_of() { printf '%s\n' "${1%[0-9]}"; }
node_of() { [[ "$1" =~ ([1-3])$ ]] && printf '%s\n' "${BASH_REMATCH[1]}" || printf '0\n'; }

# use_node SVC: sets the addresses, ports and directory of a server. `kafka` and
# `cassandra` are the single-node servers; `kafkaN`/`cassandraN` (N = 1-3) the cluster's.
use_node() {
    local n
    n="$(node_of "$1")"
    NODE="$n"
    if [[ "$n" == 0 ]]; then
        HOST=127.0.0.1
        SVC_DIR="$RUN_DIR/$1"
        K_PORT="$KAFKA_PORT" K_CTRL="$KAFKA_CONTROLLER_PORT" K_HEAP="$KAFKA_HEAP"
        C_PORT="$CASSANDRA_PORT" C_STORAGE="$CASSANDRA_STORAGE_PORT"
        C_SSL="$CASSANDRA_SSL_STORAGE_PORT" C_JMX="$CASSANDRA_JMX_PORT" C_HEAP="$CASSANDRA_HEAP"
        C_SEEDS="127.0.0.1:$CASSANDRA_STORAGE_PORT"
    else
        HOST="127.0.0.$n"
        SVC_DIR="$RUN_DIR/cluster/$1"
        K_PORT="$CLUSTER_KAFKA_PORT" K_CTRL="$CLUSTER_KAFKA_CONTROLLER_PORT"
        K_HEAP="$CLUSTER_KAFKA_HEAP"
        C_PORT="$CLUSTER_CASSANDRA_PORT" C_STORAGE="$CLUSTER_CASSANDRA_STORAGE_PORT"
        C_SSL="$((CLUSTER_CASSANDRA_STORAGE_PORT + 1))" C_JMX="$((CLUSTER_CASSANDRA_JMX_PORT + n))"
        C_HEAP="$CLUSTER_CASSANDRA_HEAP"
        C_SEEDS="127.0.0.1:$CLUSTER_CASSANDRA_STORAGE_PORT"
    fi
    case "$(kind_of "$1")" in
        kafka) PORT="$K_PORT" ;;
        cassandra) PORT="$C_PORT" ;;
    esac
}

main_class() {
    case "$(kind_of "$1")" in
        kafka) printf '%s\n' 'kafka.Kafka' ;;
        cassandra) printf '%s\n' 'org.apache.cassandra.service.CassandraDaemon' ;;
    esac
}

running_pid() {
    # Prints the pid of service $1 if its JVM is alive: the pid file names a
    # live process (not a zombie) that runs this service's main class.
    local f pid stat args
    f="$(pid_file "$1")"
    [[ -f "$f" ]] || return 1
    pid="$(cat "$f")"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    read -r stat args < <(ps -ww -o stat=,args= -p "$pid" 2>/dev/null) || return 1
    [[ "$stat" != Z* && "$args" == *" $(main_class "$1")"* ]] || return 1
    printf '%s\n' "$pid"
}

port_open() {
    # port_open PORT [HOST]: true if something accepts TCP connections there.
    (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

render() {
    # render TEMPLATE OUT KEY=VALUE...: replaces @KEY@ with VALUE.
    local template="$1" out="$2" expr=() kv
    shift 2
    for kv in "$@"; do
        expr+=(-e "s|@${kv%%=*}@|${kv#*=}|g")
    done
    sed "${expr[@]}" "$template" >"$out"
}

prepare_data_dir() {
    local dir="$1"
    if [[ "$KEEP_DATA" != "1" ]]; then
        rm -rf "$dir"
    fi
    mkdir -p "$dir"
}

start_kafka() {
    local svc="${1:-kafka}" dir java props cluster_id pid p voters
    use_node "$svc"
    set_jit_opts
    dir="$SVC_DIR"
    if pid="$(running_pid "$svc")"; then
        log "$svc: already running (pid $pid)"
        return
    fi
    for p in "$K_PORT" "$K_CTRL"; do
        port_open "$p" "$HOST" && die "$svc: port $HOST:$p is already in use"
    done
    fetch_one kafka
    java="$(java_bin)"
    mkdir -p "$dir"
    prepare_data_dir "$dir/data"
    props="$dir/server.properties"
    if [[ "$NODE" == 0 ]]; then
        render "$HERE/kafka/server.properties" "$props" \
            "KAFKA_PORT=$K_PORT" "CONTROLLER_PORT=$K_CTRL" "DATA_DIR=$dir/data"
    else
        voters="1@127.0.0.1:$K_CTRL,2@127.0.0.2:$K_CTRL,3@127.0.0.3:$K_CTRL"
        render "$HERE/kafka/cluster.properties" "$props" \
            "NODE_ID=$NODE" "VOTERS=$voters" "HOST=$HOST" \
            "KAFKA_PORT=$K_PORT" "CONTROLLER_PORT=$K_CTRL" "DATA_DIR=$dir/data"
    fi
    local jvm_common=(
        -Djava.awt.headless=true
        -Djava.net.preferIPv4Stack=true
        "-Dlog4j2.configurationFile=$HERE/kafka/log4j2.properties"
        "-Dkafka.logs.dir=$dir/logs"
        -cp "$KAFKA_LIB/*"
    )
    if [[ ! -f "$dir/data/meta.properties" ]]; then
        # A fresh KRaft log dir must be formatted with a cluster id first; the nodes of
        # the cluster share one (run/cluster/kafka.cluster-id).
        cluster_id="$(new_cluster_id)"
        if [[ "$NODE" != 0 ]]; then
            [[ -f "$RUN_DIR/cluster/kafka.cluster-id" ]] ||
                printf '%s\n' "$cluster_id" >"$RUN_DIR/cluster/kafka.cluster-id"
            cluster_id="$(cat "$RUN_DIR/cluster/kafka.cluster-id")"
        fi
        log "$svc: formatting $dir/data (cluster id $cluster_id)"
        "$java" -Xmx256m "${jvm_common[@]}" kafka.tools.StorageTool format \
            --cluster-id "$cluster_id" --config "$props" --ignore-formatted \
            >"$RUN_DIR/$svc-format.log" 2>&1 ||
            { cat "$RUN_DIR/$svc-format.log" >&2; die "$svc: storage format failed"; }
    fi
    now_ms >"$RUN_DIR/$svc.started"
    nohup "$java" "-Xms$K_HEAP" "-Xmx$K_HEAP" "${JIT_OPTS[@]}" \
        -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
        -XX:+ExplicitGCInvokesConcurrent \
        "-XX:ErrorFile=$dir/hs_err_%p.log" \
        "${jvm_common[@]}" kafka.Kafka "$props" \
        >"$(log_file "$svc")" 2>&1 </dev/null &
    echo $! >"$(pid_file "$svc")"
    log "$svc: started (pid $!, $HOST:$K_PORT, log $(log_file "$svc"))"
}

new_cluster_id() {
    # Kafka ids are 16 random bytes, base64url without padding, not starting with '-'
    # (the same rule as Uuid.randomUuid()).
    local id="-"
    while [[ "$id" == -* ]]; do
        id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    done
    printf '%s\n' "$id"
}

set_jit_opts() {  # JIT_OPTS: the flags of AIMEM_JVM_JIT
    case "$JVM_JIT" in
        c1) JIT_OPTS=(-XX:TieredStopAtLevel=1) ;;
        tiered) JIT_OPTS=() ;;
        *) die "AIMEM_JVM_JIT must be c1 or tiered" ;;
    esac
}

commitlog_lines() {
    case "$CASSANDRA_COMMITLOG" in
        group) printf 'commitlog_sync: group\\ncommitlog_sync_group_window: %s' \
            "$CASSANDRA_COMMITLOG_WINDOW" ;;
        batch) printf 'commitlog_sync: batch' ;;
        periodic) printf 'commitlog_sync: periodic\\ncommitlog_sync_period: 10000ms' ;;
        *) die "AIMEM_CASSANDRA_COMMITLOG must be batch, group or periodic" ;;
    esac
}

start_cassandra() {
    local svc="${1:-cassandra}" dir java pid opts=() line jamm p
    use_node "$svc"
    set_jit_opts
    dir="$SVC_DIR"
    if pid="$(running_pid "$svc")"; then
        log "$svc: already running (pid $pid)"
        return
    fi
    for p in "$C_PORT" "$C_STORAGE"; do
        port_open "$p" "$HOST" && die "$svc: port $HOST:$p is already in use"
    done
    port_open "$C_JMX" && die "$svc: JMX port $C_JMX is already in use"
    fetch_one cassandra
    java="$(java_bin)"
    mkdir -p "$dir"
    prepare_data_dir "$dir/data"
    mkdir -p "$dir/logs" "$dir/triggers"
    render "$HERE/cassandra/cassandra.yaml" "$dir/cassandra.yaml" \
        "CQL_PORT=$C_PORT" "STORAGE_PORT=$C_STORAGE" "HOST=$HOST" "SEEDS=$C_SEEDS" \
        "SSL_STORAGE_PORT=$C_SSL" "DATA_DIR=$dir/data" "COMMITLOG=$(commitlog_lines)"
    while IFS= read -r line || [[ -n "$line" ]]; do
        line="${line%%#*}"
        line="${line#"${line%%[![:space:]]*}"}"
        line="${line%"${line##*[![:space:]]}"}"
        [[ -n "$line" ]] && opts+=("$line")
    done <"$HERE/cassandra/jvm17-server.options"
    # Cassandra measures object sizes with jamm; the distribution loads it as
    # an agent.
    jamm="$(compgen -G "$CASSANDRA_LIB/jamm-*.jar" | head -n 1)" ||
        die "cassandra: jamm jar missing from $CASSANDRA_LIB"
    now_ms >"$RUN_DIR/$svc.started"
    nohup "$java" "${opts[@]}" "${JIT_OPTS[@]}" \
        "-Xms$CASSANDRA_HEAP_MIN" "-Xmx$C_HEAP" \
        "-javaagent:$jamm" \
        "-XX:HeapDumpPath=$dir" "-XX:ErrorFile=$dir/hs_err_%p.log" \
        "-Dcassandra.config=file://$dir/cassandra.yaml" \
        "-Dlogback.configurationFile=$HERE/cassandra/logback.xml" \
        "-Dcassandra.logdir=$dir/logs" \
        "-Dcassandra.storagedir=$dir/data" \
        "-Dcassandra.triggers_dir=$dir/triggers" \
        "-Dcassandra.jmx.local.port=$C_JMX" \
        "-Dcom.sun.management.jmxremote.rmi.port=$C_JMX" \
        -Dcassandra-foreground=yes \
        -cp "$CASSANDRA_LIB/*" org.apache.cassandra.service.CassandraDaemon \
        >"$(log_file "$svc")" 2>&1 </dev/null &
    echo $! >"$(pid_file "$svc")"
    log "$svc: started (pid $!, $HOST:$C_PORT, log $(log_file "$svc"))"
}

# ------------------------------------------------------------- readiness

be16() { printf '\\x%02x\\x%02x' $(($1 >> 8 & 255)) $(($1 & 255)); }
be32() { printf '%s%s' "$(be16 $(($1 >> 16 & 65535)))" "$(be16 $(($1 & 65535)))"; }

kafka_probe() {
    # Sends a Metadata request (v4, all topics) and succeeds if the answer
    # lists at least one broker.
    local body bytes
    # api_key=3 api_version=4 correlation_id=1 client_id="aimem"
    # topics=null allow_auto_topic_creation=false
    body="$(be16 3)$(be16 4)$(be32 1)$(be16 5)aimem$(be32 4294967295)\\x00"
    bytes=$(
        exec 2>/dev/null 3<>"/dev/tcp/$HOST/$K_PORT" || exit 1
        # shellcheck disable=SC2059  # the format is built from escapes above
        printf "$(be32 20)${body}" >&3
        timeout 5 head -c 16 <&3 | od -An -v -tu1
    ) || return 1
    read -ra b <<<"$bytes"
    # size(4) correlation_id(4) throttle_time_ms(4) broker_count(4)
    [[ ${#b[@]} -eq 16 ]] || return 1
    (( (b[12] << 24 | b[13] << 16 | b[14] << 8 | b[15]) >= 1 ))
}

cql_frame() {
    # cql_frame OPCODE BODY_ESCAPES BODY_LENGTH: a native protocol v4 frame.
    printf '\\x04\\x00\\x00\\x01\\x%02x%s%s' "$1" "$(be32 "$3")" "$2"
}

cassandra_probe() {
    # Native protocol v4: STARTUP, expect READY; then
    # SELECT release_version FROM system.local, expect RESULT.
    local query="SELECT release_version FROM system.local" startup q bytes
    startup="$(be16 1)$(be16 11)CQL_VERSION$(be16 5)3.0.0"
    q="$(be32 ${#query})${query}$(be16 1)\\x00"
    bytes=$(
        exec 2>/dev/null 3<>"/dev/tcp/$HOST/$C_PORT" || exit 1
        # shellcheck disable=SC2059
        printf "$(cql_frame 1 "$startup" 22)" >&3
        ready="$(timeout 5 head -c 9 <&3 | od -An -v -tu1)"
        read -ra r <<<"$ready"
        [[ ${#r[@]} -eq 9 && ${r[4]} -eq 2 ]] || exit 1
        # shellcheck disable=SC2059
        printf "$(cql_frame 7 "$q" $((4 + ${#query} + 3)))" >&3
        timeout 5 head -c 9 <&3 | od -An -v -tu1
    ) || return 1
    read -ra b <<<"$bytes"
    # version(1) flags(1) stream(2) opcode(1): 8 = RESULT
    [[ ${#b[@]} -eq 9 && ${b[4]} -eq 8 ]]
}

ready_line() {
    case "$(kind_of "$1")" in
        kafka) printf '%s\n' 'Kafka Server started' ;;
        cassandra) printf '%s\n' 'Starting listening for CQL clients' ;;
    esac
}

is_ready() {
    use_node "$1"
    grep -q "$(ready_line "$1")" "$(log_file "$1")" 2>/dev/null || return 1
    "$(kind_of "$1")_probe"
}

wait_one() {
    local svc="$1" deadline started elapsed
    if ! running_pid "$svc" >/dev/null; then
        [[ -f "$(log_file "$svc")" ]] && tail -n 40 "$(log_file "$svc")" >&2
        die "$svc: not running (log $(log_file "$svc"))"
    fi
    deadline=$(($(date +%s) + WAIT_TIMEOUT))
    until is_ready "$svc"; do
        if ! running_pid "$svc" >/dev/null; then
            tail -n 40 "$(log_file "$svc")" >&2 || true
            die "$svc: process exited before it was ready (log $(log_file "$svc"))"
        fi
        if (($(date +%s) >= deadline)); then
            tail -n 40 "$(log_file "$svc")" >&2 || true
            die "$svc: not ready after ${WAIT_TIMEOUT}s (log $(log_file "$svc"))"
        fi
        sleep 0.5
    done
    started="$(cat "$RUN_DIR/$svc.started" 2>/dev/null || now_ms)"
    elapsed=$(($(now_ms) - started))
    log "$svc: ready ($((elapsed / 1000)).$(printf '%03d' $((elapsed % 1000)))s after start)"
}

# ------------------------------------------------------------------ stop

stop_one() {
    local svc="$1" pid deadline
    if ! pid="$(running_pid "$svc")"; then
        log "$svc: not running"
        rm -f "$(pid_file "$svc")"
        return
    fi
    log "$svc: stopping (pid $pid, SIGTERM)"
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$(($(date +%s) + STOP_TIMEOUT))
    while kill -0 "$pid" 2>/dev/null; do
        if (($(date +%s) >= deadline)); then
            log "$svc: still alive after ${STOP_TIMEOUT}s, SIGKILL"
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -f "$(pid_file "$svc")"
    log "$svc: stopped"
}

status_one() {
    local svc="$1" pid port rss
    use_node "$svc"
    port="$HOST:$PORT"
    if pid="$(running_pid "$svc")"; then
        rss="$(ps -o rss= -p "$pid" | tr -d ' ')"
        if is_ready "$svc"; then
            printf '%-10s ready    pid %-8s %-16s rss %s MiB\n' "$svc" "$pid" "$port" "$((rss / 1024))"
        else
            printf '%-10s starting pid %-8s %-16s rss %s MiB\n' "$svc" "$pid" "$port" "$((rss / 1024))"
        fi
    else
        printf '%-10s stopped\n' "$svc"
        return 1
    fi
}

# ------------------------------------------------------------------ main

services() {
    case "${1:-all}" in
        all) printf '%s\n' kafka cassandra ;;
        cluster) printf '%s\n' kafka1 kafka2 kafka3 cassandra1 cassandra2 cassandra3 ;;
        kafka | cassandra | kafka[1-3] | cassandra[1-3]) printf '%s\n' "$1" ;;
        *) die "unknown server '$1' (kafka, cassandra, all, cluster, kafkaN, cassandraN)" ;;
    esac
}

usage() {
    sed -n '2,/^set /{/^#/{s/^# \{0,1\}//;p}}' "${BASH_SOURCE[0]}" >&2
    exit 2
}

main() {
    local cmd="${1:-}" svc svcs rc=0
    [[ $# -gt 0 ]] && shift
    case "$cmd" in
        start | wait | stop | status) svcs="$(services "$@")" || exit 2 ;;
    esac
    case "$cmd" in
        fetch) cmd_fetch ;;
        start)
            mkdir -p "$RUN_DIR"
            if [[ "${1:-}" == cluster ]]; then
                mkdir -p "$RUN_DIR/cluster"
                # A fresh cluster gets a fresh Kafka cluster id.
                [[ "$KEEP_DATA" == 1 ]] || rm -f "$RUN_DIR/cluster/kafka.cluster-id"
            fi
            for svc in $svcs; do
                # Cassandra nodes join one at a time: each waits for the one before it.
                if [[ "$svc" == cassandra[23] ]]; then
                    wait_one "cassandra$(($(node_of "$svc") - 1))"
                fi
                "start_$(kind_of "$svc")" "$svc"
            done
            ;;
        wait) for svc in $svcs; do wait_one "$svc"; done ;;
        stop)
            # Stop in reverse start order.
            for svc in $(tac <<<"$svcs"); do stop_one "$svc"; done
            ;;
        status)
            for svc in $svcs; do status_one "$svc" || rc=1; done
            return "$rc"
            ;;
        clean)
            for svc in cassandra3 cassandra2 cassandra1 kafka3 kafka2 kafka1 cassandra kafka; do
                stop_one "$svc"
            done
            rm -rf "${RUN_DIR:?}"
            log "removed $RUN_DIR"
            ;;
        -h | --help | help | "") usage ;;
        *) usage ;;
    esac
}

main "$@"
