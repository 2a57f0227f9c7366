import type { InfoResponse, JobKindInfo } from '../api';
import KINDS from './kinds.json';

/** The server's job kinds as /info sends them; `served`: the versions of those the cluster serves. */
function kinds(served: Record<string, string> = {}): JobKindInfo[] {
  return (KINDS as JobKindInfo[]).map(k => ({
    ...k,
    served: k.kind in served,
    version: served[k.kind] ?? null
  }));
}

/** An /info answer as the server sends it with no kubeconfig. */
export function notConfiguredInfo(version: string): InfoResponse {
  return {
    version,
    api_version: 'v1',
    connection: {
      state: 'not_configured',
      message: 'No Kubernetes credentials: set a kubeconfig or run in a pod.',
      label: 'Not connected (Kubernetes: not configured)',
      tone: 'warn',
      identity: 'none',
      namespace: null,
      user: null,
      kubernetes_version: null,
      degraded: null,
      cluster_reads: null
    },
    capabilities: {
      compatibility: null,
      apis: {
        kueue: null,
        kueue_visibility: null,
        ray: null,
        pytorchjob: null,
        trainjob: null,
        hardware_profiles: null,
        accelerator_profiles: null
      },
      permissions: [],
      kinds: kinds(),
      read_only: false,
      max_run_seconds_limit: null
    }
  };
}

/** An /info answer of a connected server with Kueue and KubeRay served. */
export function connectedInfo(version: string): InfoResponse {
  return {
    version,
    api_version: 'v1',
    connection: {
      state: 'connected',
      message: 'Connected to Kubernetes v1.34.1 as alice, namespace team-a.',
      label: 'Connected',
      tone: 'ok',
      identity: 'kubeconfig',
      namespace: 'team-a',
      user: 'alice',
      kubernetes_version: 'v1.34.1',
      degraded: null,
      cluster_reads: null
    },
    capabilities: {
      compatibility: null,
      apis: {
        kueue: 'v1beta2',
        kueue_visibility: null,
        ray: 'v1',
        pytorchjob: null,
        trainjob: null,
        hardware_profiles: null,
        accelerator_profiles: null
      },
      kinds: kinds({ 'ray-cluster': 'v1', 'ray-job': 'v1' }),
      permissions: [
        {
          verb: 'list',
          group: 'ray.io',
          resource: 'rayclusters',
          namespaced: true,
          allowed: true,
          reason: null
        },
        {
          verb: 'create',
          group: 'kubeflow.org',
          resource: 'pytorchjobs',
          namespaced: true,
          allowed: false,
          reason: 'RBAC: no rule'
        },
        {
          verb: 'list',
          group: '',
          resource: 'nodes',
          namespaced: false,
          allowed: false,
          reason: null
        }
      ],
      read_only: true,
      max_run_seconds_limit: null
    }
  };
}

/** Poll `find` until it answers something truthy (the DOM after React renders), or fail naming `what`. */
export async function waitFor<T>(
  find: () => T | null,
  what = 'the panel to render',
  timeout = 2000
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const found = find();
    if (found) {
      return found;
    }
    if (Date.now() - start > timeout) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}
