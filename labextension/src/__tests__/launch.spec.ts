import { AccelAPIError, FitResponse, JobRequest } from '../api';
import {
  buildRequest,
  defaultForm,
  fieldForPath,
  FitChecker,
  FitState,
  mapFieldErrors,
  newClientRequestId,
  runAsJobPreset,
  splitCommand
} from '../launch';
import {
  ACCELERATOR_REQUEST_LIMITS,
  JOB_REQUEST_LIMITS
} from '../generated/limits';
import { setJobKinds } from '../present';
import type { JobKindInfo } from '../api';
import KINDS from './kinds.json';

// the form learns each kind's shape from /info, as in the app
beforeAll(() => setJobKinds(KINDS as JobKindInfo[]));

function fitAnswer(verdict: FitResponse['verdict']): FitResponse {
  return {
    verdict,
    label: verdict,
    tone: 'info',
    message: verdict,
    local_queue: 'default',
    cluster_queue: 'team-a-cq',
    quota: [],
    roles: [],
    ahead: [],
    notes: [],
    quota_visibility: { visible: true, message: null },
    nodes_visibility: { visible: true, message: null },
    approximate: false,
    image: 'rayproject/ray:2.41.0'
  };
}

describe('buildRequest', () => {
  it('turns the form into a JobRequest', () => {
    const form = {
      ...defaultForm(),
      name: 'train-1',
      command: 'python -c "print(1)"',
      workers: '2',
      acceleratorCount: '4',
      queue: 'default'
    };
    const { request, errors } = buildRequest(form, 'ui-abc');
    expect(errors).toEqual({});
    expect(request).toEqual({
      kind: 'pytorch',
      name: 'train-1',
      workers: 2,
      command: ['python', '-c', 'print(1)'],
      accelerators: { resource: 'nvidia.com/gpu', count: 4 },
      queue: 'default',
      client_request_id: 'ui-abc'
    });
  });

  it('flags bad inputs per field and builds nothing', () => {
    const form = {
      ...defaultForm(),
      name: 'Bad_Name',
      workers: '0',
      acceleratorCount: 'two'
    };
    const { request, errors } = buildRequest(form);
    expect(request).toBeNull();
    expect(Object.keys(errors).sort()).toEqual(
      ['acceleratorCount', 'name', 'workers'].sort()
    );
  });

  it("checks the server's own limits (from the generated schema)", () => {
    const long = `a${'b'.repeat(JOB_REQUEST_LIMITS.name.maxLength)}`;
    const { errors } = buildRequest({
      ...defaultForm(),
      name: long,
      command: 'true',
      workers: String(JOB_REQUEST_LIMITS.workers.maximum + 1),
      acceleratorCount: String(ACCELERATOR_REQUEST_LIMITS.count.maximum + 1)
    });
    expect(Object.keys(errors).sort()).toEqual(
      ['acceleratorCount', 'name', 'workers'].sort()
    );
    expect(errors.name).toContain(
      `at most ${JOB_REQUEST_LIMITS.name.maxLength}`
    );
    const ok = buildRequest({
      ...defaultForm(),
      name: long.slice(0, JOB_REQUEST_LIMITS.name.maxLength),
      command: 'true'
    });
    expect(ok.errors).toEqual({});
  });

  it('sends a profile instead of accelerators, and entrypoints for Ray jobs', () => {
    const form = {
      ...defaultForm(),
      kind: 'ray-job' as const,
      workers: '0',
      resources: 'profile' as const,
      profile: 'nvidia-h100-queued',
      command: 'python main.py'
    };
    const { request } = buildRequest(form);
    expect(request?.hardware_profile).toBe('nvidia-h100-queued');
    expect(request?.accelerators).toBeUndefined();
    expect(request?.entrypoint).toBe('python main.py');
    expect(request?.command).toBeUndefined();
  });

  it('sends max_workers for a kind that autoscales, and only then', () => {
    const form = {
      ...defaultForm(),
      kind: 'ray-cluster' as const,
      workers: '1',
      maxWorkers: '4'
    };
    expect(buildRequest(form).request?.max_workers).toBe(4);
    expect(
      buildRequest({ ...form, maxWorkers: '' }).request?.max_workers
    ).toBeUndefined();
    expect(
      buildRequest({ ...form, maxWorkers: '0' }).errors.maxWorkers
    ).toMatch(/at least the workers/);
    expect(fieldForPath('max_workers')).toBe('maxWorkers');
    const torch = { ...form, kind: 'pytorch' as const, command: 'true' };
    expect(buildRequest(torch).request?.max_workers).toBeUndefined();
  });
});

