import { ReactWidget } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import type { JobsResponse, JobView } from '../api';
import type { IResource } from '../cluster';
import { JOBS_SHOWN, jobMatches, JobsSection } from '../sections/jobs';
import type { IClusterActions } from '../sections/types';

async function until(check: () => boolean, timeout = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeout) {
      throw new Error('timed out waiting for the job list');
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

/** The fields a job row reads; the rest of the wire model does not matter here. */
function job(name: string, label: string): JobView {
  return {
    kind: 'pytorch',
    name,
    namespace: 'team-a',
    status: label,
    display: {
      label,
      tone: 'info',
      sentence: `${label}.`,
      place: null,
      detail: null,
      eta: null,
      time_limit: null,
      finished: false,
      actions: []
    },
    accelerators: {},
    accelerators_requested: {},
    pods: [],
    created: null
  } as unknown as JobView;
}

function resource(jobs: JobView[]): IResource<JobsResponse> {
  return {
    status: 'ready',
    data: {
      jobs,
      scope: 'namespace',
      kinds_served: ['pytorch'],
      visibility: {}
    },
    error: null,
    httpStatus: 200
  };
}

describe('the job list', () => {
  let widget: Widget | null = null;
  afterEach(() => {
    widget?.dispose();
    widget = null;
  });

  const render = async (jobs: JobView[]): Promise<HTMLElement> => {
    widget = ReactWidget.create(
      <JobsSection
        jobs={resource(jobs)}
        scope="namespace"
        onScope={() => undefined}
        actions={{} as IClusterActions}
        readOnly={true}
        now={0}
      />
    );
    Widget.attach(widget, document.body);
    const node = widget.node;
    await until(() => node.querySelector('.jp-accel-jobs') !== null);
    return node;
  };
  const rows = (host: HTMLElement): string[] =>
    Array.from(host.querySelectorAll('li.jp-accel-job')).map(
      li => li.getAttribute('data-job') ?? ''
    );
  const button = (
    host: HTMLElement,
    text: RegExp
  ): HTMLButtonElement | undefined =>
    Array.from(host.querySelectorAll('button')).find(b =>
      text.test(b.textContent ?? '')
    );

  it("shows a job's own progress as a bar with the server's line, and none without it", async () => {
    const training = {
      ...job('train-1', 'Running'),
      progress: {
        percent: 50,
        remaining_seconds: 120,
        metrics: [{ name: 'loss', value: '0.5' }],
        updated: null,
        text: '50 % · about 2m left · loss 0.5'
      }
    } as JobView;
    const host = await render([training, job('plain', 'Running')]);
    await until(() => rows(host).length === 2);
    const bars = host.querySelectorAll('[role="progressbar"]');
    expect(bars.length).toBe(1);
    expect(bars[0].getAttribute('aria-valuenow')).toBe('50');
    expect(bars[0].getAttribute('aria-label')).toBe('Progress of train-1');
    expect(host.querySelector('.jp-accel-progress-text')?.textContent).toBe(
      '50 % · about 2m left · loss 0.5'
    );
  });

  it('offers "Run on…" where the server says the job takes Ray jobs', async () => {
    const cluster = job('rc-1', 'Running');
    cluster.display.actions = ['run', 'suspend', 'delete'];
    const sent: string[] = [];
    const actions = {
      runOn: async (j: JobView) => void sent.push(j.name)
    } as IClusterActions;
    widget = ReactWidget.create(
      <JobsSection
        jobs={resource([cluster, job('train-1', 'Running')])}
        scope="namespace"
        onScope={() => undefined}
        actions={actions}
        readOnly={false}
        now={0}
      />
    );
    Widget.attach(widget, document.body);
    const host = widget.node;
    await until(() => rows(host).length === 2);
    const runs = Array.from(host.querySelectorAll('button')).filter(b =>
      /Run on/.test(b.textContent ?? '')
    );
    expect(runs.map(b => b.getAttribute('aria-label'))).toEqual([
      'Run a command on rc-1'
    ]);
    runs[0].click();
    await until(() => sent.length === 1);
    expect(sent).toEqual(['rc-1']);
  });

  it("shows a running job's accelerator use, and an idle job's warning", async () => {
    const training = { ...job('train-1', 'Running') } as JobView;
    const waiting = { ...job('train-2', 'Running') } as JobView;
    const use = (name: string, percent: number, idle: string | null) => ({
      kind: 'pytorch' as const,
      name,
      devices: 2,
      percent,
      memory_used_mib: 100,
      points: [
        [0, 10],
        [30, percent]
      ] as [number, number][],
      idle,
      idle_seconds: idle ? 1200 : 0,
      simulated: 'cpu-use'
    });
    widget = ReactWidget.create(
      <JobsSection
        jobs={resource([training, waiting])}
        scope="namespace"
        onScope={() => undefined}
        actions={{} as IClusterActions}
        readOnly={true}
        now={0}
        utilization={{
          source: { available: true, message: 'm', exporters: [] },
          window_seconds: 1800,
          step_seconds: 30,
          jobs: [
            use('train-1', 83, null),
            use('train-2', 0, '2 accelerators at 0 % for 20m')
          ]
        }}
      />
    );
    Widget.attach(widget, document.body);
    const host = widget.node;
    await until(() => host.querySelectorAll('.jp-accel-use').length === 2);
    const [busy, quiet] = Array.from(host.querySelectorAll('li.jp-accel-job'));
    expect(busy.querySelector('.jp-accel-use')?.textContent).toBe(
      '83 % of 2 devices (simulated: CPU use)'
    );
    await until(() => busy.querySelector('canvas') !== null); // uPlot drew the sparkline (in an effect)
    expect(busy.querySelector('[data-idle]')).toBeNull();
    expect(quiet.querySelector('[data-idle]')?.textContent).toMatch(
      /^2 accelerators at 0 % for 20m: suspend or delete it/
    );
  });

  it('shows the first rows of a long list and adds more on request', async () => {
    const many = Array.from({ length: 120 }, (_, i) =>
      job(`job-${i}`, i % 2 ? 'Running' : 'Queued')
    );
    const host = await render(many);
    await until(() => rows(host).length > 0);
    expect(rows(host)).toEqual(many.slice(0, JOBS_SHOWN).map(j => j.name));
    const more = button(host, /^Show 50 more/);
    expect(more?.textContent).toBe('Show 50 more (70 not shown)');
    more!.click();
    await until(() => rows(host).length === 100);
    button(host, /^Show 20 more/)!.click();
    await until(() => rows(host).length === 120);
    expect(button(host, /^Show/)).toBeUndefined();
  });

  it('filters by name, status and kind, and says when nothing matches', async () => {
    const many = Array.from({ length: 60 }, (_, i) =>
      job(`job-${i}`, i === 7 ? 'Failed' : 'Running')
    );
    const host = await render(many);
    await until(() => rows(host).length > 0);
    const filter = host.querySelector<HTMLInputElement>(
      'input[aria-label="Filter jobs"]'
    )!;
    const type = (text: string): void => {
      // React listens for input events and reads the value through the native setter
      Object.getOwnPropertyDescriptor(
        HTMLInputElement.prototype,
        'value'
      )!.set!.call(filter, text);
      filter.dispatchEvent(new Event('input', { bubbles: true }));
    };
    type('failed');
    await until(() => rows(host).length === 1);
    expect(rows(host)).toEqual(['job-7']);
    type('job-5');
    await until(() => rows(host).length === 11);
    expect(rows(host)).toEqual([
      'job-5',
      ...Array.from({ length: 10 }, (_, i) => `job-5${i}`)
    ]);
    type('nothing like it');
    await until(() => rows(host).length === 0);
    expect(host.textContent).toContain('No job matches “nothing like it”.');
  });

  it('has no filter for a short list', async () => {
    const host = await render([job('one', 'Running')]);
    await until(() => rows(host).length === 1);
    expect(host.querySelector('input[aria-label="Filter jobs"]')).toBeNull();
  });

  it('matches on name, label, status and kind', () => {
    const j = job('train-resnet', 'Waiting for quota');
    expect(jobMatches(j, 'RESNET')).toBe(true);
    expect(jobMatches(j, 'quota')).toBe(true);
    expect(jobMatches(j, '  ')).toBe(true);
    expect(jobMatches(j, 'ray')).toBe(false);
  });
});
