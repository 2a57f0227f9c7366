/**
 * Pure functions from model state to what the panel shows: labels, tones and
 * rows. Kept apart from React so the wording is unit-tested.
 */
import type {
  ApiAvailability,
  Capabilities,
  ConnectionState,
  Permission
} from './api';
import type { AccelState } from './model';

/** How a status reads; `tone` picks the colour (CSS class jp-accel-tone-*). */
export type Tone = 'ok' | 'warn' | 'error' | 'neutral';

export interface IStatusSummary {
  /** Stable identifier for CSS and tests (data-state attribute). */
  state: ConnectionState | 'loading' | 'unreachable' | 'version_mismatch';
  label: string;
  /** The server's own sentence, shown as is. */
  message: string;
  tone: Tone;
}

export interface IRow {
  key: string;
  label: string;
  value: string;
  tone: Tone;
}

const CONNECTION_LABELS: Record<ConnectionState, [string, Tone]> = {
  not_configured: ['Not connected: Kubernetes is not configured', 'warn'],
  connected: ['Connected', 'ok'],
  error: ['Connection error', 'error']
};

/** Display names of the APIs /info reports; a new schema field fails tsc here. */
export const API_LABELS: Record<keyof ApiAvailability, string> = {
  kueue: 'Kueue',
  kueue_visibility: 'Kueue visibility',
  ray: 'KubeRay',
  pytorchjob: 'PyTorchJob (Kubeflow)',
  trainjob: 'TrainJob (Kubeflow Trainer)',
  hardware_profiles: 'Hardware profiles',
  accelerator_profiles: 'Accelerator profiles'
};

export function summarizeState(state: AccelState): IStatusSummary {
  switch (state.kind) {
    case 'loading':
      return {
        state: 'loading',
        label: 'Checking the connection…',
        message: '',
        tone: 'neutral'
      };
    case 'unreachable':
      return {
        state: 'unreachable',
        label: 'Server extension unreachable',
        message: state.message,
        tone: 'error'
      };
    case 'version_mismatch':
      return {
        state: 'version_mismatch',
        label: 'Version mismatch',
        message: state.check.message,
        tone: 'error'
      };
    case 'ready': {
      const { connection } = state.info;
      const [label, tone] = CONNECTION_LABELS[connection.state];
      return {
        state: connection.state,
        label,
        message: connection.message,
        tone
      };
    }
  }
}

/** Identity, namespace, user and Kubernetes version rows, omitting unknowns. */
export function connectionRows(state: AccelState): IRow[] {
  if (state.kind !== 'ready') {
    return [];
  }
  const { connection } = state.info;
  const rows: Array<[string, string, string | null | undefined]> = [
    ['identity', 'Identity', connection.identity],
    ['namespace', 'Namespace', connection.namespace],
    ['user', 'User', connection.user],
    ['kubernetes_version', 'Kubernetes', connection.kubernetes_version],
    ['server_version', 'Server extension', state.info.version]
  ];
  return rows
    .filter(
      ([, , value]) =>
        value !== null &&
        value !== undefined &&
        value !== '' &&
        value !== 'none'
    )
    .map(([key, label, value]) => ({
      key,
      label,
      value: value as string,
      tone: 'neutral'
    }));
}

/**
 * One row per API. Before a connection nothing was discovered, so "unknown"
 * is honest where "not served" would be a claim about the cluster.
 */
export function apiRows(
  capabilities: Capabilities | undefined,
  connected: boolean
): IRow[] {
  const apis: Partial<ApiAvailability> = capabilities?.apis ?? {};
  return (Object.keys(API_LABELS) as Array<keyof ApiAvailability>).map(key => {
    const version = apis[key];
    if (version) {
      return { key, label: API_LABELS[key], value: version, tone: 'ok' };
    }
    return {
      key,
      label: API_LABELS[key],
      value: connected ? 'not served' : 'unknown',
      tone: 'neutral'
    };
  });
}

/** "list ray.io/rayclusters", allowed or not, with the reason when denied. */
export function permissionRows(permissions: Permission[] | undefined): IRow[] {
  return (permissions ?? []).map(p => {
    const resource = p.group ? `${p.group}/${p.resource}` : p.resource;
    const label = `${p.verb} ${resource}`;
    const value = p.allowed
      ? 'allowed'
      : p.reason
        ? `not allowed: ${p.reason}`
        : 'not allowed';
    return {
      key: `${p.verb}:${p.group ?? ''}:${p.resource}`,
      label,
      value,
      tone: p.allowed ? 'ok' : 'warn'
    };
  });
}