describe('splitCommand', () => {
  it('splits on whitespace and keeps quoted words together', () => {
    expect(splitCommand(`echo  'a b' "c d" e`)).toEqual([
      'echo',
      'a b',
      'c d',
      'e'
    ]);
    expect(splitCommand('x ""')).toEqual(['x', '']);
  });
});

describe('mapFieldErrors', () => {
  it("puts each of the server's errors[] under its input", () => {
    const error = new AccelAPIError(400, 'workers: bad (and 1 more)', {
      message: 'workers: bad (and 1 more)',
      field: 'workers',
      errors: [
        { field: 'workers', message: 'must be an integer' },
        { field: 'accelerators.count', message: 'must be >= 1' },
        { field: 'accelerators.resource', message: 'unknown resource' },
        { field: 'script.text', message: 'too long' },
        { field: 'hardware_profile', message: 'no such profile' },
        { field: 'env.X', message: 'odd' }
      ]
    });
    expect(mapFieldErrors(error)).toEqual({
      workers: 'must be an integer',
      acceleratorCount: 'must be >= 1',
      acceleratorType: 'unknown resource',
      script: 'too long',
      profile: 'no such profile',
      _form: 'odd'
    });
  });

  it('falls back to the sentence and its field, or the form', () => {
    const clash = new AccelAPIError(409, 'train-1 exists', {
      field: 'name'
    });
    expect(mapFieldErrors(clash)).toEqual({ name: 'train-1 exists' });
    expect(mapFieldErrors(new Error('offline'))).toEqual({ _form: 'offline' });
    expect(fieldForPath(null)).toBe('_form');
    expect(fieldForPath('entrypoint')).toBe('command');
  });
});

describe('newClientRequestId', () => {
  it('makes distinct ids the server accepts', () => {
    const a = newClientRequestId();
    const b = newClientRequestId();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(a.length).toBeLessThanOrEqual(63);
  });
});

describe('FitChecker', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const request = (count: number): JobRequest =>
    ({
      kind: 'pytorch',
      workers: 1,
      accelerators: { resource: 'nvidia.com/gpu', count }
    }) as JobRequest;

  it('asks once after a quiet spell, with the latest request', async () => {
    const asked: JobRequest[] = [];
    const states: FitState[] = [];
    const checker = new FitChecker(
      async r => {
        asked.push(r);
        return fitAnswer('fits_now');
      },
      s => states.push(s),
      300
    );
    checker.schedule(request(1));
    jest.advanceTimersByTime(200);
    checker.schedule(request(2));
    jest.advanceTimersByTime(200);
    checker.schedule(request(3));
    expect(asked).toEqual([]);
    jest.advanceTimersByTime(300);
    await Promise.resolve();
    await Promise.resolve();
    expect(asked).toEqual([request(3)]);
    expect(states.map(s => s.kind)).toEqual(['checking', 'done']);
  });

  it('drops the answer of a check overtaken by an edit', async () => {
    const resolvers: Array<(f: FitResponse) => void> = [];
    const signals: AbortSignal[] = [];
    const states: FitState[] = [];
    const checker = new FitChecker(
      (_, signal) => {
        signals.push(signal);
        return new Promise(resolve => resolvers.push(resolve));
      },
      s => states.push(s),
      100
    );
    checker.schedule(request(1));
    jest.advanceTimersByTime(100);
    checker.schedule(request(2)); // aborts the first
    jest.advanceTimersByTime(100);
    expect(signals[0].aborted).toBe(true);
    resolvers[0](fitAnswer('never_fits'));
    resolvers[1](fitAnswer('must_queue'));
    await Promise.resolve();
    await Promise.resolve();
    const done = states.filter(s => s.kind === 'done');
    expect(done).toHaveLength(1);
    expect(done[0].kind === 'done' && done[0].fit.verdict).toBe('must_queue');
  });

  it('reports a 400 as field errors and nothing for an empty form', async () => {
    const states: FitState[] = [];
    const checker = new FitChecker(
      async () => {
        throw new AccelAPIError(400, 'command: needed', {
          errors: [{ field: 'command', message: 'needed' }]
        });
      },
      s => states.push(s),
      10
    );
    checker.schedule(null);
    expect(states).toEqual([{ kind: 'idle' }]);
    checker.schedule(request(1));
    jest.advanceTimersByTime(10);
    await Promise.resolve();
    await Promise.resolve();
    expect(states[states.length - 1]).toEqual({
      kind: 'invalid',
      errors: { command: 'needed' }
    });
  });
});

