/**
 * The sidebar's cluster sections as React components: Accelerators, Queues,
 * My jobs and Launch. State lives in ClusterModel; actions come in as props.
 */
import * as React from 'react';

import type {
  AcceleratorModelSummary,
  FitResponse,
  HardwareProfileView,
  InventoryResponse,
  JobRequest,
  JobScope,
  JobView,
  QueueView,
  SubmitResponse,
  Visibility
} from './api';
import { ClusterModel, IResource, jobKey } from './cluster';
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
} from './launch';
import {
  acceleratorsText,
  deviceBar,
  formatAge,
  formatMemoryMiB,
  freeText,
  IBar,
  kindBadge,
  kindLabel,
  kindShape,
  launchKinds,
  quotaBar
} from './present';
import type { StreamState } from './sse';

/** What the sections can ask the app to do. */
export interface IClusterActions {
  openJob(job: JobView): void;
  suspend(job: JobView, suspend: boolean): Promise<void>;
  remove(job: JobView): Promise<void>;
  fit(request: JobRequest, signal: AbortSignal): Promise<FitResponse>;
  submit(request: JobRequest): Promise<SubmitResponse>;
}

export type SectionId = 'accelerators' | 'queues' | 'jobs' | 'launch';

export const SECTION_TITLES: Record<SectionId, string> = {
  accelerators: 'Accelerators',
  queues: 'Queues',
  jobs: 'My jobs',
  launch: 'Launch'
};

export interface IClusterViewProps {
  model: ClusterModel;
  actions: IClusterActions;
  expanded: Record<SectionId, boolean>;
  onToggle: (id: SectionId) => void;
  readOnly: boolean;
  now: number;
  /** Bumped by the "launch job" command to focus the form. */
  focusLaunch: number;
}

export function ClusterView(props: IClusterViewProps): JSX.Element {
  const { model, expanded, onToggle } = props;
  return (
    <div className="jp-accel-cluster">
      <StreamStatus state={model.streamState} error={model.streamError} />
      <Section id="accelerators" expanded={expanded} onToggle={onToggle}>
        <AcceleratorsSection
          inventory={model.inventory}
          profiles={model.profiles.data?.profiles ?? []}
          profilesVisibility={model.profiles.data?.visibility}
        />
      </Section>
      <Section id="queues" expanded={expanded} onToggle={onToggle}>
        <QueuesSection queues={model.queues} />
      </Section>
      <Section id="jobs" expanded={expanded} onToggle={onToggle}>
        <JobsSection
          jobs={model.jobs}
          scope={model.scope}
          onScope={scope => (model.scope = scope)}
          actions={props.actions}
          readOnly={props.readOnly}
          now={props.now}
        />
      </Section>
      <Section id="launch" expanded={expanded} onToggle={onToggle}>
        {props.readOnly ? (
          <p className="jp-accel-note">
            Read-only: the administrator disabled launching jobs.
          </p>
        ) : (
          <LaunchForm
            model={model}
            actions={props.actions}
            focus={props.focusLaunch}
          />
        )}
      </Section>
    </div>
  );
}

const STREAM_LABELS: Partial<Record<StreamState, string>> = {
  connecting: 'Connecting to live updates…',
  reconnecting: 'Reconnecting to live updates…'
};

function StreamStatus(props: {
  state: StreamState;
  error: string;
}): JSX.Element | null {
  const label = STREAM_LABELS[props.state];
  if (!label) {
    return null;
  }
  return (
    <div
      className="jp-accel-stream jp-accel-tone-warn"
      role="status"
      aria-label="Live updates"
      data-state={props.state}
    >
      {label}
      {props.state === 'reconnecting' && props.error && (
        <span className="jp-accel-muted"> ({props.error})</span>
      )}
    </div>
  );
}

function Section(props: {
  id: SectionId;
  expanded: Record<SectionId, boolean>;
  onToggle: (id: SectionId) => void;
  children: React.ReactNode;
}): JSX.Element {
  const { id } = props;
  const open = props.expanded[id];
  const title = SECTION_TITLES[id];
  const bodyId = `jp-accel-section-${id}`;
  return (
    <section
      className="jp-accel-section jp-accel-collapsible"
      aria-label={title}
      data-section={id}
    >
      <h3 className="jp-accel-section-title">
        <button
          type="button"
          className="jp-accel-section-toggle"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => props.onToggle(id)}
        >
          <span className="jp-accel-caret" aria-hidden="true">
            {open ? '▾' : '▸'}
          </span>
          {title}
        </button>
      </h3>
      {open && (
        <div id={bodyId} className="jp-accel-section-body">
          {props.children}
        </div>
      )}
    </section>
  );
}

