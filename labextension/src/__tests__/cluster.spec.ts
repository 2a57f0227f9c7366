import { Signal } from '@lumino/signaling';

import type { JobScope, JobsResponse, JobView } from '../api';
import {
  ClusterModel,
  IChangeSource,
  IJobTransition,
  jobTransitions,
  keysForTopics,
  utilizationOf
} from '../cluster';
import type { IChange, StreamState } from '../sse';

function job(name: string, status: JobView['status']): JobView {
  return {
    kind: 'pytorch',
    name,
    namespace: 'team-a',
    uid: null,
    managed_by_us: true,
    workbench: null,
    progress: null,
    status,
    reason: null,
    display: {
      label: status,
      tone: 'info',
      sentence: `${status}.`,
      place: null,
      detail: null,
      eta: null,
      time_limit: null,
      finished: status === 'Succeeded' || status === 'Failed',
      stopped_at_limit: false,
      warning: null,
      actions: []
    },
    queue: 'default',
    cluster_queue: null,
    workload: null,
    position: null,
    priority: null,
    priority_class: null,
    created: null,
    start_time: null,
    end_time: null,
    max_run_seconds: null,
    stops_at: null,
    starts_by: null,
    accelerators: {},
    accelerators_requested: {},
    pods: [],
    labels: {}
  };
}

function jobsResponse(jobs: JobView[], scope: JobScope): JobsResponse {
  return { jobs, scope, kinds_served: ['pytorch'], visibility: {} };
}

class FakeSource implements IChangeSource {
  changed = new Signal<this, IChange>(this);
  stateChanged = new Signal<this, StreamState>(this);
  state: StreamState = 'closed';
  lastError = '';
  starts = 0;
  start(): void {
    this.starts++;
    this.state = 'open';
  }
  stop(): void {
    this.state = 'closed';
  }
}

function setup(listing: () => JobView[]) {
  const calls: string[] = [];
  const source = new FakeSource();
  const model = new ClusterModel({
    source,
    fetchers: {
      inventory: async () => {
        calls.push('inventory');
        return {
          node_count: 0,
          models: [],
          accelerator_names: [],
          visibility: { visible: true, message: null },
          pods_visibility: { visible: true, message: null },
          free_source: null
        };
      },
      inventoryNodes: async () => {
        throw new Error('not used here');
      },
      profiles: async () => {
        calls.push('profiles');
        return { profiles: [], visibility: { visible: true, message: null } };
      },
      queues: async () => {
        calls.push('queues');
        throw new Error('queues are not visible');
      },
      jobs: async scope => {
        calls.push(`jobs:${scope}`);
        return jobsResponse(listing(), scope);
      }
    }
  });
  return { model, source, calls };
}

describe('keysForTopics', () => {
  it('maps topics to resources; * is everything, workloads is jobs + queues', () => {
    expect(keysForTopics(['*'])).toEqual([
      'inventory',
      'profiles',
      'queues',
      'jobs'
    ]);
    expect(keysForTopics(['workloads'])).toEqual(['queues', 'jobs']);
    expect(keysForTopics(['info', 'inventory'])).toEqual(['inventory']);
    expect(keysForTopics([])).toEqual([]);
  });
});

describe('jobTransitions', () => {
  it('reports admitted, finished and failed once, not new jobs', () => {
    const before = new Map<string, JobView['status']>([
      ['pytorch/a', 'Queued'],
      ['pytorch/b', 'Running'],
      ['pytorch/c', 'Admitted'],
      ['pytorch/d', 'Running']
    ]);
    const now = [
      job('a', 'Admitted'),
      job('b', 'Succeeded'),
      job('c', 'Running'), // still "admitted": no second notification
      job('d', 'Failed'),
      job('e', 'Running') // new
    ];
    const out = jobTransitions(before, now, () => true);
    expect(out.map(t => [t.job.name, t.category])).toEqual([
      ['a', 'admitted'],
      ['b', 'finished'],
      ['d', 'failed']
    ]);
    expect(jobTransitions(before, now, j => j.name === 'b')).toHaveLength(1);
  });

  it('reports a job Kueue stopped at its time limit, not one the user suspended', () => {
    const before = new Map<string, JobView['status']>([
      ['pytorch/limit', 'Running'],
      ['pytorch/user', 'Running']
    ]);
    const stopped = job('limit', 'Suspended');
    stopped.display.stopped_at_limit = true;
    const out = jobTransitions(
      before,
      [stopped, job('user', 'Suspended')],
      () => true
    );
    expect(out.map(t => [t.job.name, t.category])).toEqual([
      ['limit', 'stopped']
    ]);
    const again = new Map<string, JobView['status']>([
      ['pytorch/limit', 'Suspended']
    ]);
    expect(jobTransitions(again, [stopped], () => true)).toEqual([]);
  });
});

