import { Widget } from '@lumino/widgets';

import type {
  HardwareProfileView,
  WorkbenchProfileRequest,
  WorkbenchProfileResponse,
  WorkbenchView
} from '../api';
import { ClusterModel } from '../cluster';
import { AccelModel } from '../model';
import { AccelPanel } from '../panel';
import type { IClusterActions } from '../views';
import { connectedInfo, waitFor } from './fixtures';

const visible = { visible: true, message: null };

function profile(
  name: string,
  display: string,
  extra: Partial<HardwareProfileView> = {}
): HardwareProfileView {
  return {
    name,
    namespace: 'team-a',
    kind: 'HardwareProfile',
    display_name: display,
    description: null,
    enabled: true,
    visible_in: [],
    identifiers: [],
    accelerator: null,
    scheduling_type: 'Queue',
    local_queue_name: 'default',
    priority_class: null,
    node_selector: {},
    tolerations: [],
    ...extra
  };
}

const view: WorkbenchView = {
  name: 'wb',
  namespace: 'team-a',
  found: true,
  visibility: visible,
  hardware_profile: 'cpu-small',
  hardware_profile_namespace: 'team-a',
  profile_display_name: 'CPU only (small)',
  requests: { cpu: '2' },
  limits: {},
  accelerators: {},
  queue: 'default',
  kueue_managed: true,
  stopped: false,
  message: 'Workbench wb has no accelerator, hardware profile CPU only (small).'
};

describe('this workbench', () => {
  it('previews a profile, then applies it with the server warning, and shows refusals', async () => {
    const info = connectedInfo('1.0.0');
    info.capabilities!.read_only = false;
    const model = new AccelModel({
      fetchInfo: async () => info,
      frontendVersion: '1.0.0',
      auto: false
    });
    const empty = { visible: true, message: null };
    const cluster = new ClusterModel({
      fetchers: {
        inventory: async () => ({
          node_count: 0,
          models: [],
          accelerator_names: [],
          visibility: empty,
          pods_visibility: empty,
          free_source: null
        }),
        inventoryNodes: async () => {
          throw new Error('not asked');
        },
        profiles: async () => ({
          profiles: [
            profile('cpu-small', 'CPU only (small)'),
            profile('h100', 'NVIDIA H100', { visible_in: ['workbench'] }),
            profile('training-only', 'Training', {
              visible_in: ['model-training']
            }),
            profile('legacy', 'Legacy', { kind: 'AcceleratorProfile' })
          ],
          visibility: empty
        }),
        queues: async () => ({
          queues: [],
          default_queue: null,
          visibility: empty
        }),
        jobs: async scope => ({
          jobs: [],
          scope,
          kinds_served: [],
          visibility: {}
        })
      }
    });
    const calls: [WorkbenchProfileRequest, string | undefined][] = [];
    let refuse = false;
    const actions = {
      workbench: async () => view,
      changeWorkbenchProfile: async (
        request: WorkbenchProfileRequest,
        warning?: string
      ): Promise<WorkbenchProfileResponse> => {
        calls.push([request, warning]);
        if (refuse) {
          throw new Error('your account may not change this workbench');
        }
        return {
          workbench: request.dry_run
            ? view
            : {
                ...view,
                hardware_profile: 'h100',
                accelerators: { 'nvidia.com/gpu': 1 }
              },
          fit: {
            verdict: 'fits_now',
            label: 'Fits now',
            tone: 'ok',
            message: 'One pod of 1 GPU fits on 3 nodes.'
          } as WorkbenchProfileResponse['fit'],
          patch: [
            { op: 'add', path: '/metadata/annotations/x', value: 'h100' }
          ],
          applied: !request.dry_run,
          warning:
            'The kernel and everything in its memory are lost. Save first.'
        };
      }
    } as unknown as IClusterActions;
    const panel = new AccelPanel({ model, cluster, actions });
    Widget.attach(panel, document.body);
    await model.refresh();
    await cluster.refresh();
    const section = await waitFor(() =>
      panel.node.querySelector('[data-section="workbench"]')
    );
    (section.querySelector('h3 button') as HTMLButtonElement).click();
    await waitFor(() => section.querySelector('.jp-accel-workbench-message'));
    expect(section.textContent).toContain('hardware profile CPU only (small)');
    expect(section.textContent).toContain(
      'Queue default (Kueue-managed project)'
    );
    const select = section.querySelector('select') as HTMLSelectElement;
    const offered = Array.from(select.options).map(o => o.textContent);
    // workbench profiles only: not the training-only one, not the legacy kind
    expect(offered).toEqual([
      'Choose a profile…',
      'CPU only (small) (now)',
      'NVIDIA H100'
    ]);
    select.value = 'team-a/h100';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    const check = Array.from(section.querySelectorAll('button')).find(
      b => b.textContent === 'Check'
    )!;
    await waitFor(() => !check.disabled || null);
    check.click();
    await waitFor(() => section.querySelector('.jp-accel-workbench-preview'));
    expect(calls[0][0]).toEqual({
      hardware_profile: 'h100',
      hardware_profile_namespace: 'team-a',
      queue: null,
      dry_run: true
    });
    expect(section.textContent).toContain('Fits now');
    expect(section.textContent).toContain('Save first.');
    const apply = Array.from(section.querySelectorAll('button')).find(
      b => b.textContent === 'Change profile'
    )!;
    apply.click();
    await waitFor(() =>
      section.querySelector('.jp-accel-workbench-preview[data-applied="true"]')
    );
    expect(calls[1]).toEqual([
      { ...calls[0][0], dry_run: false },
      'The kernel and everything in its memory are lost. Save first.'
    ]);
    refuse = true;
    check.click();
    const alert = await waitFor(() => section.querySelector('[role="alert"]'));
    expect(alert.textContent).toContain('may not change this workbench');
    Widget.detach(panel);
  });
});
