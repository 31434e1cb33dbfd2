# Sourced by .ci/run: starts a throwaway PostgreSQL cluster on a loopback port
# in a temp dir and exports AGT_TEST_PG_URL; stop_postgres ends it.
# Installs Debian's postgresql package if it is missing (CI runs as root).
start_postgres() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
    if [ "$(id -u)" != 0 ]; then echo "postgres: not installed and not root; PostgreSQL tests will be skipped"; return 0; fi
    echo "postgres: installing Debian's postgresql package"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  local run_as=()
  if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi  # postgres refuses to run as root
  PG_DIR=$(mktemp -d /tmp/agt-pg.XXXXXX)
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  "${run_as[@]}" "$bin/initdb" -D "$PG_DIR/data" -A trust -U agt >/dev/null
  "${run_as[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w -o "-p $port -h 127.0.0.1 -k $PG_DIR -c fsync=off" start >/dev/null
  "${run_as[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U agt agt_test
  PG_CTL=("${run_as[@]}" "$bin/pg_ctl" -D "$PG_DIR/data")
  export AGT_TEST_PG_URL="postgres://agt@127.0.0.1:$port/agt_test"
  echo "postgres: running on 127.0.0.1:$port"
}

stop_postgres() {
  if [ -n "${PG_DIR:-}" ]; then
    "${PG_CTL[@]}" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}
