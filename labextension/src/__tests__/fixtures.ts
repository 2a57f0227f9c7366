import type { InfoResponse } from '../api';

/** An /info answer as the server sends it with no kubeconfig. */
export function notConfiguredInfo(version: string): InfoResponse {
  return {
    version,
    api_version: 'v1',
    connection: {
      state: 'not_configured',
      message: 'No Kubernetes credentials: set a kubeconfig or run in a pod.',
      identity: 'none',
      namespace: null,
      user: null,
      kubernetes_version: null
    },
    capabilities: {
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
      identity: 'kubeconfig',
      namespace: 'team-a',
      user: 'alice',
      kubernetes_version: 'v1.34.1'
    },
    capabilities: {
      apis: {
        kueue: 'v1beta2',
        kueue_visibility: null,
        ray: 'v1',
        pytorchjob: null,
        trainjob: null,
        hardware_profiles: null,
        accelerator_profiles: null
      },
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
