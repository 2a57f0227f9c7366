# devcluster/checks.sh — checks of a built binary, sourced by build.sh (and by tests/cluster/test_build_checks.py).
# A check reads a command's whole output first and then matches it: `cmd | grep -q` under `set -o pipefail` fails
# when grep exits at its first match and cmd then dies of SIGPIPE writing its next line (a fresh machine's first
# build of etcd failed that way, with nothing in its log). A failing check says why on stderr.

# prints GREP-FLAGS PATTERN CMD [ARGS...]: CMD exits 0 and prints a line matching PATTERN (grep -e with GREP-FLAGS)
prints() {
  local flags=$1 pattern=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "check failed: '$*' exited with status $rc; it printed: ${out:0:2000}" >&2
    return 1
  fi
  if ! grep $flags -e "$pattern" <<<"$out" >/dev/null; then
    echo "check failed: '$*' printed no line matching '$pattern' (grep $flags); it printed: ${out:0:2000}" >&2
    return 1
  fi
}

# transient LOG: the log shows a failure to download a module that a second try may not meet (the proxy's network,
# not the module): a timeout, a reset or refused connection, a 5xx, an unexpected EOF
transient() {
  grep -qE '(dial tcp|i/o timeout|connection reset|connection refused|TLS handshake timeout|unexpected EOF|(502|503|504) (Bad Gateway|Service Unavailable|Gateway Time-?out)|context deadline exceeded)' "$1"
}