describe('ClusterModel', () => {
  it('fetches nothing until resumed, then only the topics named', async () => {
    const { model, source, calls } = setup(() => []);
    source.changed.emit({ revision: 1, topics: ['*'] });
    await Promise.resolve();
    expect(calls).toEqual([]);
    model.paused = false;
    expect(source.starts).toBe(1);
    source.changed.emit({ revision: 2, topics: ['*'] });
    await new Promise(r => setTimeout(r, 0));
    expect(calls.sort()).toEqual(
      ['inventory', 'jobs:mine', 'profiles', 'queues'].sort()
    );
    expect(model.queues.status).toBe('error');
    expect(model.queues.error).toBe('queues are not visible');
    expect(model.inventory.status).toBe('ready');
    calls.length = 0;
    source.changed.emit({ revision: 3, topics: ['jobs'] });
    await new Promise(r => setTimeout(r, 0));
    expect(calls).toEqual(['jobs:mine']);
    model.paused = true;
    expect(source.state).toBe('closed');
    model.dispose();
  });

  it('tells when a push names info, and only while resumed', async () => {
    const { model, source, calls } = setup(() => []);
    let told = 0;
    model.infoChanged.connect(() => told++);
    source.changed.emit({ revision: 1, topics: ['info'] });
    expect(told).toBe(0); // paused: the panel is hidden or not connected
    model.paused = false;
    source.changed.emit({ revision: 2, topics: ['info'] });
    await new Promise(r => setTimeout(r, 0));
    expect(told).toBe(1);
    expect(calls).toEqual([]); // no cluster section shows /info
    source.changed.emit({ revision: 3, topics: ['jobs'] });
    expect(told).toBe(1);
    model.dispose();
  });

  it('refetches jobs for the chosen scope', async () => {
    const { model, calls } = setup(() => [job('a', 'Queued')]);
    model.paused = false;
    await model.refresh();
    calls.length = 0;
    model.scope = 'namespace';
    await new Promise(r => setTimeout(r, 0));
    expect(calls).toEqual(['jobs:namespace']);
    expect(model.jobs.data?.scope).toBe('namespace');
    model.dispose();
  });

  it('shows a submitted job at once and emits its transitions', async () => {
    let listing = [job('old', 'Running')];
    const { model } = setup(() => listing);
    model.paused = false;
    await model.refresh();
    const seen: IJobTransition[] = [];
    model.jobTransitions.connect((_, t) => seen.push(...t));
    model.addJob(job('new', 'Queued'));
    expect(model.jobs.data?.jobs?.map(j => j.name)).toEqual(['new', 'old']);
    listing = [job('new', 'Running'), job('old', 'Running')];
    await model.refetch(['jobs']);
    listing = [job('new', 'Succeeded'), job('old', 'Running')];
    await model.refetch(['jobs']);
    expect(seen.map(t => [t.job.name, t.category])).toEqual([
      ['new', 'admitted'],
      ['new', 'finished']
    ]);
    model.removeJob(job('new', 'Succeeded'));
    expect(model.jobs.data?.jobs?.map(j => j.name)).toEqual(['old']);
    expect(model.findJob('pytorch', 'old')?.status).toBe('Running');
    model.dispose();
  });
});

describe('accelerator utilization in the model', () => {
  const running = (): JobView => ({
    ...job('train-1', 'Running'),
    accelerators: { 'nvidia.com/gpu': 1 }
  });
  const answer = (idle: string | null) => ({
    source: {
      available: true,
      message: 'From the metrics API.',
      exporters: []
    },
    window_seconds: 1800,
    step_seconds: 30,
    jobs: [
      {
        kind: 'pytorch' as const,
        name: 'train-1',
        devices: 1,
        percent: idle ? 0 : 80,
        memory_used_mib: 10,
        points: [[0, 80]] as [number, number][],
        idle,
        idle_seconds: idle ? 1200 : 0,
        simulated: null
      }
    ]
  });

  it('asks only while the panel shows, and says a job went idle once', async () => {
    let asked = 0;
    let idle: string | null = null;
    const model = new ClusterModel({
      fetchers: {
        inventory: async () => ({}) as never,
        inventoryNodes: async () => ({}) as never,
        profiles: async () => ({}) as never,
        queues: async () => ({}) as never,
        jobs: async scope => jobsResponse([running()], scope),
        utilization: async () => {
          asked++;
          return answer(idle);
        }
      }
    });
    const said: string[] = [];
    model.idleJobs.connect((_, jobs) => said.push(...jobs.map(j => j.name)));
    await model.refetch(['jobs']); // paused: the jobs come, utilization is not asked
    expect(asked).toBe(0);
    model.paused = false;
    await model.pollMetrics();
    expect(asked).toBe(1);
    expect(
      utilizationOf(model.utilization, { kind: 'pytorch', name: 'train-1' })
        ?.percent
    ).toBe(80);
    await model.pollMetrics(); // within the interval: not asked again
    expect(asked).toBe(1);
    idle = '1 accelerator at 0 % for 20m';
    for (let round = 0; round < 2; round++) {
      (model as unknown as { _utilizationAt: number })._utilizationAt = 0;
      await model.pollMetrics();
    }
    expect(asked).toBe(3);
    expect(said).toEqual(['train-1']); // once, not on every answer
    model.paused = true;
    (model as unknown as { _utilizationAt: number })._utilizationAt = 0;
    await model.pollMetrics();
    expect(asked).toBe(3);
    model.dispose();
  });
});
