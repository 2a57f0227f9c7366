/**
 * The job detail main-area tab: status and reason, a timeline of events,
 * the pods, streaming logs (components/logs.tsx) and the Ray dashboard link.
 */
import { MainAreaWidget } from '@jupyterlab/apputils';
import { ServerConnection } from '@jupyterlab/services';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import * as React from 'react';

import { fetchJobDetail, JobDetail, JobKind, JobView } from './api';
import { ClusterModel, UTILIZATION_MS } from './cluster';
import { extendJob } from './extend';
import { chipIcon } from './icons';
import { LogsView, RayJobOutput } from './components/logs';
import { UtilizationPanel } from './components/utilization';
import { acceleratorsText, formatAge, kindLabel } from './present';
import { ProgressBar, StatusBadge } from './views';

export interface IJobRef {
  kind: JobKind;
  name: string;
}

/** DOM id of a job's detail tab (tests and the "open job" command use it). */
export function detailId(ref: IJobRef): string {
  return `jp-accel-job-${ref.kind}-${ref.name}`;
}

class JobDetailBody extends ReactWidget {
  constructor(
    readonly ref: IJobRef,
    private readonly _settings: ServerConnection.ISettings,
    private readonly _model: ClusterModel
  ) {
    super();
    this.addClass('jp-accel-detail');
    this._model.changed.connect(this._onModelChanged, this);
    void this.reload();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    // a running job's accelerators are asked again every 30 s while the tab shows, never while hidden
    this._clock = setInterval(() => {
      if (this._detail?.job.status === 'Running') {
        this._tick++;
        this.update();
      }
    }, UTILIZATION_MS);
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    if (this._clock !== null) {
      clearInterval(this._clock);
      this._clock = null;
    }
  }

  async reload(): Promise<void> {
    try {
      this._detail = await fetchJobDetail(
        this._settings,
        this.ref.kind,
        this.ref.name
      );
      this._error = null;
      this._tick++;
    } catch (error) {
      this._error = error instanceof Error ? error.message : String(error);
    }
    this.update();
  }

  dispose(): void {
    this._model.changed.disconnect(this._onModelChanged, this);
    if (this._clock !== null) {
      clearInterval(this._clock);
    }
    super.dispose();
  }

  render(): JSX.Element {
    return (
      <JobDetailView
        detail={this._detail}
        error={this._error}
        settings={this._settings}
        jobRef={this.ref}
        tick={this._tick}
        onReload={() => void this.reload()}
        onExtend={job =>
          void extendJob(this._settings, job).then(
            view => view && this.reload()
          )
        }
      />
    );
  }

  private _onModelChanged(): void {
    // A new listing of this job (the stream named `jobs`): fetch its detail.
    const listed = this._model.findJob(this.ref.kind, this.ref.name);
    if (listed && listed !== this._lastListed) {
      this._lastListed = listed;
      void this.reload();
    }
  }

  private _detail: JobDetail | null = null;
  private _error: string | null = null;
  private _lastListed: JobView | null = null;
  private _tick = 0;
  private _clock: ReturnType<typeof setInterval> | null = null;
}

/** A MainAreaWidget showing one job. */
export function createJobDetail(
  ref: IJobRef,
  settings: ServerConnection.ISettings,
  model: ClusterModel
): MainAreaWidget<JobDetailBody> {
  const content = new JobDetailBody(ref, settings, model);
  const widget = new MainAreaWidget({ content });
  widget.id = detailId(ref);
  widget.title.label = ref.name;
  widget.title.caption = `${kindLabel(ref.kind)} ${ref.name}`;
  widget.title.icon = chipIcon;
  widget.title.closable = true;
  return widget;
}

