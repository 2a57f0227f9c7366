/** The Launch section: the job form with its live fit check. */
import * as React from 'react';

import type { DataSourcesResponse } from '../api';
import { ClusterModel } from '../cluster';
import {
  buildRequest,
  defaultForm,
  FieldErrors,
  FitChecker,
  FitState,
  FormField,
  ILaunchForm,
  mapFieldErrors,
  newClientRequestId
} from '../launch';
import {
  defaultImageHint,
  kindLabel,
  kindShape,
  launchKinds
} from '../present';
import { Field, IFieldProps } from '../components/common';
import { IClusterActions } from './types';

export function FitVerdict(props: { state: FitState }): JSX.Element {
  const { state } = props;
  let body: JSX.Element;
  let verdict = state.kind;
  switch (state.kind) {
    case 'idle':
      body = (
        <span className="jp-accel-muted">
          Fill in the form to check whether the job fits.
        </span>
      );
      break;
    case 'checking':
      body = <span className="jp-accel-muted">Checking the fit…</span>;
      break;
    case 'invalid':
      body = (
        <span className="jp-accel-muted">Fix the fields marked below.</span>
      );
      break;
    case 'error':
      body = <span className="jp-accel-error">{state.message}</span>;
      break;
    case 'done': {
      const { label, tone } = state.fit;
      verdict = state.fit.verdict as never;
      body = (
        <>
          <span className={`jp-accel-strong jp-accel-tone-${tone}`}>
            {label}
          </span>
          <div>{state.fit.message}</div>
          {(state.fit.notes ?? []).map(n => (
            <div key={n} className="jp-accel-muted">
              {n}
            </div>
          ))}
          {state.fit.image && (
            <div className="jp-accel-muted" aria-label="Image">
              Image: {state.fit.image}
            </div>
          )}
        </>
      );
      break;
    }
  }
  return (
    <div
      className="jp-accel-fit"
      role="status"
      aria-live="polite"
      aria-label="Fit check"
      data-verdict={verdict}
    >
      {body}
    </div>
  );
}

function claimNote(data: DataSourcesResponse, claim: string): string | null {
  return (data.claims ?? []).find(c => c.name === claim)?.note ?? null;
}