describe('maximum run time', () => {
  it('is sent in seconds and bounded as the server bounds it', () => {
    const ok = buildRequest({
      ...defaultForm(),
      command: 'true',
      maxRunHours: '1.5'
    });
    expect(ok.request?.max_run_seconds).toBe(5400);
    const short = buildRequest({
      ...defaultForm(),
      command: 'true',
      maxRunHours: '0.001'
    });
    expect(short.errors.maxRunHours).toContain('at least 1 minute.');
    expect(fieldForPath('max_run_seconds')).toBe('maxRunHours');
  });
});

describe('data and runtimes', () => {
  it('mounts the chosen PVC where asked and gives the connection as environment', () => {
    const form = {
      ...defaultForm(),
      kind: 'pytorch' as const,
      command: 'python train.py',
      dataClaim: 'shared-data',
      dataPath: '/data',
      connection: 's3-bucket'
    };
    const { request, errors } = buildRequest(form);
    expect(errors).toEqual({});
    expect(request?.volumes).toEqual([
      {
        claim: 'shared-data',
        mount_path: '/data',
        read_only: false,
        sub_path: null
      }
    ]);
    expect(request?.secrets).toEqual([{ name: 's3-bucket', mount_path: null }]);
    expect(buildRequest({ ...form, dataPath: 'data' }).errors.dataPath).toMatch(
      /absolute path/
    );
    expect(fieldForPath('volumes.0.mount_path')).toBe('dataPath');
    expect(fieldForPath('volumes.0.claim')).toBe('dataClaim');
    expect(fieldForPath('secrets.0.name')).toBe('connection');
  });

  it('sends a runtime only where the cluster offers it for the kind', () => {
    const offered = (KINDS as JobKindInfo[]).map(k =>
      k.kind === 'trainjob' ? { ...k, runtimes: ['torch-distributed'] } : k
    );
    setJobKinds(offered);
    try {
      const form = {
        ...defaultForm(),
        kind: 'trainjob' as const,
        command: 'python train.py',
        workers: '2',
        runtime: 'torch-distributed'
      };
      expect(buildRequest(form).request?.runtime).toBe('torch-distributed');
      expect(
        buildRequest({ ...form, runtime: 'not-offered' }).request?.runtime
      ).toBeUndefined();
      expect(fieldForPath('runtime')).toBe('runtime');
    } finally {
      setJobKinds(KINDS as JobKindInfo[]);
    }
  });
});

describe('runAsJobPreset', () => {
  it('runs a folder as the working dir, a Python file with python in its folder', () => {
    expect(runAsJobPreset('projects/train', true)).toEqual({
      kind: 'pytorch',
      mode: 'command',
      workdir: 'projects/train'
    });
    const file = runAsJobPreset('projects/train/my run.py', false);
    expect(file).toMatchObject({
      workdir: 'projects/train',
      command: "python 'my run.py'"
    });
    const form = { ...defaultForm(), ...file };
    const { request, errors } = buildRequest(form);
    expect(errors).toEqual({});
    expect(request?.workdir).toBe('projects/train');
    expect(request?.command).toEqual(['python', 'my run.py']);
    expect(runAsJobPreset('main.py', false)?.workdir).toBe('.');
  });
});
