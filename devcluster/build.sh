#!/usr/bin/env bash
# devcluster/build.sh — build the dev-cluster binaries into a per-version cache OUTSIDE the repository.
# Idempotent: a component whose cache entry is complete is skipped, so a second run builds nothing.
# One component failing does not stop the others; status/<name>.json says why (read by devcluster/build.py).
# Usage: build.sh [COMPONENT...]   (default: all, in dependency-free order, largest first)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); . "$HERE/versions.env"; . "$HERE/checks.sh"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
ROOT=${JA_DEVCLUSTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jupyter-accel/devcluster}
mkdir -p "$ROOT/status"
GOID="$(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"

entry() {  # entry NAME VERSION [FILES...] -> cache dir keyed by version, Go toolchain and wrapper files
  local n=$1 v=$2; shift 2
  echo "$ROOT/$n-$v-$( { echo "$GOID"; [ $# -eq 0 ] || cat "$@"; } | sha256sum | cut -c1-12)"
}

status() {  # status NAME ok|failed VERSION DIR-or-LOG
  python3 - "$ROOT/status/$1.json" "$@" <<'PY'
import json, sys, time
path, name, result, version, where = sys.argv[1:6]
rec = {"component": name, "result": result, "version": version, "time": int(time.time())}
if result == "ok":
    rec["dir"] = where
else:
    rec["log"] = where
    rec["error_tail"] = open(where, errors="replace").read()[-3000:]
json.dump(rec, open(path, "w"), indent=1)
PY
}

attempt() {  # attempt FUNCTION BIN LOG: run a build function; a failure leaves its exit status in the log
  local rc=0
  ( "$1" "$2" ) >>"$3" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || echo "build step $1 failed with exit status $rc (the lines above say where)" >>"$3"
  return "$rc"
}

build() {  # build NAME VERSION DEST FUNCTION — FUNCTION gets the output bin dir as $1
  local n=$1 v=$2 dest=$3 fn=$4 log="$ROOT/status/$1.log" t0=$SECONDS
  if [ -f "$dest/.complete" ]; then echo "cached  $n $v"; status "$n" ok "$v" "$dest"; return 0; fi
  local tmp="$dest.partial.$$"; rm -rf "$tmp"; mkdir -p "$tmp/bin"
  echo "build   $n $v  (log: $log)"
  : >"$log"
  local ok=0
  if attempt "$fn" "$tmp/bin" "$log"; then ok=1
  elif transient "$log"; then  # a module download that failed on the network: once more
    echo "retrying $n once: a module download failed on the network" | tee -a "$log"
    rm -rf "$tmp"; mkdir -p "$tmp/bin"
    attempt "$fn" "$tmp/bin" "$log" && ok=1
  fi
  if [ "$ok" = 1 ]; then
    echo "$((SECONDS - t0))" > "$tmp/build-seconds"; touch "$tmp/.complete"
    rm -rf "$dest"; mv "$tmp" "$dest"; status "$n" ok "$v" "$dest"
    echo "done    $n in $((SECONDS - t0)) s"
  else
    rm -rf "$tmp"; status "$n" failed "$v" "$log"; echo "FAILED  $n after $((SECONDS - t0)) s (see $log)"
    FAILED=1
  fi
}

