import {
  API_LABELS,
  apiRows,
  connectionRows,
  permissionRows,
  summarizeState
} from '../format';
import { checkVersion } from '../version';
import { connectedInfo, notConfiguredInfo } from './fixtures';

describe('summarizeState', () => {
  it('says "not connected" and passes the server message on when not configured', () => {
    const info = notConfiguredInfo('1.0.0');
    const summary = summarizeState({ kind: 'ready', info });
    expect(summary.state).toBe('not_configured');
    expect(summary.label.toLowerCase()).toContain('not connected');
    expect(summary.label.toLowerCase()).toContain('not configured');
    expect(summary.message).toBe(info.connection.message);
    expect(summary.tone).toBe('warn');
  });

  it('reports connected and error states with their tones', () => {
    const info = connectedInfo('1.0.0');
    expect(summarizeState({ kind: 'ready', info })).toMatchObject({
      state: 'connected',
      label: 'Connected',
      tone: 'ok'
    });
    info.connection.state = 'error';
    info.connection.label = 'Connection error'; // the server's words and tone for the state
    info.connection.tone = 'error';
    info.connection.message =
      'The Kubernetes API server cannot be reached: timeout';
    expect(summarizeState({ kind: 'ready', info })).toEqual({
      state: 'error',
      label: 'Connection error',
      message: 'The Kubernetes API server cannot be reached: timeout',
      tone: 'error',
      degraded: null,
      clusterReads: null
    });
  });

  it("shows the server's sentence on cluster reads only when a read service is configured", () => {
    const info = connectedInfo('1.0.0');
    info.connection.cluster_reads = {
      source: 'api-server',
      url: null,
      message: 'This server reads them with its own watches.'
    };
    expect(summarizeState({ kind: 'ready', info }).clusterReads).toBeNull();
    info.connection.cluster_reads = {
      source: 'read-service',
      url: 'https://reads.example:8443',
      message: 'They come from the read service at https://reads.example:8443.'
    };
    expect(summarizeState({ kind: 'ready', info }).clusterReads).toBe(
      'They come from the read service at https://reads.example:8443.'
    );
  });

  it('reports an unreachable server extension with the error message', () => {
    const summary = summarizeState({
      kind: 'unreachable',
      message: 'boom',
      status: 500
    });
    expect(summary).toMatchObject({
      state: 'unreachable',
      message: 'boom',
      tone: 'error'
    });
  });

  it('carries the mismatch explanation', () => {
    const check = checkVersion('1.0.0', '2.0.0');
    const summary = summarizeState({ kind: 'version_mismatch', check });
    expect(summary.state).toBe('version_mismatch');
    expect(summary.message).toBe(check.message);
  });

  it('has a neutral loading state', () => {
    expect(summarizeState({ kind: 'loading' }).state).toBe('loading');
  });
});

describe('connectionRows', () => {
  it('lists only what the server knows', () => {
    const rows = connectionRows({
      kind: 'ready',
      info: notConfiguredInfo('1.0.0')
    });
    expect(rows.map(r => r.key)).toEqual(['server_version']);
    expect(rows[0].value).toBe('1.0.0');
  });

  it('lists identity, namespace, user and Kubernetes version when connected', () => {
    const rows = connectionRows({
      kind: 'ready',
      info: connectedInfo('1.0.0')
    });
    expect(Object.fromEntries(rows.map(r => [r.key, r.value]))).toEqual({
      identity: 'kubeconfig',
      namespace: 'team-a',
      user: 'alice',
      kubernetes_version: 'v1.34.1',
      server_version: '1.0.0'
    });
  });

  it('is empty before an answer', () => {
    expect(connectionRows({ kind: 'loading' })).toEqual([]);
  });
});

describe('apiRows', () => {
  it('has one row per API of the schema, then one per job kind of the server', () => {
    const info = connectedInfo('1.0.0');
    const rows = apiRows(info.capabilities, true);
    const kinds = (info.capabilities?.kinds ?? []).map(k => k.kind);
    expect(kinds.length).toBeGreaterThan(0);
    expect(rows.map(r => r.key).sort()).toEqual(
      [...Object.keys(API_LABELS), ...kinds].sort()
    );
  });

  it('shows served versions and "not served" when connected', () => {
    const rows = apiRows(connectedInfo('1.0.0').capabilities, true);
    const byKey = Object.fromEntries(rows.map(r => [r.key, r]));
    expect(byKey.kueue).toMatchObject({ value: 'v1beta2', tone: 'ok' });
    expect(byKey['ray-cluster'].value).toBe('v1'); // the kinds' rows: capabilities.kinds
    expect(byKey.trainjob.value).toBe('not served');
  });

  it('says "unknown" rather than "not served" without a connection', () => {
    const rows = apiRows(notConfiguredInfo('1.0.0').capabilities, false);
    expect(new Set(rows.map(r => r.value))).toEqual(new Set(['unknown']));
  });

  it('copes with missing capabilities', () => {
    expect(apiRows(undefined, false)).toHaveLength(
      Object.keys(API_LABELS).length
    );
  });
});

describe('permissionRows', () => {
  it('formats verb, group/resource and the denial reason', () => {
    const rows = permissionRows(
      connectedInfo('1.0.0').capabilities?.permissions
    );
    expect(rows.map(r => [r.label, r.value, r.tone])).toEqual([
      ['list ray.io/rayclusters', 'allowed', 'ok'],
      ['create kubeflow.org/pytorchjobs', 'not allowed: RBAC: no rule', 'warn'],
      ['list nodes', 'not allowed', 'warn']
    ]);
  });
});
