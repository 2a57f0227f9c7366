/** The My jobs section: the jobs with their status, sentence, place in line and actions. */
import * as React from 'react';

import type {
  JobScope,
  JobUtilization,
  JobView,
  UtilizationResponse
} from '../api';
import { Sparkline } from '../components/charts';
import { IResource, jobKey, utilizationOf } from '../cluster';
import { acceleratorsText, formatAge, kindBadge, kindLabel } from '../present';
import {
  NotVisible,
  ProgressBar,
  ResourceState,
  StatusBadge
} from '../components/common';
import { useRenderTiming } from '../components/timing';
import { IClusterActions } from './types';

export function JobsSection(props: {
  jobs: IResource<import('../api').JobsResponse>;
  scope: JobScope;
  onScope: (scope: JobScope) => void;
  actions: IClusterActions;
  readOnly: boolean;
  now: number;
  /** The running jobs' accelerator utilization (null: not asked yet or no metrics API). */
  utilization?: UtilizationResponse | null;
}): JSX.Element {
  const data = props.jobs.data;
  useRenderTiming('jobs', data?.jobs?.length ?? 0);
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
            <JobList
              jobs={data.jobs ?? []}
              actions={props.actions}
              readOnly={props.readOnly}
              now={props.now}
              utilization={props.utilization ?? null}
            />
          )}
        </>
      )}
    </div>
  );
}

/**
 * Rows shown at first and added by "Show more": a namespace with 1,000 jobs
 * renders 50 rows, not 1,000, so the sidebar stays responsive while pushes
 * bring new answers; the filter finds any job by name, status or kind.
 */
export const JOBS_SHOWN = 50;

/** Whether a job matches the filter text (its name, status label or kind). */
export function jobMatches(job: JobView, text: string): boolean {
  const wanted = text.trim().toLowerCase();
  return (
    wanted === '' ||
    [job.name, job.display.label, job.status, kindLabel(job.kind)].some(v =>
      (v ?? '').toLowerCase().includes(wanted)
    )
  );
}

function JobList(props: {
  jobs: JobView[];
  actions: IClusterActions;
  readOnly: boolean;
  now: number;
  utilization: UtilizationResponse | null;
}): JSX.Element {
  const [shown, setShown] = React.useState(JOBS_SHOWN);
  const [filter, setFilter] = React.useState('');
  const matching = filter
    ? props.jobs.filter(job => jobMatches(job, filter))
    : props.jobs;
  const visible = matching.slice(0, shown);
  const hidden = matching.length - visible.length;
  return (
    <>
      {props.jobs.length > JOBS_SHOWN && (
        <input
          type="search"
          className="jp-accel-job-filter"
          aria-label="Filter jobs"
          placeholder={`Filter ${props.jobs.length} jobs by name, status or kind`}
          value={filter}
          onChange={e => {
            setFilter(e.target.value);
            setShown(JOBS_SHOWN);
          }}
        />
      )}
      {matching.length === 0 ? (
        <p className="jp-accel-muted">No job matches “{filter}”.</p>
      ) : (
        <ul className="jp-accel-job-list" aria-label="Jobs">
          {visible.map(job => (
            <JobRow
              key={jobKey(job)}
              job={job}
              actions={props.actions}
              readOnly={props.readOnly}
              now={props.now}
              use={utilizationOf(props.utilization, job)}
            />
          ))}
        </ul>
      )}
      {hidden > 0 && (
        <button
          type="button"
          className="jp-accel-link jp-accel-show-more"
          onClick={() => setShown(shown + JOBS_SHOWN)}
        >
          {`Show ${Math.min(JOBS_SHOWN, hidden)} more (${hidden} not shown)`}
        </button>
      )}
    </>
  );
}

function JobRow(props: {
  job: JobView;
  actions: IClusterActions;
  readOnly: boolean;
  now: number;
  use: JobUtilization | null;
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
      <ProgressBar job={job} />
      {props.use && <UseLine use={props.use} />}
      {props.use?.idle && (
        <div
          className="jp-accel-tone-warn jp-accel-job-warning"
          role="note"
          data-idle="true"
        >
          {props.use.idle}: suspend or delete it to give them back, or extend it
          if it is about to work.
        </div>
      )}
      {job.display.warning && (
        <div className="jp-accel-tone-warn jp-accel-job-warning" role="note">
          {job.display.warning}
        </div>
      )}
      {(job.display.eta || job.display.time_limit) && (
        <div className="jp-accel-muted jp-accel-job-time">
          {job.display.eta ?? job.display.time_limit}
        </div>
      )}
      {job.display.detail && (
        <div
          className="jp-accel-muted jp-accel-job-detail"
          title="Kueue's own message"
        >
          Kueue: {job.display.detail}
        </div>
      )}
      <div className="jp-accel-muted">{acceleratorsText(devices)}</div>
      <div className="jp-accel-job-actions">
        <button
          type="button"
          className="jp-mod-styled jp-accel-button"
          onClick={() => actions.openJob(job)}
        >
          Details
        </button>
        {!props.readOnly &&
          actions.runOn &&
          job.display.actions.includes('run') && (
            <button
              type="button"
              className="jp-mod-styled jp-accel-button"
              disabled={busy}
              aria-label={`Run a command on ${job.name}`}
              onClick={() => run(() => actions.runOn!(job))}
            >
              Run on…
            </button>
          )}
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
        {!props.readOnly && job.display.actions.includes('extend') && (
          <button
            type="button"
            className="jp-mod-styled jp-accel-button"
            disabled={busy}
            aria-label={`Extend the time limit of ${job.name}`}
            onClick={() => run(() => actions.extend(job))}
          >
            Extend
          </button>
        )}
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

/** A running job's accelerators now and over the last half hour (the metrics API). */
export function UseLine(props: { use: JobUtilization }): JSX.Element {
  const { use } = props;
  if (!use.devices) {
    return (
      <div className="jp-accel-muted jp-accel-use">
        No utilization series for its pods.
      </div>
    );
  }
  const now =
    use.percent === null || use.percent === undefined
      ? '—'
      : `${use.percent.toFixed(0)} %`;
  const label = `Accelerator use of ${use.name}: ${now} now, over the last 30 minutes`;
  return (
    <div className="jp-accel-use" data-percent={use.percent ?? undefined}>
      <Sparkline
        points={(use.points ?? []) as [number, number][]}
        label={label}
      />
      <span className="jp-accel-muted">
        {now} of {use.devices === 1 ? '1 device' : `${use.devices} devices`}
        {use.simulated ? ' (simulated: CPU use)' : ''}
      </span>
    </div>
  );
}
