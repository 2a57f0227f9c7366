import { Widget } from '@lumino/widgets';

import { AccelModel } from '../model';
import { AccelPanel } from '../panel';
import { PANEL_ID } from '../tokens';
import { connectedInfo, notConfiguredInfo, waitFor } from './fixtures';
import type { InfoResponse } from '../api';

/** Wait until `find` returns an element (React renders asynchronously). */
function mount(
  info: InfoResponse,
  frontendVersion = '1.0.0'
): { panel: AccelPanel; model: AccelModel } {
  const model = new AccelModel({
    fetchInfo: async () => info,
    frontendVersion,
    timing: { refreshInterval: 3600, maxBackoffInterval: 3600 },
    auto: false
  });
  const panel = new AccelPanel({ model });
  Widget.attach(panel, document.body);
  return { panel, model };
}

describe('AccelPanel', () => {
  let mounted: { panel: AccelPanel; model: AccelModel } | null = null;
  afterEach(() => {
    mounted?.panel.dispose();
    mounted?.model.dispose();
    mounted = null;
  });

  it('is a labelled region with the sidebar id and title', () => {
    mounted = mount(notConfiguredInfo('1.0.0'));
    const { panel } = mounted;
    expect(panel.id).toBe(PANEL_ID);
    expect(panel.title.caption).toBe('Accelerators');
    expect(panel.node.getAttribute('role')).toBe('region');
    expect(panel.node.getAttribute('aria-label')).toBe('Accelerators');
    expect(panel.node.querySelector('.jp-accel-title')?.textContent).toBe(
      'Accelerators'
    );
  });

  it('shows "not connected" with the server message when not configured', async () => {
    const info = notConfiguredInfo('1.0.0');
    mounted = mount(info);
    await mounted.model.refresh();
    const status = await waitFor(() =>
      mounted!.panel.node.querySelector<HTMLElement>(
        '[role="status"][data-state="not_configured"]'
      )
    );
    expect(status.getAttribute('aria-label')).toBe('Connection state');
    expect(status.textContent).toContain('Not connected');
    expect(status.textContent).toContain(info.connection.message);
  });

  it('lists capabilities and permissions, and hides permissions on request', async () => {
    mounted = mount(connectedInfo('1.0.0'));
    await mounted.model.refresh();
    const panel = mounted.panel;
    const apis = await waitFor(() =>
      panel.node.querySelector('[aria-label="Cluster APIs"]')
    );
    expect(apis.textContent).toContain('Kueue');
    expect(apis.textContent).toContain('v1beta2');
    expect(
      panel.node.querySelector('[aria-label="Permissions"]')?.textContent
    ).toContain('create kubeflow.org/pytorchjobs');
    expect(panel.node.textContent).toContain('Read-only');
    panel.showPermissions = false;
    await waitFor(() =>
      panel.node.querySelector('[aria-label="Permissions"]') ? null : true
    );
  });

  it("shows a degraded connection in the server's sentence and tone, and clears it", async () => {
    const info = connectedInfo('1.0.0');
    const sentence =
      'The Kubernetes API server is answering with errors (500 on 3 of 4 requests): requests that are safe to repeat are tried again.';
    let degraded: InfoResponse['connection']['degraded'] = {
      reason: 'failing',
      message: sentence,
      tone: 'error'
    };
    const model = new AccelModel({
      fetchInfo: async () => ({
        ...info,
        connection: { ...info.connection, degraded }
      }),
      frontendVersion: '1.0.0',
      timing: { refreshInterval: 3600, maxBackoffInterval: 3600 },
      auto: false
    });
    const panel = new AccelPanel({ model });
    Widget.attach(panel, document.body);
    mounted = { panel, model };
    await model.refresh();
    const shown = await waitFor(() =>
      panel.node.querySelector<HTMLElement>(
        '[aria-label="Connection state"] .jp-accel-degraded'
      )
    );
    expect(shown.textContent).toBe(sentence);
    expect(shown.classList).toContain('jp-accel-tone-error'); // the server's tone, as given
    expect(shown.dataset.reason).toBe('failing');
    // the connection itself still reads as the server says
    expect(
      panel.node.querySelector('[aria-label="Connection state"]')?.textContent
    ).toContain('Connected');
    degraded = null;
    await model.refresh();
    await waitFor(() =>
      panel.node.querySelector('.jp-accel-degraded') ? null : true
    );
  });

  it('shows only the refusal on a version mismatch', async () => {
    mounted = mount(connectedInfo('9.9.9'), '1.0.0');
    await mounted.model.refresh();
    const alert = await waitFor(() =>
      mounted!.panel.node.querySelector('[role="alert"]')
    );
    expect(alert.textContent).toContain('version 1.0.0');
    expect(alert.textContent).toContain('version 9.9.9');
    expect(
      mounted.panel.node.querySelector('[aria-label="Capabilities"]')
    ).toBeNull();
  });
});
