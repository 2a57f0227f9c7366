/**
 * The cluster model: inventory, profiles, queues and jobs, each fetched
 * when the push stream names its topic. It knows nothing about widgets.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  AccelAPIError,
  HardwareProfilesResponse,
  InventoryNodesResponse,
  InventoryResponse,
  JobScope,
  JobsResponse,
  JobStatus,
  JobUtilization,
  JobView,
  QueueUsageResponse,
  QueuesResponse,
  UtilizationResponse
} from './api';
import type { IChange, StreamState, Topic } from './sse';

/** One fetched resource as views render it. */
export interface IResource<T> {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: T | null;
  /** The server's sentence when the last fetch failed (data may be stale). */
  error: string | null;
  httpStatus: number | null;
}

export interface IClusterFetchers {
  inventory(): Promise<InventoryResponse>;
  /** A page of the nodes of one model, fetched when the user opens it. */
  inventoryNodes(
    model: string,
    offset: number,
    limit: number
  ): Promise<InventoryNodesResponse>;
  profiles(): Promise<HardwareProfilesResponse>;
  queues(): Promise<QueuesResponse>;
  jobs(scope: JobScope): Promise<JobsResponse>;
  /** The running jobs' accelerator utilization (the cluster's metrics API). */
  utilization?(scope: JobScope): Promise<UtilizationResponse>;
  /** The queues' use over the last hours (Kueue's metrics). */
  queueUsage?(): Promise<QueueUsageResponse>;
}

/** How often utilization is asked while the panel shows (the server caches a step of 30 s). */
export const UTILIZATION_MS = 30_000;
/** How often the queues' history is asked while the panel shows (its step is 2 min). */
export const QUEUE_USAGE_MS = 120_000;

/** What the model needs from the push stream (ChangeStream in the app). */
export interface IChangeSource {
  readonly changed: ISignal<unknown, IChange>;
  readonly stateChanged: ISignal<unknown, StreamState>;
  readonly state: StreamState;
  readonly lastError: string;
  start(): void;
  stop(): void;
}

/** A job of mine that reached a state worth a notification. */
export interface IJobTransition {
  job: JobView;
  from: JobStatus;
  to: JobStatus;
  category: 'admitted' | 'finished' | 'failed' | 'stopped';
}

type Key = 'inventory' | 'profiles' | 'queues' | 'jobs';
const KEYS: Key[] = ['inventory', 'profiles', 'queues', 'jobs'];

/** One job's row of a utilization answer, if it has one. */
export function utilizationOf(
  answer: UtilizationResponse | null,
  job: Pick<JobView, 'kind' | 'name'>
): JobUtilization | null {
  return (
    answer?.jobs?.find(j => j.kind === job.kind && j.name === job.name) ?? null
  );
}

/** `kind/name`: a job's identity within the namespace. */
export function jobKey(job: Pick<JobView, 'kind' | 'name'>): string {
  return `${job.kind}/${job.name}`;
}

/** Kueue admitted it and it has not ended: the states after Queued that hold quota. */
const HOLDS_QUOTA: ReadonlySet<JobStatus> = new Set<JobStatus>([
  'Admitted',
  'Starting',
  'Running'
]);

/** What a job's state means for a notification: whether it ended is the server's word (display.finished). */
function category(
  job: Pick<JobView, 'status' | 'display'>
): IJobTransition['category'] | null {
  if (job.display.finished) {
    return job.status === 'Failed' ? 'failed' : 'finished';
  }
  return HOLDS_QUOTA.has(job.status) ? 'admitted' : null;
}

/**
 * The notable changes between two listings: a job moving into admitted
 * (Admitted/Starting/Running count as one), finished or failed. Jobs seen
 * for the first time are not transitions.
 */
export function jobTransitions(
  previous: ReadonlyMap<string, JobStatus>,
  jobs: JobView[],
  isMine: (job: JobView) => boolean
): IJobTransition[] {
  const out: IJobTransition[] = [];
  for (const job of jobs) {
    const from = previous.get(jobKey(job));
    if (from === undefined || from === job.status || !isMine(job)) {
      continue;
    }
    // Kueue stopping it at its time limit is news; a suspend the user asked for is not
    const to = job.display.stopped_at_limit ? 'stopped' : category(job);
    // a job that ended was notified then; only a move into holding quota compares with before
    const before = HOLDS_QUOTA.has(from) ? 'admitted' : null;
    if (to !== null && to !== before) {
      out.push({ job, from, to: job.status, category: to });
    }
  }
  return out;
}

/** Which resources a change event asks to refetch. */
export function keysForTopics(topics: readonly Topic[]): Key[] {
  if (topics.includes('*')) {
    return [...KEYS];
  }
  const keys = new Set<Key>();
  for (const topic of topics) {
    if (topic === 'workloads') {
      keys.add('jobs'); // positions and admission live in the job rows
      keys.add('queues'); // and in the pending / admitted counts
    } else if ((KEYS as string[]).includes(topic)) {
      keys.add(topic as Key);
    }
  }
  return KEYS.filter(k => keys.has(k));
}

