import { Widget } from '@lumino/widgets';

import { ClusterModel } from '../cluster';
import { AccelModel } from '../model';
import { AccelPanel } from '../panel';
import type { IClusterActions } from '../views';
import { connectedInfo, waitFor } from './fixtures';

const hidden = { visible: false, message: 'RBAC: cannot list nodes' };

describe('cluster sections', () => {
  it('renders models, refused queues and an empty job list', async () => {
    const pages: [string, number, number][] = [];
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
          node_count: 2,
          models: [
            {
              key: 'nvidia.com/gpu|H100',
              resource: 'nvidia.com/gpu',
              vendor: 'nvidia',
              vendor_name: 'NVIDIA GPU',
              model: 'H100',
              memory_mib: 81559,
              memory_text: '80 GiB', // as the server words it
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
          pods_visibility: { visible: true, message: null },
          free_source:
            'Allocated and free: summed from every pod of the cluster, which this account may read.'
        }),
        inventoryNodes: async (key, offset, limit) => {
          pages.push([key, offset, limit]);
          const names = Array.from({ length: 250 }, (_, i) => `gpu-${i}`);
          return {
            model: key,
            nodes: names.slice(offset, offset + limit).map(name => ({
              name,
              ready: true,
              unschedulable: name === 'gpu-1',
              usable: name !== 'gpu-1',
              label: name === 'gpu-1' ? 'Cordoned' : 'Ready',
              tone: name === 'gpu-1' ? ('warn' as const) : ('ok' as const),
              taints: [],
              cpu: null,
              memory: null,
              accelerators: [
                {
                  resource: 'nvidia.com/gpu',
                  vendor: 'nvidia',
                  vendor_name: 'NVIDIA GPU',
                  model: 'H100',
                  product_label: null,
                  memory_mib: null,
                  memory_text: null,
                  mig_profile: null,
                  parent_model: null,
                  capacity: 8,
                  allocatable: 8,
                  allocated: 2,
                  free: 6
                }
              ]
            })),
            total: names.length,
            offset,
            limit,
            visibility: { visible: true, message: null },
            pods_visibility: { visible: true, message: null }
          };
        },
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
    // where the free figures come from, as the server says it
    expect(node.querySelector('.jp-accel-free-source')?.textContent).toContain(
      'summed from every pod of the cluster'
    );
    expect(h100.textContent).toContain('12 free / 16 allocatable');
    expect(h100.querySelector('[role="img"]')?.getAttribute('aria-label')).toBe(
      '4 used, 12 free of 16'
    );
    // Nodes are fetched when the model is opened, a page at a time.
    expect(pages).toEqual([]);
    h100.querySelector('button')!.click();
    const list = await waitFor(() =>
      h100.querySelector('ul[aria-label="Nodes with H100"]')
    );
    expect(pages).toEqual([['nvidia.com/gpu|H100', 0, 100]]);
    expect(list.querySelectorAll('li').length).toBe(100);
    // the server's words and tone for a node that is not usable, shown as given
    const state = list.querySelector('.jp-accel-node-state');
    expect(state?.textContent).toBe('Cordoned');
    expect(state?.getAttribute('data-tone')).toBe('warn');
    expect(list.querySelectorAll('.jp-accel-node-state').length).toBe(1);
    expect(h100.textContent).toContain('Nodes 1–100 of 250');
    const next = Array.from(h100.querySelectorAll('button')).find(
      b => b.textContent === 'Next'
    )!;
    next.click();
    await waitFor(() =>
      h100.textContent?.includes('Nodes 101–200 of 250') ? true : null
    );
    expect(pages[pages.length - 1]).toEqual(['nvidia.com/gpu|H100', 100, 100]);
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
