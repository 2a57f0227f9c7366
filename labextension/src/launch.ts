/**
 * The launch form's logic, free of React: form values -> JobRequest, the
 * server's 400 `errors[]` -> messages per input, and the debounced fit check.
 */
import { AccelAPIError, FitResponse, JobKind, JobRequest } from './api';
import {
  ACCELERATOR_REQUEST_LIMITS,
  JOB_REQUEST_LIMITS
} from './generated/limits';
import { defaultKind, kindShape, kindTaking } from './present';

/** What the form's inputs hold, all as typed (strings). */
export interface ILaunchForm {
  kind: JobKind;
  name: string;
  image: string;
  /** Run a command line or a script body. */
  mode: 'command' | 'script';
  command: string;
  script: string;
  /** A folder of the Jupyter server's files the program runs in ('' : none); kinds that take one. */
  workdir: string;
  workers: string;
  /** Autoscale up to this many workers ('' : a fixed size); kinds that autoscale only. */
  maxWorkers: string;
  /** Devices by type and count, a hardware profile, or CPU only. */
  resources: 'accelerator' | 'profile' | 'none';
  acceleratorType: string;
  acceleratorCount: string;
  profile: string;
  queue: string;
  /** A runtime of the cluster's catalogue ('' : the server's default). */
  runtime: string;
  /** A PVC of the namespace to mount ('' : none), and where. */
  dataClaim: string;
  dataPath: string;
  /** A connection to give as environment variables ('' : none). */
  connection: string;
  priority: string;
  /** Maximum run time in hours ('' : the server's default for the kind). */
  maxRunHours: string;
}

/** The form's input names: keys of per-field messages. */
export type FormField = keyof ILaunchForm;

/** Per input a message; `_form` for what belongs to no input. */
export type FieldErrors = Partial<Record<FormField | '_form', string>>;

export function defaultForm(): ILaunchForm {
  return {
    kind: defaultKind(),
    name: '',
    image: '',
    mode: 'command',
    command: '',
    script: '',
    workdir: '',
    workers: '1',
    maxWorkers: '',
    resources: 'accelerator',
    acceleratorType: 'nvidia.com/gpu',
    acceleratorCount: '1',
    profile: '',
    queue: '',
    runtime: '',
    dataClaim: '',
    dataPath: '/data',
    connection: '',
    priority: '',
    maxRunHours: ''
  };
}

/**
 * Split a command line the way a shell would for simple cases: whitespace
 * separates words, single or double quotes keep them together.
 */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: '"' | "'" | null = null;
  let started = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) {
        quote = null;
      } else {
        word += ch;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started || word) {
        words.push(word);
      }
      word = '';
      started = false;
    } else {
      word += ch;
    }
  }
  if (started || word) {
    words.push(word);
  }
  return words;
}

function wholeNumber(text: string, min: number, max: number): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) {
    return null;
  }
  const n = Number(trimmed);
  return n >= min && n <= max ? n : null;
}

/**
 * Build the request from the form. Obvious mistakes are caught here, per
 * input; the server has the last word (its 400 goes through mapFieldErrors).
 */
