/**
 * Pure presentation of cluster data: quota and usage bars, ages, and the job
 * kinds' words from /info. Job states come worded and toned by the server
 * (JobView.display), quantities as the server's text (`text`, `*_text`,
 * `summary`); nothing here re-decides them.
 */
import type {
  AcceleratorModelSummary,
  AcceleratorOnNode,
  JobKind,
  JobKindInfo,
  ResourceQuota
} from './api';

// The server's registry of job kinds (GET /info, capabilities.kinds): labels and badges are its words.
let registry: JobKindInfo[] = [];

/** Take the kinds of an /info answer (the model calls this on every /info it reads). */
export function setJobKinds(kinds: JobKindInfo[] | undefined): void {
  registry = kinds ?? [];
}

/** The kind a launch form offers first: the one the server's registry marks (the sections that launch
 * appear once /info has answered). */
export function defaultKind(): JobKind {
  return (registry.find(k => k.default) ?? registry[0])?.kind as JobKind;
}

/** The served kind that takes an optional request field: the default kind if it does, else the first. */
export function kindTaking(field: string): JobKind | null {
  const taking = registry.filter(
    k => k.served && (k.request_fields ?? []).includes(field)
  );
  return (taking.find(k => k.default) ?? taking[0])?.kind ?? null;
}

/** The kinds a launch form offers: what the jobs list says this cluster serves, else what /info says, and
 * the form's current kind in any case (so the select never loses it). */
export function launchKinds(
  served: JobKind[] | undefined,
  current: JobKind
): JobKind[] {
  const kinds = served?.length
    ? served
    : registry.filter(k => k.served).map(k => k.kind);
  return kinds.includes(current) ? kinds : [current, ...kinds];
}

/** What people call a kind ('Ray cluster'); the kind itself before /info has answered. */
export function kindLabel(kind: JobKind | string): string {
  return registry.find(k => k.kind === kind)?.label ?? kind;
}

/** What a request of this kind takes: the program fields of which it needs one (`entrypoint` is a shell
 * line, `command` an argv; none: no program of its own) and the fewest workers. */
export function kindShape(kind: JobKind): {
  program: string[];
  minWorkers: number;
  /** The optional request fields it takes (e.g. workdir, max_workers). */
  takes: string[];
  /** The runtimes the cluster offers this kind (TrainJob); null: none by name. */
  runtimes: string[] | null;
  /** The image a request gets when it names none, by accelerator vendor ('' CPU only); null: it must name one. */
  defaultImages: Record<string, string | null>;
} {
  const info = registry.find(k => k.kind === kind);
  return {
    program: info?.program ?? [],
    minWorkers: info?.min_workers ?? 0,
    takes: info?.request_fields ?? [],
    runtimes: info?.runtimes ?? null,
    defaultImages: info?.default_images ?? {}
  };
}

/** The launch form's words for the image a request would get when it names none. */
export function defaultImageHint(
  images: Record<string, string | null>,
  vendor: string | null
): string {
  const key = vendor ?? '';
  if (!(key in images)) {
    return "the server's default image";
  }
  const image = images[key];
  return image
    ? `default: ${image}`
    : 'required: no default image for these accelerators';
}

/** One letter for compact lists. */
export function kindBadge(kind: JobKind | string): string {
  return (
    registry.find(k => k.kind === kind)?.badge ?? kind.charAt(0).toUpperCase()
  );
}

/** Age of an ISO timestamp, coarse: 42s, 5m, 3h, 2d. */
export function formatAge(iso: string | null | undefined, now: number): string {
  if (!iso) {
    return '';
  }
  const then = Date.parse(iso);
  if (Number.isNaN(then)) {
    return '';
  }
  const seconds = Math.max(0, Math.floor((now - then) / 1000));
  if (seconds < 60) {
    return `${seconds}s`;
  }
  if (seconds < 3600) {
    return `${Math.floor(seconds / 60)}m`;
  }
  if (seconds < 86400) {
    return `${Math.floor(seconds / 3600)}h`;
  }
  return `${Math.floor(seconds / 86400)}d`;
}

/** "2× nvidia.com/gpu, 1× amd.com/gpu"; "none" for none. */
export function acceleratorsText(
  accelerators: Record<string, number> | undefined
): string {
  const entries = Object.entries(accelerators ?? {}).filter(([, n]) => n > 0);
  if (entries.length === 0) {
    return 'none';
  }
  return entries.map(([resource, n]) => `${n}× ${resource}`).join(', ');
}

/** One coloured stretch of a bar; widths are percentages of the bar. */
export interface ISegment {
  kind: 'used' | 'reserved' | 'free' | 'borrowable' | 'unknown';
  percent: number;
}

export interface IBar {
  segments: ISegment[];
  /** Where nominal quota ends, in percent (null: no marker). */
  nominalAt: number | null;
  /** The sentence screen readers and the tooltip get. */
  label: string;
  /** Used beyond nominal quota: borrowing. */
  borrowing: boolean;
}

function pct(part: number, whole: number): number {
  if (whole <= 0) {
    return 0;
  }
  return Math.round(Math.min(100, Math.max(0, (part / whole) * 100)) * 10) / 10;
}

/**
 * A ClusterQueue resource as a bar: used (admitted), reserved on top, free
 * up to nominal, then what may be borrowed from the cohort.
 */
export function quotaBar(q: ResourceQuota): IBar {
  const nominal = q.nominal ?? 0;
  const used = q.usage ?? 0;
  const reserved = Math.max(used, q.reserved ?? used);
  const borrowable = q.borrowable ?? 0;
  const scale = Math.max(nominal + borrowable, reserved, 1e-9);
  const freeNominal = Math.max(0, nominal - reserved);
  const borrowRoom = Math.max(
    0,
    nominal + borrowable - Math.max(reserved, nominal)
  );
  const segments: ISegment[] = [
    { kind: 'used', percent: pct(used, scale) },
    { kind: 'reserved', percent: pct(reserved - used, scale) },
    { kind: 'free', percent: pct(freeNominal, scale) },
    { kind: 'borrowable', percent: pct(borrowRoom, scale) }
  ].filter((s): s is ISegment => s.percent > 0);
  return {
    segments,
    nominalAt: borrowable > 0 ? pct(nominal, scale) : null,
    label: q.summary ?? q.resource,
    borrowing: reserved > nominal
  };
}

/**
 * Devices of one model or node: used vs free of allocatable. `free` is null
 * when pods are not visible to the account: then the bar says "unknown".
 */
export function deviceBar(
  d: Pick<
    AcceleratorOnNode | AcceleratorModelSummary,
    'allocatable' | 'free' | 'allocated'
  >
): IBar {
  const total = d.allocatable;
  if (d.free === null || d.free === undefined) {
    return {
      segments: total > 0 ? [{ kind: 'unknown', percent: 100 }] : [],
      nominalAt: null,
      label: `${total} allocatable, free unknown`,
      borrowing: false
    };
  }
  const used = Math.max(0, total - d.free);
  return {
    segments: [
      { kind: 'used' as const, percent: pct(used, total) },
      { kind: 'free' as const, percent: pct(d.free, total) }
    ].filter(s => s.percent > 0),
    nominalAt: null,
    label: `${used} used, ${d.free} free of ${total}`,
    borrowing: false
  };
}

/** "6 free / 16 allocatable" or "16 allocatable" when free is unknown. */
export function freeText(
  d: Pick<AcceleratorModelSummary, 'allocatable' | 'free'>
): string {
  return d.free === null || d.free === undefined
    ? `${d.allocatable} allocatable`
    : `${d.free} free / ${d.allocatable} allocatable`;
}
