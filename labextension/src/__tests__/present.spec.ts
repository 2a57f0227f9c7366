import {
  defaultImageHint,
  acceleratorsText,
  deviceBar,
  formatAge,
  freeText,
  kindBadge,
  kindLabel,
  kindShape,
  launchKinds,
  quotaBar,
  setJobKinds
} from '../present';
import type { JobKindInfo, ResourceQuota } from '../api';
import KINDS from './kinds.json';

function quota(over: Partial<ResourceQuota>): ResourceQuota {
  return {
    // the server's sentence and texts (tests/unit/test_quantities.py checks their words)
    summary: 'nvidia.com/gpu: 2 used, 1 reserved of 8 nominal, 4 borrowable',
    resource: 'nvidia.com/gpu',
    nominal: 8,
    borrowing_limit: null,
    lending_limit: null,
    usage: 0,
    reserved: 0,
    borrowed: 0,
    free: 8,
    borrowable: 0,
    available: 8,
    max_capacity: 8,
    ...over
  };
}

const total = (bar: ReturnType<typeof quotaBar>): number =>
  bar.segments.reduce((sum, s) => sum + s.percent, 0);

describe('quotaBar', () => {
  it('splits used, reserved, free and borrowable over nominal + borrowable', () => {
    const bar = quotaBar(quota({ usage: 2, reserved: 3, borrowable: 4 }));
    expect(bar.segments).toEqual([
      { kind: 'used', percent: 16.7 },
      { kind: 'reserved', percent: 8.3 },
      { kind: 'free', percent: 41.7 },
      { kind: 'borrowable', percent: 33.3 }
    ]);
    expect(bar.nominalAt).toBeCloseTo(66.7, 1);
    expect(bar.label).toBe(
      'nvidia.com/gpu: 2 used, 1 reserved of 8 nominal, 4 borrowable'
    ); // the server's summary, as given
    expect(bar.borrowing).toBe(false);
    expect(total(bar)).toBeCloseTo(100, 0);
  });

  it('marks borrowing when reservations exceed nominal', () => {
    const bar = quotaBar(quota({ usage: 10, reserved: 10, borrowable: 4 }));
    expect(bar.borrowing).toBe(true);
    expect(bar.segments.map(s => s.kind)).toEqual(['used', 'borrowable']);
    expect(bar.segments[0].percent).toBeCloseTo(83.3, 1);
  });

  it('shows memory as the server words it and omits the nominal marker without borrowing', () => {
    const gib = 1024 ** 3;
    const bar = quotaBar(
      quota({
        resource: 'memory',
        nominal: 64 * gib,
        usage: 16 * gib,
        reserved: 16 * gib,
        summary: 'memory: 16Gi used of 64Gi nominal'
      })
    );
    expect(bar.label).toBe('memory: 16Gi used of 64Gi nominal');
    expect(bar.nominalAt).toBeNull();
    expect(bar.segments).toEqual([
      { kind: 'used', percent: 25 },
      { kind: 'free', percent: 75 }
    ]);
  });

  it('copes with a zero quota', () => {
    const bar = quotaBar(quota({ nominal: 0, free: 0 }));
    expect(bar.segments).toEqual([]);
  });
});

describe('deviceBar and freeText', () => {
  it('shows used vs free when pods are visible', () => {
    const bar = deviceBar({ allocatable: 16, free: 12, allocated: 4 });
    expect(bar.segments).toEqual([
      { kind: 'used', percent: 25 },
      { kind: 'free', percent: 75 }
    ]);
    expect(bar.label).toBe('4 used, 12 free of 16');
    expect(freeText({ allocatable: 16, free: 12 })).toBe(
      '12 free / 16 allocatable'
    );
  });

  it('says "unknown" when pods are not visible', () => {
    const bar = deviceBar({ allocatable: 16, free: null, allocated: null });
    expect(bar.segments).toEqual([{ kind: 'unknown', percent: 100 }]);
    expect(bar.label).toContain('free unknown');
    expect(freeText({ allocatable: 16, free: null })).toBe('16 allocatable');
  });
});

