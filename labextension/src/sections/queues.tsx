/** The Queues section: the namespace's LocalQueues with their ClusterQueues' quota bars. */
import * as React from 'react';

import type { QueueUsageResponse, QueueView } from '../api';
import { ISeries, Point, TimeChart } from '../components/charts';
import { IResource } from '../cluster';
import { quotaBar } from '../present';
import {
  Bar,
  NotVisible,
  ResourceState,
  visibilityDetail
} from '../components/common';

export function QueuesSection(props: {
  queues: IResource<import('../api').QueuesResponse>;
  /** The ClusterQueues' use over the last hours (Kueue's metrics), when asked. */
  usage?: QueueUsageResponse | null;
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
              <QueueRow key={q.name} queue={q} usage={props.usage ?? null} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Each resource's use as a share of its nominal quota, per flavor: one chart of percents for a ClusterQueue. */
export function usageSeries(
  usage: QueueUsageResponse,
  clusterQueue: string
): ISeries[] {
  return (usage.series ?? [])
    .filter(s => s.cluster_queue === clusterQueue && s.nominal)
    .map(s => ({
      label: `${s.resource} (${s.flavor}, of ${s.nominal})`,
      points: (s.usage ?? []).map(
        ([t, v]) => [t, (v / (s.nominal as number)) * 100] as Point
      )
    }));
}

function QueueRow(props: {
  queue: QueueView;
  usage: QueueUsageResponse | null;
}): JSX.Element {
  const q = props.queue;
  const history = props.usage ? usageSeries(props.usage, q.cluster_queue) : [];
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
      {props.usage && (
        <details className="jp-accel-queue-history">
          <summary>
            Use over the last {Math.round(props.usage.window_seconds / 3600)}{' '}
            hours
          </summary>
          {history.length > 0 ? (
            <TimeChart
              series={history}
              unit="%"
              label={`Use of ${q.cluster_queue} over time, as a share of its quota`}
              height={110}
            />
          ) : (
            <p className="jp-accel-muted">
              {props.usage.source.available
                ? `No figures of ${q.cluster_queue} in Kueue's metrics yet.`
                : props.usage.source.message}
            </p>
          )}
        </details>
      )}
    </li>
  );
}
