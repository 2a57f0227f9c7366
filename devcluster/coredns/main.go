// Command coredns is CoreDNS with only the plugins the dev cluster's real node needs: cluster names from the
// Kubernetes API (headless Services for PyTorchJob masters and Ray heads), nothing forwarded anywhere else.
// Built from the pinned CoreDNS module; CoreDNS documents this compile-time plugin selection.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/bind"
)

func init() {
	// Plugin order matters in CoreDNS; this is upstream's order restricted to the plugins above.
	dnsserver.Directives = []string{"bind", "health", "ready", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
