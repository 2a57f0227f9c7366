/**
 * Pure functions from model state to what the panel shows: labels, tones and
 * rows. Kept apart from React so the wording is unit-tested. The connection's
 * label and tone are the server's (/info); the words here are for the states
 * before it has answered.
 */
import type {
  ApiAvailability,
  Capabilities,
  ConnectionState,
  Degraded,
  Permission
} from './api';
import type { components } from './generated/api';
import type { AccelState } from './model';

/** How a status reads, as the server's tones; it picks the colour (CSS class jp-accel-tone-*). */
export type Tone = components['schemas']['Tone'];

export interface IStatusSummary {
  /** Stable identifier for CSS and tests (data-state attribute). */
  state: ConnectionState | 'loading' | 'unreachable' | 'version_mismatch';
  label: string;
  /** The server's own sentence, shown as is. */
  message: string;
  tone: Tone;
  /** The API server slow, throttling or failing, or the watches reconnecting: the server's sentence and tone. */
  degraded: Degraded | null;
  /** Where cluster-wide reads come from, when a read service is configured: the server's sentence. */
  clusterReads: string | null;
}

export interface IRow {
  key: string;
  label: string;
  value: string;
  tone: Tone;
}

/**
 * Display names of the APIs /info reports besides the job kinds'. The kinds'
 * rows come from capabilities.kinds (the server's registry); the deprecated
 * fields of ApiAvailability that name some of them are not shown twice.
 */
export const API_LABELS: Partial<Record<keyof ApiAvailability, string>> = {
  kueue: 'Kueue',
  kueue_visibility: 'Kueue visibility',
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
        tone: 'neutral',
        degraded: null,
        clusterReads: null
      };
    case 'unreachable':
      return {
        state: 'unreachable',
        label: 'Server extension unreachable',
        message: state.message,
        tone: 'error',
        degraded: null,
        clusterReads: null
      };
    case 'version_mismatch':
      return {
        state: 'version_mismatch',
        label: 'Version mismatch',
        message: state.check.message,
        tone: 'error',
        degraded: null,
        clusterReads: null
      };
    case 'ready': {
      const { connection } = state.info;
      return {
        state: connection.state,
        label: connection.label,
        message: connection.message,
        tone: connection.tone,
        degraded: connection.degraded ?? null,
        clusterReads: connection.cluster_reads?.url
          ? connection.cluster_reads.message
          : null
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
 * One row per API, then one per job kind of the server's registry. Before a
 * connection nothing was discovered, so "unknown" is honest where "not
 * served" would be a claim about the cluster.
 */
export function apiRows(
  capabilities: Capabilities | undefined,
  connected: boolean
): IRow[] {
  const apis: Partial<ApiAvailability> = capabilities?.apis ?? {};
  const row = (key: string, label: string, version?: string | null): IRow =>
    version
      ? { key, label, value: version, tone: 'ok' }
      : {
          key,
          label,
          value: connected ? 'not served' : 'unknown',
          tone: 'neutral'
        };
  const keys = Object.keys(API_LABELS) as Array<keyof ApiAvailability>;
  return [
    ...keys.map(key => row(key, API_LABELS[key] ?? key, apis[key])),
    ...(capabilities?.kinds ?? []).map(k =>
      row(k.kind, `${k.label} (${k.kubernetes_kind})`, k.version)
    )
  ];
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