describe('formatting', () => {
  it('formats ages, memory, amounts and accelerators', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatAge('2026-01-01T11:59:18Z', now)).toBe('42s');
    expect(formatAge('2026-01-01T11:55:00Z', now)).toBe('5m');
    expect(formatAge('2026-01-01T09:00:00Z', now)).toBe('3h');
    expect(formatAge('2025-12-30T12:00:00Z', now)).toBe('2d');
    expect(formatAge(null, now)).toBe('');
    expect(formatAge('garbage', now)).toBe('');
    // device memory and amounts are worded by the server (tests/unit/test_quantities.py)
    expect(acceleratorsText({ 'nvidia.com/gpu': 2 })).toBe('2× nvidia.com/gpu');
    expect(acceleratorsText({})).toBe('none');
  });
});

describe('job kinds come from /info', () => {
  // as /info sends them (tests/unit/test_kinds.py keeps this file equal to the server's registry), trainjob
  // not served here
  const kinds = (KINDS as JobKindInfo[]).map(k =>
    k.kind === 'trainjob' ? { ...k, served: false, version: null } : k
  );
  afterEach(() => setJobKinds(undefined));

  it('labels and badges are the server words, the kind itself before /info answers', () => {
    expect(kindLabel('ray-cluster')).toBe('ray-cluster');
    expect(kindBadge('trainjob')).toBe('T');
    setJobKinds(kinds);
    expect(kindLabel('ray-cluster')).toBe('Ray cluster');
    expect(kindBadge('ray-cluster')).toBe('R');
    expect(kindLabel('pytorch')).toBe('PyTorchJob');
  });

  it('the launch form offers the served kinds and keeps its current one', () => {
    setJobKinds(kinds);
    expect(launchKinds(undefined, 'trainjob')).toEqual([
      'trainjob',
      'ray-cluster',
      'ray-job',
      'pytorch'
    ]);
    expect(launchKinds([], 'pytorch')).toEqual([
      'ray-cluster',
      'ray-job',
      'pytorch'
    ]);
    expect(launchKinds(['pytorch', 'ray-job'], 'ray-job')).toEqual([
      'pytorch',
      'ray-job'
    ]);
  });
});

describe('kind shapes drive the launch form', () => {
  afterEach(() => setJobKinds(undefined));

  it('reads program fields and the fewest workers from /info', () => {
    setJobKinds(KINDS as JobKindInfo[]);
    expect(kindShape('ray-job')).toEqual({
      program: ['entrypoint', 'script'],
      minWorkers: 0,
      takes: [
        'entrypoint',
        'head',
        'runtime_env',
        'script',
        'secrets',
        'ttl_seconds_after_finished',
        'volumes',
        'workdir',
        'worker_groups'
      ],
      runtimes: null,
      defaultImages: {} // the server fills them in (/info)
    });
    expect(kindShape('ray-cluster').program).toEqual([]);
    expect(kindShape('pytorch').minWorkers).toBe(1);
  });
});

describe('the image a request gets when it names none', () => {
  const images = { '': 'ray:2.60', nvidia: 'ray:2.60-gpu', habana: null };
  it('says the default for the vendor, or that one must be named', () => {
    expect(defaultImageHint(images, '')).toBe('default: ray:2.60');
    expect(defaultImageHint(images, 'nvidia')).toBe('default: ray:2.60-gpu');
    expect(defaultImageHint(images, 'habana')).toBe(
      'required: no default image for these accelerators'
    );
    // a vendor the server did not name, or an accelerator typed by hand
    expect(defaultImageHint(images, 'acme')).toBe("the server's default image");
    expect(defaultImageHint({}, null)).toBe("the server's default image");
  });
});