export class ClusterModel implements IDisposable {
  constructor(options: ClusterModel.IOptions) {
    this._fetchers = options.fetchers;
    this._source = options.source ?? null;
    this._source?.changed.connect(this._onChange, this);
    this._source?.stateChanged.connect(this._emit, this);
    this._paused = true;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /**
   * Emitted when a push names `info`: the connection changed (the API server
   * became slow, throttling or failing, or recovered), so /info is read again.
   */
  get infoChanged(): ISignal<this, void> {
    return this._infoChanged;
  }

  /** Emitted when jobs become idle (every accelerator unused for the admin's time), once each. */
  get idleJobs(): ISignal<this, JobUtilization[]> {
    return this._idle;
  }

  /** The running jobs' utilization, or null before the first answer. */
  get utilization(): UtilizationResponse | null {
    return this._utilization;
  }

  get queueUsage(): QueueUsageResponse | null {
    return this._queueUsage;
  }

  /** Emitted after a jobs refetch with the notable changes of my jobs. */
  get jobTransitions(): ISignal<this, IJobTransition[]> {
    return this._transitions;
  }

  get inventory(): IResource<InventoryResponse> {
    return this._res.inventory as IResource<InventoryResponse>;
  }

  /** A page of the nodes of one model (not kept here: the open model row holds it). */
  fetchNodes(
    model: string,
    offset: number,
    limit: number
  ): Promise<InventoryNodesResponse> {
    return this._fetchers.inventoryNodes(model, offset, limit);
  }
  get profiles(): IResource<HardwareProfilesResponse> {
    return this._res.profiles as IResource<HardwareProfilesResponse>;
  }
  get queues(): IResource<QueuesResponse> {
    return this._res.queues as IResource<QueuesResponse>;
  }
  get jobs(): IResource<JobsResponse> {
    return this._res.jobs as IResource<JobsResponse>;
  }

  get streamState(): StreamState {
    return this._source?.state ?? 'closed';
  }
  get streamError(): string {
    return this._source?.lastError ?? '';
  }

  get scope(): JobScope {
    return this._scope;
  }
  set scope(value: JobScope) {
    if (value !== this._scope) {
      this._scope = value;
      this._statuses.clear(); // a new listing is no transition
      this._res.jobs = { ...this._res.jobs, data: null, status: 'loading' };
      this._emit();
      void this.refetch(['jobs']);
    }
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /**
   * While paused the push stream is closed and nothing is fetched; resuming
   * reconnects, and the server's first event (`*`) refetches everything.
   */
  get paused(): boolean {
    return this._paused;
  }
  set paused(value: boolean) {
    if (value === this._paused || this._disposed) {
      return;
    }
    this._paused = value;
    if (this._metricsTimer !== null) {
      clearInterval(this._metricsTimer);
      this._metricsTimer = null;
    }
    if (!value && (this._fetchers.utilization || this._fetchers.queueUsage)) {
      // asked only while someone looks: the timer runs while the panel shows
      this._metricsTimer = setInterval(
        () => void this.pollMetrics(),
        UTILIZATION_MS
      );
    }
    if (!this._source) {
      return;
    }
    if (value) {
      this._source.stop();
    } else {
      this._source.start();
    }
  }

  /** Refetch everything now. */
  refresh(): Promise<void> {
    return this.refetch(['*']);
  }

  /** Refetch the resources the topics name; resolves when all are applied. */
  async refetch(topics: readonly Topic[]): Promise<void> {
    await Promise.all(keysForTopics(topics).map(key => this._fetch(key)));
  }

  /** A job I just created: shown at once, before the stream reports it. */
  addJob(job: JobView): void {
    this._submitted.add(jobKey(job));
    const current = this.jobs.data;
    if (!current) {
      return;
    }
    const others = (current.jobs ?? []).filter(j => jobKey(j) !== jobKey(job));
    this._res.jobs = {
      ...this._res.jobs,
      data: { ...current, jobs: [job, ...others] }
    };
    this._statuses.set(jobKey(job), job.status);
    this._emit();
  }

  /** A job I just deleted: gone from the list at once. */
  removeJob(job: Pick<JobView, 'kind' | 'name'>): void {
    const current = this.jobs.data;
    if (!current) {
      return;
    }
    this._res.jobs = {
      ...this._res.jobs,
      data: {
        ...current,
        jobs: (current.jobs ?? []).filter(j => jobKey(j) !== jobKey(job))
      }
    };
    this._statuses.delete(jobKey(job));
    this._emit();
  }

  /** The last listed view of a job, if any. */
  findJob(kind: string, name: string): JobView | null {
    return (
      this.jobs.data?.jobs?.find(j => j.kind === kind && j.name === name) ??
      null
    );
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    if (this._metricsTimer !== null) {
      clearInterval(this._metricsTimer);
    }
    this._source?.changed.disconnect(this._onChange, this);
    this._source?.stateChanged.disconnect(this._emit, this);
    this._source?.stop();
    Signal.clearData(this);
  }

  private _onChange(_: unknown, change: IChange): void {
    if (!this._paused) {
      if (change.topics.includes('info')) {
        this._infoChanged.emit(undefined);
      }
      void this.refetch(change.topics);
    }
  }

  private async _fetch(key: Key): Promise<void> {
    // One request per resource at a time; a change during it fetches again.
    if (this._inflight.has(key)) {
      this._again.add(key);
      return this._inflight.get(key);
    }
    const run = this._fetchOnce(key).finally(() => {
      this._inflight.delete(key);
      if (this._again.delete(key)) {
        void this._fetch(key);
      }
    });
    this._inflight.set(key, run);
    return run;
  }

  private async _fetchOnce(key: Key): Promise<void> {
    const before = this._res[key];
    if (before.status === 'idle') {
      this._res[key] = { ...before, status: 'loading' };
      this._emit();
    }
    const scope = this._scope;
    try {
      const data =
        key === 'jobs'
          ? await this._fetchers.jobs(scope)
          : await this._fetchers[key]();
      if (this._disposed || (key === 'jobs' && scope !== this._scope)) {
        return;
      }
      this._res[key] = {
        status: 'ready',
        data,
        error: null,
        httpStatus: null
      };
      if (key === 'jobs') {
        this._applyJobs(data as JobsResponse);
        void this.pollMetrics();
      }
    } catch (error) {
      if (this._disposed) {
        return;
      }
      this._res[key] = {
        status: 'error',
        data: this._res[key].data,
        error: error instanceof Error ? error.message : String(error),
        httpStatus: error instanceof AccelAPIError ? error.status : null
      };
    }
    this._emit();
  }

  private _applyJobs(data: JobsResponse): void {
    const isMine = (job: JobView): boolean =>
      this._scope === 'mine' || this._submitted.has(jobKey(job));
    const jobs = data.jobs ?? [];
    const transitions = jobTransitions(this._statuses, jobs, isMine);
    this._statuses = new Map(jobs.map(j => [jobKey(j), j.status]));
    if (transitions.length > 0) {
      this._transitions.emit(transitions);
    }
  }

  /**
   * Ask for utilization (when some running job holds accelerators) and the
   * queues' history, each at most once per its interval; nothing while paused.
   */
  async pollMetrics(): Promise<void> {
    if (this._paused || this._disposed) {
      return;
    }
    const now = Date.now();
    const asks: Promise<void>[] = [];
    const held = (this.jobs.data?.jobs ?? []).some(
      j => j.status === 'Running' && Object.keys(j.accelerators ?? {}).length
    );
    const utilization = this._fetchers.utilization;
    if (utilization && (held || this._utilization?.jobs?.length)) {
      if (now - this._utilizationAt >= UTILIZATION_MS - 1000) {
        this._utilizationAt = now;
        const scope = this._scope;
        asks.push(
          utilization(scope)
            .then(answer => {
              if (!this._disposed && scope === this._scope) {
                this._applyUtilization(answer);
              }
            })
            .catch(() => undefined) // the next round asks again; the charts keep their last answer
        );
      }
    }
    const usage = this._fetchers.queueUsage;
    if (usage && now - this._queueUsageAt >= QUEUE_USAGE_MS - 1000) {
      this._queueUsageAt = now;
      asks.push(
        usage()
          .then(answer => {
            this._queueUsage = answer;
          })
          .catch(() => undefined)
      );
    }
    if (asks.length) {
      await Promise.all(asks);
      this._emit();
    }
  }

  private _applyUtilization(answer: UtilizationResponse): void {
    const idle = (answer.jobs ?? []).filter(j => j.idle);
    const fresh = idle.filter(j => !this._idleKeys.has(jobKey(j)));
    this._idleKeys = new Set(idle.map(j => jobKey(j)));
    this._utilization = answer;
    if (fresh.length) {
      this._idle.emit(fresh);
    }
  }

  private _emit(): void {
    if (!this._disposed) {
      this._changed.emit(undefined);
    }
  }

  private _fetchers: IClusterFetchers;
  private _source: IChangeSource | null;
  private _res: Record<Key, IResource<unknown>> = {
    inventory: idle(),
    profiles: idle(),
    queues: idle(),
    jobs: idle()
  };
  private _scope: JobScope = 'mine';
  private _statuses = new Map<string, JobStatus>();
  private _submitted = new Set<string>();
  private _inflight = new Map<Key, Promise<void>>();
  private _again = new Set<Key>();
  private _paused: boolean;
  private _disposed = false;
  private _changed = new Signal<this, void>(this);
  private _infoChanged = new Signal<this, void>(this);
  private _transitions = new Signal<this, IJobTransition[]>(this);
  private _idle = new Signal<this, JobUtilization[]>(this);
  private _utilization: UtilizationResponse | null = null;
  private _utilizationAt = 0;
  private _queueUsage: QueueUsageResponse | null = null;
  private _queueUsageAt = 0;
  private _idleKeys = new Set<string>();
  private _metricsTimer: ReturnType<typeof setInterval> | null = null;
}

export namespace ClusterModel {
  export interface IOptions {
    fetchers: IClusterFetchers;
    /** The push stream; without one, only refresh() fetches. */
    source?: IChangeSource;
  }
}

function idle(): IResource<never> {
  return { status: 'idle', data: null, error: null, httpStatus: null };
}