k8s_ldflags() {  # stamp the version: without it Kueue cannot parse the server version and exits
  local minor=${K8S_VERSION#*.}; minor=${minor%%.*} ld="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
    ld+=" -X $p.gitCommit=0000000000000000000000000000000000000000 -X $p.buildDate=2026-01-01T00:00:00Z"
  done
  echo "$ld"
}
b_apiserver() {
  cd "$HERE/k8s" && go build -trimpath -ldflags "$(k8s_ldflags)" -o "$1/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl &&
  prints -x "Kubernetes v$K8S_VERSION" "$1/kube-apiserver" --version
}
b_controlplane() {
  cd "$HERE/k8s" && go build -trimpath -ldflags "$(k8s_ldflags)" -o "$1/" \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler &&
  prints -x "Kubernetes v$K8S_VERSION" "$1/kube-scheduler" --version
}
b_etcd() {
  cd "$HERE/etcd" && go build -trimpath -ldflags "-s -w" -o "$1/etcd" go.etcd.io/etcd/server/v3 &&
  prints -F "etcd Version: $ETCD_VERSION" "$1/etcd" --version
}
wrapped() {  # wrapped DIR PKG OUT — build PKG through a committed wrapper module if one exists
  local dir=$1 pkg=$2 out=$3
  cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$out" "$pkg"
}
b_kwok() {
  if [ -f "$HERE/kwok/go.mod" ]; then wrapped "$HERE/kwok" sigs.k8s.io/kwok/cmd/kwok "$1/kwok"
  else GOBIN=$1 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION"; fi
}
b_kueue() {
  if [ -f "$HERE/kueue/go.mod" ]; then wrapped "$HERE/kueue" sigs.k8s.io/kueue/cmd/kueue "$1/kueue"
  else GOBIN=$1 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kueue/cmd/kueue@v$KUEUE_VERSION"; fi
}
b_kuberay() {
  if [ -f "$HERE/kuberay/go.mod" ]; then wrapped "$HERE/kuberay" github.com/ray-project/kuberay/ray-operator "$1/ray-operator"
  else GOBIN=$1 go install -trimpath -ldflags "-s -w" "github.com/ray-project/kuberay/ray-operator@v$KUBERAY_VERSION"; fi
}
b_trainop() {
  local p=github.com/kubeflow/training-operator/cmd/training-operator.v1
  if [ -f "$HERE/training-operator/go.mod" ]; then wrapped "$HERE/training-operator" "$p" "$1/training-operator.v1"
  else GOBIN=$1 go install -trimpath -ldflags "-s -w" "$p@v$TRAINING_OPERATOR_VERSION"; fi
}
moddir() {  # moddir MODULE@VERSION -> its directory in the module cache (downloaded on a miss)
  go mod download -json "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'
}
b_jobset() {  # built in its module directory: `go install sigs.k8s.io/jobset@v…` is refused here (403 on the
  # module's version list), while the exact version downloads
  local d; d=$(moddir "sigs.k8s.io/jobset@v$JOBSET_VERSION") &&
  cd "$d" && go build -trimpath -ldflags "-s -w" -o "$1/jobset" .
}
b_prometheus() {  # built in its module directory (its own go.mod, outside any workspace); the API only, no UI
  local d; d=$(moddir "github.com/prometheus/prometheus@v$PROMETHEUS_VERSION") &&
  cd "$d" && GOWORK=off go build -trimpath -ldflags "-s -w" -o "$1/prometheus" ./cmd/prometheus &&
  prints -F "prometheus" "$1/prometheus" --version
}
b_trainer() {
  GOBIN=$1 go install -trimpath -ldflags "-s -w" \
    "github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager@v$TRAINER_VERSION"
}

# ---- the real node: kubelet + a device plugin (k8s wrapper module), containerd, runc, CNI plugins, CoreDNS ----
b_kubelet() {  # also the CRI sandbox ("pause") binary, from the same module's build/pause/linux/pause.c
  cd "$HERE/kubelet" && go build -trimpath -ldflags "$(k8s_ldflags)" -o "$1/" \
    k8s.io/kubernetes/cmd/kubelet ./deviceplugin &&
  prints -x "Kubernetes v$K8S_VERSION" "$1/kubelet" --version &&
  gcc -Os -static -DVERSION="v3.10-devcluster" -o "$1/pause" \
    "$(go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c"
}
b_containerd() {
  local m=github.com/containerd/containerd/v2
  GOBIN=$1 go install -trimpath -ldflags "-s -w -X $m/version.Version=v$CONTAINERD_VERSION" \
    "$m/cmd/containerd@v$CONTAINERD_VERSION" "$m/cmd/containerd-shim-runc-v2@v$CONTAINERD_VERSION" \
    "$m/cmd/ctr@v$CONTAINERD_VERSION"
}
b_runc() {  # cgo: runc's nsenter is C, and seccomp needs Debian's libseccomp-dev
  CGO_ENABLED=1 GOBIN=$1 go install -trimpath -tags seccomp -ldflags "-s -w" \
    "github.com/opencontainers/runc@v$RUNC_VERSION" && "$1/runc" --version
}
b_cni() {
  local m=github.com/containernetworking/plugins/plugins
  GOBIN=$1 go install -trimpath -ldflags "-s -w" "$m/main/bridge@v$CNI_PLUGINS_VERSION" \
    "$m/main/loopback@v$CNI_PLUGINS_VERSION" "$m/ipam/host-local@v$CNI_PLUGINS_VERSION"
}
b_coredns() { wrapped "$HERE/coredns" . "$1/coredns"; }
b_image() {  # a Debian rootfs with Python and ray[default], as an OCI archive (no registry involved)
  bash "$HERE/node-image.sh" "$1"
}
b_workbench() { bash "$HERE/workbench-image.sh" "$1"; }  # the real workbench's base layer (JupyterLab, Ray client)

key() { local d=$HERE/$1; [ -f "$d/go.mod" ] && echo "$d/go.mod $d/go.sum"; }
FAILED=0
NODE_PARTS="kubelet containerd runc cni-plugins coredns node-image workbench-image"
want=${*:-"kube-apiserver etcd kwok kube-controlplane kueue kuberay training-operator jobset trainer-controller prometheus $NODE_PARTS"}
# shellcheck disable=SC2046
for c in $want; do case $c in
  kube-apiserver)    build kube-apiserver "$K8S_VERSION" "$(entry kube-apiserver "$K8S_VERSION" $(key k8s))" b_apiserver ;;
  kube-controlplane) build kube-controlplane "$K8S_VERSION" "$(entry kube-controlplane "$K8S_VERSION" $(key k8s))" b_controlplane ;;
  etcd)              build etcd "$ETCD_VERSION" "$(entry etcd "$ETCD_VERSION" $(key etcd))" b_etcd ;;
  kwok)              build kwok "$KWOK_VERSION" "$(entry kwok "$KWOK_VERSION" $(key kwok))" b_kwok ;;
  kueue)             build kueue "$KUEUE_VERSION" "$(entry kueue "$KUEUE_VERSION" $(key kueue))" b_kueue ;;
  kuberay)           build kuberay "$KUBERAY_VERSION" "$(entry kuberay "$KUBERAY_VERSION" $(key kuberay))" b_kuberay ;;
  training-operator) build training-operator "$TRAINING_OPERATOR_VERSION" "$(entry training-operator "$TRAINING_OPERATOR_VERSION" $(key training-operator))" b_trainop ;;
  jobset)            build jobset "$JOBSET_VERSION" "$(entry jobset "$JOBSET_VERSION")" b_jobset ;;
  trainer-controller) build trainer-controller "$TRAINER_VERSION" "$(entry trainer-controller "$TRAINER_VERSION")" b_trainer ;;
  prometheus)        build prometheus "$PROMETHEUS_VERSION" "$(entry prometheus "$PROMETHEUS_VERSION")" b_prometheus ;;
  kubelet)           build kubelet "$K8S_VERSION" "$(entry kubelet "$K8S_VERSION" $(key kubelet) "$HERE/kubelet/deviceplugin/main.go")" b_kubelet ;;
  containerd)        build containerd "$CONTAINERD_VERSION" "$(entry containerd "$CONTAINERD_VERSION")" b_containerd ;;
  runc)              build runc "$RUNC_VERSION" "$(entry runc "$RUNC_VERSION")" b_runc ;;
  cni-plugins)       build cni-plugins "$CNI_PLUGINS_VERSION" "$(entry cni-plugins "$CNI_PLUGINS_VERSION")" b_cni ;;
  coredns)           build coredns "$COREDNS_VERSION" "$(entry coredns "$COREDNS_VERSION" $(key coredns) "$HERE/coredns/main.go")" b_coredns ;;
  node-image)        build node-image "$RAY_VERSION" "$(entry node-image "$RAY_VERSION-$NODE_IMAGE_SUITE" "$HERE/node-image.sh" "$HERE/rootfs.sh")" b_image ;;
  workbench-image)   build workbench-image "$WORKBENCH_JUPYTERLAB_VERSION" "$(entry workbench-image "$WORKBENCH_JUPYTERLAB_VERSION-$WORKBENCH_JUPYTER_SERVER_VERSION-$RAY_VERSION-$NODE_IMAGE_SUITE" "$HERE/workbench-image.sh" "$HERE/rootfs.sh")" b_workbench ;;
  *) echo "unknown component $c"; FAILED=1 ;;
esac; done
echo "status files: $ROOT/status/"
exit $FAILED