export function JobDetailView(props: {
  detail: JobDetail | null;
  error: string | null;
  settings: ServerConnection.ISettings;
  jobRef: IJobRef;
  /** Bumped to ask for the accelerators' utilization again. */
  tick?: number;
  onReload: () => void;
  /** Extend its time limit (offered when its display allows `extend`). */
  onExtend?: (job: JobView) => void;
}): JSX.Element {
  const { detail, error, jobRef } = props;
  const now = Date.now();
  // the Ray job whose output is shown below its cluster's list of Ray jobs
  const [rayOutput, setRayOutput] = React.useState<string | null>(null);
  if (!detail) {
    return (
      <div className="jp-accel-detail-body">
        <h2>{jobRef.name}</h2>
        {error ? (
          <p className="jp-accel-error" role="alert">
            {error}
          </p>
        ) : (
          <p className="jp-accel-muted">Loading…</p>
        )}
      </div>
    );
  }
  const job = detail.job;
  const position = job.display.place;
  const dashboard = detail.dashboard_path
    ? new URL(detail.dashboard_path, props.settings.baseUrl).href
    : null;
  return (
    <div className="jp-accel-detail-body" aria-label={`Job ${job.name}`}>
      <header className="jp-accel-detail-head">
        <h2>
          {job.name}{' '}
          <span className="jp-accel-muted">{kindLabel(job.kind)}</span>
        </h2>
        <div
          className="jp-accel-detail-status"
          role="status"
          aria-label="Job status"
          data-status={job.status}
        >
          <StatusBadge job={job} /> {job.display.sentence}
          {position && <span> · {position}</span>}
        </div>
        <ProgressBar job={job} />
        {(job.progress?.metrics ?? []).length > 0 && (
          <dl className="jp-accel-metrics" aria-label="Metrics">
            {(job.progress?.metrics ?? []).map(m => (
              <React.Fragment key={m.name}>
                <dt>{m.name}</dt>
                <dd>{m.value}</dd>
              </React.Fragment>
            ))}
          </dl>
        )}
        {job.display.warning && (
          <p className="jp-accel-tone-warn" role="note" aria-label="Warning">
            {job.display.warning}
          </p>
        )}
        {(job.display.eta || job.display.time_limit) && (
          <p aria-label="Time">{job.display.eta ?? job.display.time_limit}</p>
        )}
        {job.display.detail && (
          <p className="jp-accel-muted" aria-label="Kueue's message">
            Kueue: {job.display.detail}
          </p>
        )}
        {error && (
          <p className="jp-accel-error" role="alert">
            {error}
          </p>
        )}
        <dl className="jp-accel-rows">
          <Row label="Queue" value={job.queue ?? '—'} />
          <Row label="ClusterQueue" value={job.cluster_queue ?? '—'} />
          <Row
            label="Accelerators"
            value={acceleratorsText(
              Object.keys(job.accelerators ?? {}).length
                ? job.accelerators
                : job.accelerators_requested
            )}
          />
          <Row
            label="Created"
            value={
              job.created
                ? `${job.created} (${formatAge(job.created, now)} ago)`
                : '—'
            }
          />
          {job.end_time && <Row label="Ended" value={job.end_time} />}
        </dl>
        <div className="jp-accel-detail-actions">
          <button
            type="button"
            className="jp-mod-styled jp-accel-button"
            onClick={props.onReload}
          >
            Reload
          </button>
          {props.onExtend && job.display.actions.includes('extend') && (
            <button
              type="button"
              className="jp-mod-styled jp-accel-button"
              onClick={() => props.onExtend?.(job)}
            >
              Extend time limit
            </button>
          )}
          {dashboard && (
            <a
              className="jp-accel-link"
              href={dashboard}
              target="_blank"
              rel="noopener noreferrer"
            >
              Open the Ray dashboard
            </a>
          )}
        </div>
      </header>
      {(job.ahead ?? []).length > 0 && (
        <section aria-label="Queued ahead" className="jp-accel-section">
          <h3 className="jp-accel-section-title">Queued ahead</h3>
          <p className="jp-accel-muted">
            Workloads before it that wait for the same accelerators.
          </p>
          <table className="jp-accel-table">
            <thead>
              <tr>
                <th>Workload</th>
                <th>Owner</th>
                <th>Priority</th>
                <th>In line</th>
                <th>Asks for</th>
              </tr>
            </thead>
            <tbody>
              {(job.ahead ?? []).map(a => (
                <tr key={a.name}>
                  <td>{a.name}</td>
                  <td>
                    {a.owner_kind ? `${a.owner_kind}/${a.owner_name}` : '—'}
                  </td>
                  <td>{a.priority ?? '—'}</td>
                  <td>{a.place ?? '—'}</td>
                  <td>
                    {Object.entries(a.requests_text ?? {})
                      .map(([resource, text]) => `${text} ${resource}`)
                      .join(', ') || '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {Object.keys(job.accelerators_requested ?? {}).length > 0 && (
        <UtilizationPanel
          settings={props.settings}
          kind={job.kind}
          name={job.name}
          tick={props.tick ?? 0}
        />
      )}
      <section aria-label="Pods" className="jp-accel-section">
        <h3 className="jp-accel-section-title">Pods</h3>
        {(job.pods ?? []).length === 0 ? (
          <p className="jp-accel-muted">
            {detail.logs?.sentence ?? 'No pods yet.'}
          </p>
        ) : (
          <table className="jp-accel-table">
            <thead>
              <tr>
                <th>Pod</th>
                <th>Role</th>
                <th>Phase</th>
                <th>Ready</th>
                <th>Restarts</th>
                <th>Node</th>
              </tr>
            </thead>
            <tbody>
              {(job.pods ?? []).map(p => (
                <tr key={p.name}>
                  <td>{p.name}</td>
                  <td>{p.role ?? ''}</td>
                  <td>
                    {p.phase ?? ''}
                    {p.reason ? ` (${p.reason})` : ''}
                  </td>
                  <td>{p.ready ? 'yes' : 'no'}</td>
                  <td>{p.restarts}</td>
                  <td>
                    {p.node ?? ''}
                    {p.simulated && (
                      <span
                        className="jp-accel-tone-warn jp-accel-simulated"
                        title="A simulated node (kwok): no code of this job runs there, and its log is a fixture."
                      >
                        {' '}
                        simulated
                      </span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {(detail.ray_jobs || detail.ray_jobs_note) && (
        <section aria-label="Ray jobs" className="jp-accel-section">
          <h3 className="jp-accel-section-title">Ray jobs on it</h3>
          {detail.ray_jobs_note && (
            <p className="jp-accel-muted">{detail.ray_jobs_note}</p>
          )}
          {detail.ray_jobs && detail.ray_jobs.length === 0 && (
            <p className="jp-accel-muted">
              No Ray job submitted to it yet (%%accel_job --cluster {job.name}).
            </p>
          )}
          {detail.ray_jobs && detail.ray_jobs.length > 0 && (
            <table className="jp-accel-table">
              <thead>
                <tr>
                  <th>Submission</th>
                  <th>Status</th>
                  <th>Started</th>
                  <th>Entrypoint</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {detail.ray_jobs.map(r => (
                  <tr key={r.submission_id} data-submission={r.submission_id}>
                    <td>{r.submission_id}</td>
                    <td title={r.message ?? undefined}>{r.status}</td>
                    <td>{r.start_time ?? ''}</td>
                    <td className="jp-accel-entrypoint">
                      {r.entrypoint ?? ''}
                    </td>
                    <td>
                      <button
                        type="button"
                        className="jp-accel-link"
                        aria-label={`Output of ${r.submission_id}`}
                        onClick={() =>
                          setRayOutput(
                            rayOutput === r.submission_id
                              ? null
                              : r.submission_id
                          )
                        }
                      >
                        {rayOutput === r.submission_id ? 'Hide' : 'Output'}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {rayOutput && (
            <RayJobOutput
              settings={props.settings}
              kind={job.kind}
              name={job.name}
              submission={rayOutput}
            />
          )}
        </section>
      )}
      <section aria-label="Timeline" className="jp-accel-section">
        <h3 className="jp-accel-section-title">Timeline</h3>
        {(detail.events ?? []).length === 0 ? (
          <p className="jp-accel-muted">No events.</p>
        ) : (
          <ol className="jp-accel-timeline">
            {(detail.events ?? []).map((e, i) => (
              <li
                key={`${e.object}-${e.reason}-${i}`}
                className={e.type === 'Warning' ? 'jp-accel-tone-warn' : ''}
              >
                <span className="jp-accel-muted">
                  {e.last_seen ? formatAge(e.last_seen, now) + ' ago' : ''}
                </span>{' '}
                <span className="jp-accel-strong">{e.reason}</span>{' '}
                <span className="jp-accel-muted">{e.object}</span>
                {e.count > 1 ? ` ×${e.count}` : ''}
                <div>{e.message}</div>
              </li>
            ))}
          </ol>
        )}
      </section>
      <LogsView
        settings={props.settings}
        jobRef={jobRef}
        pods={detail.logs?.pods ?? []}
        live={!job.display.finished}
        empty={detail.logs?.sentence ?? 'No pods yet, so no logs.'}
      />
    </div>
  );
}

function Row(props: { label: string; value: string }): JSX.Element {
  return (
    <div className="jp-accel-row">
      <dt className="jp-accel-row-label">{props.label}</dt>
      <dd className="jp-accel-row-value">{props.value}</dd>
    </div>
  );
}
