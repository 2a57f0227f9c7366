// Command deviceplugin advertises N devices of one extended resource (e.g. nvidia.com/gpu) to the kubelet
// over the real device-plugin API, using the kubelet's own device-plugin stub from the Kubernetes tree.
// The devices are not hardware: Allocate hands the container an environment variable naming the device IDs
// it got (DEVCLUSTER_DEVICE_IDS), so a job can show which "GPU" the kubelet gave it. Kueue, the scheduler and
// the kubelet account for them exactly as for real accelerators.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	pluginapi "k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1"
	plugin "k8s.io/kubernetes/pkg/kubelet/cm/devicemanager/plugin/v1beta1"
)

func main() {
	resource := flag.String("resource", "nvidia.com/gpu", "extended resource name to advertise")
	count := flag.Int("count", 2, "number of devices")
	prefix := flag.String("id-prefix", "devcluster-gpu-", "device ID prefix")
	klog.InitFlags(nil)
	flag.Parse()
	logger := klog.Background()

	devs := make([]*pluginapi.Device, 0, *count)
	for i := 0; i < *count; i++ {
		devs = append(devs, &pluginapi.Device{ID: fmt.Sprintf("%s%d", *prefix, i), Health: pluginapi.Healthy})
	}
	socket := filepath.Join(pluginapi.DevicePluginPath, fmt.Sprintf("devcluster-%d.sock", time.Now().UnixNano()))
	stub := plugin.NewDevicePluginStub(logger, devs, socket, *resource, false, false)
	stub.SetAllocFunc(func(r *pluginapi.AllocateRequest, _ map[string]*pluginapi.Device) (*pluginapi.AllocateResponse, error) {
		var out pluginapi.AllocateResponse
		for _, req := range r.ContainerRequests {
			out.ContainerResponses = append(out.ContainerResponses, &pluginapi.ContainerAllocateResponse{
				Envs: map[string]string{"DEVCLUSTER_DEVICE_IDS": strings.Join(req.DevicesIds, ",")},
			})
		}
		return &out, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := stub.Start(ctx); err != nil {
		logger.Error(err, "start")
		os.Exit(1)
	}
	// The kubelet may come up after us: retry registration until it answers.
	for {
		err := stub.Register(ctx, pluginapi.KubeletSocket, *resource, pluginapi.DevicePluginPath)
		if err == nil {
			break
		}
		logger.Info("kubelet not ready for registration yet", "err", err)
		time.Sleep(time.Second)
	}
	logger.Info("registered", "resource", *resource, "devices", *count)
	go stub.Watch(ctx, pluginapi.KubeletSocket, *resource, pluginapi.DevicePluginPath)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	_ = stub.Stop(logger)
}