export function LaunchForm(props: {
  model: ClusterModel;
  actions: IClusterActions;
  focus: number;
  /** Values to fill in when `focus` changes (e.g. "Run as a job…" of the file browser). */
  preset?: Partial<ILaunchForm> | null;
}): JSX.Element {
  const { model, actions } = props;
  const [form, setForm] = React.useState<ILaunchForm>(defaultForm);
  const shape = kindShape(form.kind);
  const [errors, setErrors] = React.useState<FieldErrors>({});
  const [fit, setFit] = React.useState<FitState>({ kind: 'idle' });
  const [submitting, setSubmitting] = React.useState(false);
  const [done, setDone] = React.useState<string | null>(null);
  const requestId = React.useRef<string>(newClientRequestId());
  const inFlight = React.useRef(false);
  const firstInput = React.useRef<HTMLSelectElement>(null);
  const checker = React.useRef<FitChecker | null>(null);
  if (checker.current === null) {
    checker.current = new FitChecker(
      (request, signal) => actions.fit(request, signal),
      state => {
        setFit(state);
        if (state.kind === 'invalid') {
          setErrors(state.errors);
        }
      }
    );
  }
  React.useEffect(() => {
    // A first verdict for the defaults, before any edit.
    checker.current?.schedule(buildRequest(form).request);
    return () => checker.current?.cancel();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const [data, setData] = React.useState<DataSourcesResponse | null>(null);
  React.useEffect(() => {
    // what a job can mount: listed once when the form opens (not watched; reopen the section to refresh)
    let live = true;
    actions
      .dataSources?.()
      .then(answer => live && setData(answer))
      .catch(() => live && setData(null));
    return () => {
      live = false;
    };
  }, [actions]);
  React.useEffect(() => {
    if (props.focus > 0) {
      if (props.preset) {
        update(props.preset);
      }
      firstInput.current?.focus();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.focus]);

  const update = (patch: Partial<ILaunchForm>): void => {
    const next = { ...form, ...patch };
    setForm(next);
    setDone(null);
    // Editing makes a new job: a new idempotency key.
    requestId.current = newClientRequestId();
    const built = buildRequest(next);
    setErrors(built.errors);
    checker.current?.schedule(built.request);
  };

  const submit = async (event: React.FormEvent): Promise<void> => {
    event.preventDefault();
    if (inFlight.current) {
      return; // a double click sends once; a retry reuses the same key anyway
    }
    const built = buildRequest(form, requestId.current);
    setErrors(built.errors);
    if (!built.request) {
      return;
    }
    inFlight.current = true;
    setSubmitting(true);
    try {
      const response = await actions.submit(built.request);
      model.addJob(response.job);
      setDone(response.job.name);
      requestId.current = newClientRequestId();
    } catch (error) {
      setErrors(mapFieldErrors(error));
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
  };

  const queues = model.queues.data?.queues ?? [];
  const { runtimes, defaultImages } = kindShape(form.kind);
  // the vendor of the chosen accelerator, as the inventory names it ('' for CPU only; null: not known here)
  const vendor =
    form.resources === 'accelerator'
      ? ((model.inventory.data?.models ?? []).find(
          m => m.resource === form.acceleratorType
        )?.vendor ?? null)
      : '';
  const claims = data?.claims ?? [];
  const connections = data?.connections ?? [];
  const note = data ? claimNote(data, form.dataClaim) : null;
  const profiles = (model.profiles.data?.profiles ?? []).filter(p => p.enabled);
  const types = model.inventory.data?.accelerator_names ?? [];
  const typeOptions = types.includes(form.acceleratorType)
    ? types
    : [form.acceleratorType, ...types].filter(Boolean);
  const field = (name: FormField): IFieldProps => ({
    name,
    error: errors[name]
  });

  return (
    <form
      className="jp-accel-form"
      aria-label="Launch a job"
      noValidate
      onSubmit={e => void submit(e)}
    >
      <FitVerdict state={fit} />
      <Field label="Kind" {...field('kind')}>
        <select
          ref={firstInput}
          value={form.kind}
          onChange={e =>
            update({ kind: e.target.value as ILaunchForm['kind'] })
          }
        >
          {launchKinds(model.jobs.data?.kinds_served, form.kind).map(k => (
            <option key={k} value={k}>
              {kindLabel(k)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Name (optional)" {...field('name')}>
        <input
          type="text"
          value={form.name}
          placeholder="generated when empty"
          onChange={e => update({ name: e.target.value })}
        />
      </Field>
      <Field label="Image (optional)" {...field('image')}>
        <input
          type="text"
          value={form.image}
          placeholder={defaultImageHint(defaultImages, vendor)}
          onChange={e => update({ image: e.target.value })}
        />
      </Field>
      {shape.program.length > 0 && (
        <>
          <div className="jp-accel-choice" role="radiogroup" aria-label="Run">
            {(['command', 'script'] as const).map(mode => (
              <label key={mode}>
                <input
                  type="radio"
                  name="jp-accel-mode"
                  checked={form.mode === mode}
                  onChange={() => update({ mode })}
                />
                {mode === 'command' ? 'Command' : 'Script'}
              </label>
            ))}
          </div>
          {form.mode === 'command' ? (
            <Field
              label={
                shape.program[0] === 'entrypoint' ? 'Entrypoint' : 'Command'
              }
              {...field('command')}
            >
              <input
                type="text"
                value={form.command}
                placeholder="python train.py --epochs 3"
                onChange={e => update({ command: e.target.value })}
              />
            </Field>
          ) : (
            <Field label="Script" {...field('script')}>
              <textarea
                rows={5}
                value={form.script}
                onChange={e => update({ script: e.target.value })}
              />
            </Field>
          )}
          {shape.takes.includes('workdir') && (
            <Field label="Working dir (optional)" {...field('workdir')}>
              <input
                type="text"
                value={form.workdir}
                placeholder="a folder of your files, e.g. projects/train"
                onChange={e => update({ workdir: e.target.value })}
              />
            </Field>
          )}
        </>
      )}
      <Field label="Workers" {...field('workers')}>
        <input
          type="number"
          min={0}
          value={form.workers}
          onChange={e => update({ workers: e.target.value })}
        />
      </Field>
      {shape.takes.includes('max_workers') && (
        <Field
          label="Max workers (autoscale, optional)"
          {...field('maxWorkers')}
        >
          <input
            type="number"
            min={0}
            placeholder="fixed size"
            value={form.maxWorkers}
            onChange={e => update({ maxWorkers: e.target.value })}
          />
        </Field>
      )}
      <div className="jp-accel-choice" role="radiogroup" aria-label="Resources">
        {(
          [
            ['accelerator', 'Accelerators'],
            ['profile', 'Hardware profile'],
            ['none', 'CPU only']
          ] as const
        ).map(([value, label]) => (
          <label key={value}>
            <input
              type="radio"
              name="jp-accel-resources"
              checked={form.resources === value}
              onChange={() => update({ resources: value })}
            />
            {label}
          </label>
        ))}
      </div>
      {form.resources === 'accelerator' && (
        <div className="jp-accel-row2">
          <Field label="Accelerator type" {...field('acceleratorType')}>
            <select
              value={form.acceleratorType}
              onChange={e => update({ acceleratorType: e.target.value })}
            >
              {typeOptions.map(t => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Count per worker" {...field('acceleratorCount')}>
            <input
              type="number"
              min={1}
              value={form.acceleratorCount}
              onChange={e => update({ acceleratorCount: e.target.value })}
            />
          </Field>
        </div>
      )}
      {form.resources === 'profile' && (
        <Field label="Hardware profile" {...field('profile')}>
          <select
            value={form.profile}
            onChange={e => update({ profile: e.target.value })}
          >
            <option value="">Choose…</option>
            {profiles.map(p => (
              <option key={p.name} value={p.name}>
                {p.display_name}
              </option>
            ))}
          </select>
        </Field>
      )}
      {claims.length > 0 && (
        <Field label="Data: a PVC to mount" {...field('dataClaim')}>
          <select
            value={form.dataClaim}
            onChange={e => update({ dataClaim: e.target.value })}
          >
            <option value="">None</option>
            {claims.map(c => (
              <option key={c.name} value={c.name}>
                {c.name}
                {c.capacity
                  ? ` (${c.capacity}, ${(c.access_modes ?? []).join(', ')})`
                  : ''}
              </option>
            ))}
          </select>
        </Field>
      )}
      {note && <p className="jp-accel-muted jp-accel-claim-note">{note}</p>}
      {form.dataClaim && (
        <Field label="Mounted at" {...field('dataPath')}>
          <input
            type="text"
            value={form.dataPath}
            onChange={e => update({ dataPath: e.target.value })}
          />
        </Field>
      )}
      {connections.length > 0 && (
        <Field label="Connection (as environment)" {...field('connection')}>
          <select
            value={form.connection}
            onChange={e => update({ connection: e.target.value })}
          >
            <option value="">None</option>
            {connections.map(c => (
              <option key={c.name} value={c.name}>
                {c.display_name ?? c.name} ({c.connection_type})
              </option>
            ))}
          </select>
        </Field>
      )}
      {runtimes && runtimes.length > 0 && (
        <Field label="Training runtime" {...field('runtime')}>
          <select
            value={form.runtime}
            onChange={e => update({ runtime: e.target.value })}
          >
            <option value="">Default</option>
            {runtimes.map(r => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
      )}
      <Field label="Queue" {...field('queue')}>
        <select
          value={form.queue}
          onChange={e => update({ queue: e.target.value })}
        >
          <option value="">
            Default
            {model.queues.data?.default_queue
              ? ` (${model.queues.data.default_queue})`
              : ''}
          </option>
          {queues.map(q => (
            <option key={q.name} value={q.name}>
              {q.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Priority class (optional)" {...field('priority')}>
        <input
          type="text"
          value={form.priority}
          onChange={e => update({ priority: e.target.value })}
        />
      </Field>
      <Field
        label="Maximum run time, hours (optional)"
        {...field('maxRunHours')}
      >
        <input
          type="text"
          inputMode="decimal"
          placeholder="the server's default"
          value={form.maxRunHours}
          onChange={e => update({ maxRunHours: e.target.value })}
        />
      </Field>
      {errors._form && (
        <p className="jp-accel-error" role="alert">
          {errors._form}
        </p>
      )}
      {done && (
        <p className="jp-accel-note" role="status">
          Launched {done}.
        </p>
      )}
      <button
        type="submit"
        className="jp-mod-styled jp-mod-accept jp-accel-submit"
        disabled={submitting}
      >
        {submitting ? 'Launching…' : 'Launch'}
      </button>
    </form>
  );
}