/** Loading / error / not-visible states common to every section. */
function ResourceState<T>(props: {
  resource: IResource<T>;
  what: string;
}): JSX.Element | null {
  const { resource, what } = props;
  if (
    resource.status === 'idle' ||
    (resource.status === 'loading' && !resource.data)
  ) {
    return <p className="jp-accel-muted">Loading {what}…</p>;
  }
  if (resource.status === 'error') {
    return (
      <p className="jp-accel-error" role="alert">
        {what[0].toUpperCase() + what.slice(1)} could not be loaded:{' '}
        {resource.error}
      </p>
    );
  }
  return null;
}

function NotVisible(props: {
  visibility: Visibility | undefined;
  what: string;
}): JSX.Element | null {
  if (!props.visibility || props.visibility.visible) {
    return null;
  }
  return (
    <p className="jp-accel-note jp-accel-not-visible">
      {props.what} not visible to your account
      {visibilityDetail(props.visibility.message)}
    </p>
  );
}

/** ": why" after "not visible to your account", unless it only says that again. */
function visibilityDetail(message: string | null | undefined): string {
  return message && !/not visible to your account\.?$/.test(message)
    ? `: ${message}`
    : '.';
}

export function Bar(props: { bar: IBar; className?: string }): JSX.Element {
  const { bar } = props;
  return (
    <div
      className={`jp-accel-bar ${props.className ?? ''}`}
      role="img"
      aria-label={bar.label}
      title={bar.label}
      data-borrowing={bar.borrowing ? 'true' : undefined}
    >
      {bar.segments.map(s => (
        <span
          key={s.kind}
          className={`jp-accel-bar-seg jp-accel-bar-${s.kind}`}
          style={{ width: `${s.percent}%` }}
        />
      ))}
      {bar.nominalAt !== null && (
        <span
          className="jp-accel-bar-nominal"
          style={{ left: `${bar.nominalAt}%` }}
          aria-hidden="true"
        />
      )}
    </div>
  );
}

// ---------------------------------------------------------------- accelerators