export function buildRequest(
  form: ILaunchForm,
  clientRequestId?: string
): { request: JobRequest | null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const shape = kindShape(form.kind);
  const minWorkers = shape.minWorkers;
  const maxWorkers = JOB_REQUEST_LIMITS.workers.maximum;
  const workers = wholeNumber(form.workers, minWorkers, maxWorkers);
  if (workers === null) {
    errors.workers = `Workers: a whole number, at least ${minWorkers} (at most ${maxWorkers}).`;
  }
  const request: JobRequest = {
    kind: form.kind,
    workers: workers ?? minWorkers
  } as JobRequest;
  if (shape.takes.includes('max_workers') && form.maxWorkers.trim()) {
    const top = wholeNumber(form.maxWorkers, workers ?? minWorkers, maxWorkers);
    if (top === null) {
      errors.maxWorkers = `Max workers: a whole number, at least the workers (at most ${maxWorkers}); empty for a fixed size.`;
    } else {
      request.max_workers = top;
    }
  }
  const name = form.name.trim();
  if (name) {
    const limit = JOB_REQUEST_LIMITS.name;
    if (
      !new RegExp(limit.pattern).test(name) ||
      name.length > limit.maxLength
    ) {
      errors.name = `Name: lower-case letters, digits and "-", starting with a letter (at most ${limit.maxLength}).`;
    }
    request.name = name;
  }
  if (form.image.trim()) {
    request.image = form.image.trim();
  }
  if (form.workdir.trim() && shape.takes.includes('workdir')) {
    request.workdir = form.workdir.trim();
  }
  if (form.runtime && shape.runtimes?.includes(form.runtime)) {
    request.runtime = form.runtime;
  }
  if (form.dataClaim) {
    const path = form.dataPath.trim();
    if (!path.startsWith('/')) {
      errors.dataPath = 'Mount path: an absolute path, e.g. /data.';
    }
    request.volumes = [
      {
        claim: form.dataClaim,
        mount_path: path,
        read_only: false,
        sub_path: null
      }
    ];
  }
  if (form.connection) {
    request.secrets = [{ name: form.connection, mount_path: null }];
  }
  if (shape.program.length) {
    if (form.mode === 'script' && shape.program.includes('script')) {
      if (form.script.trim()) {
        request.script = {
          text: form.script,
          filename: 'main.py',
          interpreter: null,
          args: []
        };
      }
    } else if (form.command.trim()) {
      if (shape.program[0] === 'entrypoint') {
        request.entrypoint = form.command.trim();
      } else {
        request.command = splitCommand(form.command);
      }
    }
  }
  if (form.resources === 'accelerator') {
    const { minimum, maximum } = ACCELERATOR_REQUEST_LIMITS.count;
    const count = wholeNumber(form.acceleratorCount, minimum, maximum);
    if (count === null) {
      errors.acceleratorCount = `Count: a whole number, at least ${minimum} (at most ${maximum}).`;
    }
    if (!form.acceleratorType.trim()) {
      errors.acceleratorType = 'Choose an accelerator type.';
    }
    request.accelerators = {
      resource: form.acceleratorType.trim(),
      count: count ?? 1
    };
  } else if (form.resources === 'profile') {
    if (!form.profile) {
      errors.profile = 'Choose a hardware profile.';
    }
    request.hardware_profile = form.profile || null;
  }
  if (form.queue.trim()) {
    request.queue = form.queue.trim();
  }
  if (form.priority.trim()) {
    request.priority_class = form.priority.trim();
  }
  if (form.maxRunHours.trim()) {
    const hours = Number(form.maxRunHours.trim());
    const { minimum, maximum } = JOB_REQUEST_LIMITS.max_run_seconds;
    const seconds = Math.round(hours * 3600);
    if (!Number.isFinite(hours) || seconds < minimum || seconds > maximum) {
      const least = minimum / 60;
      errors.maxRunHours = `Maximum run time: hours, at least ${least} minute${least === 1 ? '' : 's'}.`;
    } else {
      request.max_run_seconds = seconds;
    }
  }
  if (clientRequestId) {
    request.client_request_id = clientRequestId;
  }
  return { request: Object.keys(errors).length ? null : request, errors };
}

/** Server field paths (JobRequest, dotted) -> the form input showing them. */
export function fieldForPath(
  path: string | null | undefined
): FormField | '_form' {
  if (!path) {
    return '_form';
  }
  const head = path.split('.')[0];
  switch (head) {
    case 'kind':
    case 'name':
    case 'image':
    case 'workers':
    case 'queue':
    case 'runtime':
      return head;
    case 'volumes':
      return path.endsWith('mount_path') ? 'dataPath' : 'dataClaim';
    case 'secrets':
      return 'connection';
    case 'command':
    case 'entrypoint':
      return 'command';
    case 'script':
      return 'script';
    case 'accelerators':
      return path.endsWith('count') ? 'acceleratorCount' : 'acceleratorType';
    case 'hardware_profile':
      return 'profile';
    case 'priority_class':
      return 'priority';
    case 'max_run_seconds':
      return 'maxRunHours';
    case 'max_workers':
      return 'maxWorkers';
    case 'workdir':
      return 'workdir';
    default:
      return '_form';
  }
}

