import { Widget } from '@lumino/widgets';

import { ClusterModel } from '../cluster';
import { AccelModel } from '../model';
import { AccelPanel } from '../panel';
import type { IClusterActions } from '../views';
import { connectedInfo } from './fixtures';

async function waitFor<T>(find: () => T | null, timeout = 2000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const found = find();
    if (found) {
      return found;
    }
    if (Date.now() - start > timeout) {
      throw new Error('timed out waiting for the sections to render');
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

const hidden = { visible: false, message: 'RBAC: cannot list nodes' };

describe('cluster sections', () => {
  it('renders models, refused queues and an empty job list', async () => {
    const info = connectedInfo('1.0.0');
    info.capabilities!.read_only = false;
    const model = new AccelModel({
      fetchInfo: async () => info,
      frontendVersion: '1.0.0',
      auto: false
    });
    const cluster = new ClusterModel({
      fetchers: {
        inventory: async () => ({
          nodes: [],
          models: [
            {
              key: 'nvidia.com/gpu|H100',
              resource: 'nvidia.com/gpu',
              vendor: 'nvidia',
              vendor_name: 'NVIDIA GPU',
              model: 'H100',
              memory_mib: 81559,
              mig_profile: null,
              parent_model: null,
              node_count: 2,
              capacity: 16,
              allocatable: 16,
              allocated: 4,
              free: 12,
              free_on_usable_nodes: 12,
              largest_allocatable_per_node: 8,
              largest_free_per_node: 8
            }
          ],
          accelerator_names: ['nvidia.com/gpu'],
          visibility: { visible: true, message: null },
          pods_visibility: { visible: true, message: null }
        }),
        profiles: async () => ({ profiles: [], visibility: hidden }),
        queues: async () => ({
          queues: [],
          default_queue: null,
          visibility: hidden
        }),
        jobs: async scope => ({
          jobs: [],
          scope,
          kinds_served: ['pytorch'],
          visibility: {}
        })
      }
    });
    const actions = {} as IClusterActions;
    const panel = new AccelPanel({ model, cluster, actions });
    Widget.attach(panel, document.body);
    await model.refresh();
    await cluster.refresh();
    const node = panel.node;
    const h100 = await waitFor(() => node.querySelector('[data-model="H100"]'));
    expect(h100.textContent).toContain('80 GiB');
    expect(h100.textContent).toContain('12 free / 16 allocatable');
    expect(h100.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe(
      '4 used, 12 free of 16'
    );
    const queues = node.querySelector('section[aria-label="Queues"]');
    expect(queues?.textContent).toContain(
      'Queues are not visible to your account: RBAC: cannot list nodes'
    );
    expect(
      node.querySelector('section[aria-label="My jobs"]')?.textContent
    ).toContain('No jobs yet');
    // Collapsing a section hides its body and says so to assistive tech.
    const toggle = queues!.querySelector('button')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    toggle.click();
    await waitFor(() =>
      toggle.getAttribute('aria-expanded') === 'false' ? true : null
    );
    panel.dispose();
    cluster.dispose();
    model.dispose();
  });
});
