#!/usr/bin/env bash
# devcluster/init-wrappers.sh — (re)create the wrapper modules for k8s.io/kubernetes and etcd after a version
# bump; commit devcluster/{k8s,etcd}/go.{mod,sum} afterwards. Needs the Go module proxy; compiles nothing.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); . "$HERE/versions.env"
K=$K8S_VERSION; S=0.${K#1.}
rm -rf "$HERE/k8s" "$HERE/etcd"; mkdir -p "$HERE/k8s" "$HERE/etcd"

cd "$HERE/k8s"
go mod init jupyter-accel.invalid/devcluster/k8s
# k8s.io/kubernetes requires its staging modules at v0.0.0 with local-path replaces that do not apply to a
# consumer: point each one at its published v0.<minor>.<patch>, read from the go.mod the proxy serves.
KMOD=$(go mod download -json "k8s.io/kubernetes@v$K" | python3 -c 'import json,sys; print(json.load(sys.stdin)["GoMod"])')
mods=$(sed -n 's|^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/.*|\1|p' "$KMOD")
echo "staging modules: $(echo "$mods" | wc -w)"
for m in $mods; do go mod edit -replace="$m=$m@v$S"; done
go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@v$K" "k8s.io/kubernetes/cmd/kube-controller-manager@v$K" \
             "k8s.io/kubernetes/cmd/kube-scheduler@v$K" "k8s.io/kubernetes/cmd/kubectl@v$K"

cd "$HERE/etcd"
go mod init jupyter-accel.invalid/devcluster/etcd
# etcd's go.mod carries replace directives, so `go install` refuses it; a wrapper resolves api/client/pkg at the tag.
go get -tool "go.etcd.io/etcd/server/v3@v$ETCD_VERSION"