/**
 * An error of POST fit / jobs as messages per input: every `errors[]` entry
 * under its input, the first one per input kept; the sentence otherwise.
 */
export function mapFieldErrors(error: unknown): FieldErrors {
  const out: FieldErrors = {};
  if (error instanceof AccelAPIError) {
    const list = error.body.errors ?? [];
    for (const e of list) {
      const field = fieldForPath(e.field);
      out[field] ??= e.message;
    }
    if (list.length === 0) {
      out[fieldForPath(error.field)] = error.message;
    }
    return out;
  }
  out._form = error instanceof Error ? error.message : String(error);
  return out;
}

/** A fresh idempotency key (the server's QueueName pattern: [a-z0-9-]). */
export function newClientRequestId(): string {
  const random = Math.random().toString(36).slice(2, 10);
  return `ui-${Date.now().toString(36)}-${random}`;
}

export type FitState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'done'; fit: FitResponse }
  | { kind: 'invalid'; errors: FieldErrors }
  | { kind: 'error'; message: string };

/**
 * Debounced fit check: `schedule(request)` waits `delay` ms of quiet, aborts
 * the check still running and reports only the latest answer.
 */
export class FitChecker {
  constructor(
    private readonly _post: (
      request: JobRequest,
      signal: AbortSignal
    ) => Promise<FitResponse>,
    private readonly _onState: (state: FitState) => void,
    private readonly _delay = 400
  ) {}

  schedule(request: JobRequest | null): void {
    this.cancel();
    if (!request) {
      this._onState({ kind: 'idle' });
      return;
    }
    this._timer = setTimeout(() => {
      this._timer = null;
      void this._run(request);
    }, this._delay);
  }

  cancel(): void {
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    this._abort?.abort();
    this._abort = null;
  }

  private async _run(request: JobRequest): Promise<void> {
    const abort = new AbortController();
    this._abort = abort;
    const seq = ++this._seq;
    this._onState({ kind: 'checking' });
    try {
      const fit = await this._post(request, abort.signal);
      if (seq === this._seq && !abort.signal.aborted) {
        this._onState({ kind: 'done', fit });
      }
    } catch (error) {
      if (seq !== this._seq || abort.signal.aborted) {
        return;
      }
      if (error instanceof AccelAPIError && error.status === 400) {
        this._onState({ kind: 'invalid', errors: mapFieldErrors(error) });
      } else {
        this._onState({
          kind: 'error',
          message: error instanceof Error ? error.message : String(error)
        });
      }
    }
  }

  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _abort: AbortController | null = null;
  private _seq = 0;
}

/**
 * The launch form for "Run as a job…" of the file browser: a folder becomes
 * the working dir; a Python file runs with `python FILE` in its folder. The
 * kind is one that takes a working dir (null: this cluster serves none).
 */
export function runAsJobPreset(
  path: string,
  isDirectory: boolean
): Partial<ILaunchForm> | null {
  const kind = kindTaking('workdir');
  if (!kind) {
    return null;
  }
  if (isDirectory) {
    return { kind, mode: 'command', workdir: path || '.' };
  }
  const slash = path.lastIndexOf('/');
  const folder = slash > 0 ? path.slice(0, slash) : '.';
  const file = path.slice(slash + 1);
  // splitCommand keeps a quoted name together (it knows no backslash escapes)
  const quote = file.includes("'") ? '"' : "'";
  const quoted = /^[\w.-]+$/.test(file) ? file : `${quote}${file}${quote}`;
  return {
    kind,
    mode: 'command',
    workdir: folder,
    command: `python ${quoted}`
  };
}