function AcceleratorsSection(props: {
  inventory: IResource<InventoryResponse>;
  profiles: HardwareProfileView[];
  profilesVisibility: Visibility | undefined;
}): JSX.Element {
  const data = props.inventory.data;
  return (
    <div className="jp-accel-inventory">
      <ResourceState resource={props.inventory} what="accelerators" />
      {data && (
        <>
          <NotVisible visibility={data.visibility} what="Nodes are" />
          <NotVisible visibility={data.pods_visibility} what="Pods are" />
          {data.visibility?.visible !== false &&
            (data.models ?? []).length === 0 && (
              <p className="jp-accel-muted">No accelerators in this cluster.</p>
            )}
          <ul className="jp-accel-models" aria-label="Accelerator models">
            {(data.models ?? []).map(m => (
              <ModelRow key={m.key} model={m} inventory={data} />
            ))}
          </ul>
        </>
      )}
      <h4 className="jp-accel-subtitle">Hardware profiles</h4>
      <NotVisible
        visibility={props.profilesVisibility}
        what="Hardware profiles are"
      />
      {props.profiles.length === 0 ? (
        <p className="jp-accel-muted">No hardware profiles on offer.</p>
      ) : (
        <ul className="jp-accel-profiles" aria-label="Hardware profiles">
          {props.profiles
            .filter(p => p.enabled)
            .map(p => (
              <li key={p.name} className="jp-accel-profile">
                <span className="jp-accel-strong">{p.display_name}</span>
                <span className="jp-accel-muted">
                  {' '}
                  {p.accelerator ?? 'CPU only'}
                  {p.local_queue_name ? ` · queue ${p.local_queue_name}` : ''}
                </span>
                {p.description && (
                  <div className="jp-accel-muted">{p.description}</div>
                )}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

function ModelRow(props: {
  model: AcceleratorModelSummary;
  inventory: InventoryResponse;
}): JSX.Element {
  const { model } = props;
  const [open, setOpen] = React.useState(false);
  const nodes = (props.inventory.nodes ?? []).flatMap(n =>
    (n.accelerators ?? [])
      .filter(a => a.resource === model.resource && a.model === model.model)
      .map(a => ({ node: n, acc: a }))
  );
  const memory = formatMemoryMiB(model.memory_mib);
  return (
    <li className="jp-accel-model" data-model={model.model}>
      <button
        type="button"
        className="jp-accel-model-head"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="jp-accel-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="jp-accel-model-name">
          <span className="jp-accel-strong">{model.model}</span>
          <span className="jp-accel-muted">
            {' '}
            {model.vendor_name}
            {memory ? ` · ${memory}` : ''} · {model.node_count}{' '}
            {model.node_count === 1 ? 'node' : 'nodes'}
          </span>
        </span>
        <span className="jp-accel-model-free">{freeText(model)}</span>
      </button>
      <Bar bar={deviceBar(model)} />
      {open && (
        <ul className="jp-accel-nodes" aria-label={`Nodes with ${model.model}`}>
          {nodes.map(({ node, acc }) => (
            <li key={node.name} className="jp-accel-node">
              <div className="jp-accel-node-head">
                <span>{node.name}</span>
                <span className="jp-accel-muted">
                  {!node.ready
                    ? 'not ready'
                    : node.unschedulable
                      ? 'cordoned'
                      : freeText(acc)}
                </span>
              </div>
              <Bar bar={deviceBar(acc)} className="jp-accel-bar-small" />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

// ---------------------------------------------------------------------- queues

function QueuesSection(props: {
  queues: IResource<import('./api').QueuesResponse>;
}): JSX.Element {
  const data = props.queues.data;
  return (
    <div className="jp-accel-queues">
      <ResourceState resource={props.queues} what="queues" />
      {data && (
        <>
          <NotVisible visibility={data.visibility} what="Queues are" />
          {data.visibility?.visible !== false &&
            (data.queues ?? []).length === 0 && (
              <p className="jp-accel-muted">
                No LocalQueue in this namespace: jobs cannot be queued.
              </p>
            )}
          <ul className="jp-accel-queue-list" aria-label="Local queues">
            {(data.queues ?? []).map(q => (
              <QueueRow key={q.name} queue={q} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function QueueRow(props: { queue: QueueView }): JSX.Element {
  const q = props.queue;
  const visible = q.cluster_queue_visibility?.visible !== false;
  return (
    <li className="jp-accel-queue" data-queue={q.name}>
      <div className="jp-accel-queue-head">
        <span className="jp-accel-strong">{q.name}</span>
        {q.is_default && <span className="jp-accel-badge">default</span>}
        <span className="jp-accel-muted"> → {q.cluster_queue}</span>
      </div>
      <div className="jp-accel-muted jp-accel-queue-counts">
        {q.pending_workloads} pending · {q.admitted_workloads} admitted
        {q.active === false ? ' · inactive' : ''}
      </div>
      {!visible ? (
        <p className="jp-accel-note jp-accel-not-visible">
          ClusterQueue quota not visible to your account
          {visibilityDetail(q.cluster_queue_visibility?.message)}
        </p>
      ) : (
        <div className="jp-accel-flavors">
          {(q.flavors ?? []).map(f => (
            <div key={f.name} className="jp-accel-flavor" data-flavor={f.name}>
              <div className="jp-accel-flavor-name">
                {f.name}
                {f.accelerator_model && (
                  <span className="jp-accel-muted">
                    {' '}
                    · {f.accelerator_model}
                  </span>
                )}
              </div>
              {(f.resources ?? []).map(r => {
                const bar = quotaBar(r);
                return (
                  <div key={r.resource} className="jp-accel-quota">
                    <div className="jp-accel-quota-label">{bar.label}</div>
                    <Bar bar={bar} className="jp-accel-bar-small" />
                  </div>
                );
              })}
            </div>
          ))}
          {q.borrowing_approximate && (
            <p className="jp-accel-muted">Borrowable amounts are estimates.</p>
          )}
        </div>
      )}
    </li>
  );
}

// ------------------------------------------------------------------------ jobs

function JobsSection(props: {
  jobs: IResource<import('./api').JobsResponse>;
  scope: JobScope;
  onScope: (scope: JobScope) => void;
  actions: IClusterActions;
  readOnly: boolean;
  now: number;
}): JSX.Element {
  const data = props.jobs.data;
  return (
    <div className="jp-accel-jobs">
      <div className="jp-accel-scope" role="radiogroup" aria-label="Which jobs">
        {(['mine', 'namespace'] as JobScope[]).map(scope => (
          <label key={scope} className="jp-accel-scope-option">
            <input
              type="radio"
              name="jp-accel-scope"
              value={scope}
              checked={props.scope === scope}
              onChange={() => props.onScope(scope)}
            />
            {scope === 'mine' ? 'Mine' : 'Whole namespace'}
          </label>
        ))}
      </div>
      <ResourceState resource={props.jobs} what="jobs" />
      {data && (
        <>
          {Object.entries(data.visibility ?? {})
            .filter(([, v]) => !v.visible)
            .map(([kind, v]) => (
              <NotVisible
                key={kind}
                visibility={v}
                what={`${kindLabel(kind)} jobs are`}
              />
            ))}
          {(data.jobs ?? []).length === 0 ? (
            <p className="jp-accel-muted">
              No jobs yet. Launch one below, or with %accel in a notebook.
            </p>
          ) : (
            <ul className="jp-accel-job-list" aria-label="Jobs">
              {(data.jobs ?? []).map(job => (
                <JobRow
                  key={jobKey(job)}
                  job={job}
                  actions={props.actions}
                  readOnly={props.readOnly}
                  now={props.now}
                />
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}

/** The status as the server words and tones it (JobView.display). */
export function StatusBadge(props: { job: JobView }): JSX.Element {
  const { job } = props;
  return (
    <span
      className={`jp-accel-status-badge jp-accel-tone-${job.display.tone}`}
      data-status={job.status}
    >
      {job.display.label}
    </span>
  );
}

function JobRow(props: {
  job: JobView;
  actions: IClusterActions;
  readOnly: boolean;
  now: number;
}): JSX.Element {
  const { job, actions } = props;
  const [busy, setBusy] = React.useState(false);
  const position = job.display.place;
  const devices =
    Object.keys(job.accelerators ?? {}).length > 0
      ? job.accelerators
      : job.accelerators_requested;
  const run = (fn: () => Promise<void>): void => {
    setBusy(true);
    void fn().finally(() => setBusy(false));
  };
  return (
    <li
      className="jp-accel-job"
      data-job={job.name}
      data-kind={job.kind}
      data-status={job.status}
    >
      <div className="jp-accel-job-head">
        <span
          className="jp-accel-kind-icon"
          title={kindLabel(job.kind)}
          aria-label={kindLabel(job.kind)}
        >
          {kindBadge(job.kind)}
        </span>
        <button
          type="button"
          className="jp-accel-link jp-accel-job-name"
          onClick={() => actions.openJob(job)}
          title={`Open ${job.name}`}
        >
          {job.name}
        </button>
        <StatusBadge job={job} />
        <span className="jp-accel-muted jp-accel-age">
          {formatAge(job.created, props.now)}
        </span>
      </div>
      <div className="jp-accel-job-reason">
        {job.display.sentence}
        {position && <span className="jp-accel-position"> · {position}</span>}
      </div>
      <div className="jp-accel-muted">{acceleratorsText(devices)}</div>
      <div className="jp-accel-job-actions">
        <button
          type="button"
          className="jp-mod-styled jp-accel-button"
          onClick={() => actions.openJob(job)}
        >
          Details
        </button>
        {(['suspend', 'resume'] as const)
          .filter(a => !props.readOnly && job.display.actions.includes(a))
          .map(a => (
            <button
              key={a}
              type="button"
              className="jp-mod-styled jp-accel-button"
              disabled={busy}
              onClick={() => run(() => actions.suspend(job, a === 'suspend'))}
            >
              {a === 'suspend' ? 'Suspend' : 'Resume'}
            </button>
          ))}
        {!props.readOnly && (
          <button
            type="button"
            className="jp-mod-styled jp-accel-button jp-accel-danger"
            disabled={busy || !job.display.actions.includes('delete')}
            aria-label={`Delete ${job.name}`}
            onClick={() => run(() => actions.remove(job))}
          >
            Delete
          </button>
        )}
      </div>
    </li>
  );
}

// ---------------------------------------------------------------------- launch

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

function LaunchForm(props: {
  model: ClusterModel;
  actions: IClusterActions;
  focus: number;
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
  React.useEffect(() => {
    if (props.focus > 0) {
      firstInput.current?.focus();
    }
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
          placeholder="the server's default image"
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

interface IFieldProps {
  name: FormField;
  error?: string;
}

/** A labelled input with its message; the input gets aria-invalid. */
function Field(
  props: IFieldProps & { label: string; children: React.ReactElement }
): JSX.Element {
  const id = `jp-accel-field-${props.name}`;
  const errorId = `${id}-error`;
  const child = React.cloneElement(props.children, {
    id,
    name: props.name,
    'aria-invalid': props.error ? true : undefined,
    'aria-describedby': props.error ? errorId : undefined
  });
  return (
    <div className="jp-accel-field" data-field={props.name}>
      <label htmlFor={id}>{props.label}</label>
      {child}
      {props.error && (
        <div id={errorId} className="jp-accel-field-error">
          {props.error}
        </div>
      )}
    </div>
  );
}
