/**
 * A job's accelerators over its life in its detail tab: utilization and
 * memory per device, from the cluster's metrics API, or why there are none.
 */
import { ServerConnection } from '@jupyterlab/services';
import * as React from 'react';

import { fetchJobUtilization, JobKind, JobUtilizationDetail } from '../api';
import { ISeries, Point, TimeChart } from './charts';

export function UtilizationPanel(props: {
  settings: ServerConnection.ISettings;
  kind: JobKind;
  name: string;
  /** Changed by the detail tab (on its reloads, and every 30 s while it shows a running job): ask again. */
  tick: number;
}): JSX.Element {
  const [detail, setDetail] = React.useState<JobUtilizationDetail | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    let live = true;
    fetchJobUtilization(props.settings, props.kind, props.name)
      .then(answer => {
        if (live) {
          setDetail(answer);
          setError(null);
        }
      })
      .catch(e => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [props.settings, props.kind, props.name, props.tick]);
  const devices = detail?.devices ?? [];
  const label = (d: (typeof devices)[number]): string =>
    `${d.pod}${d.container ? `/${d.container}` : ''} · ${d.device}`;
  const util: ISeries[] = devices.map(d => ({
    label: label(d),
    points: (d.utilization ?? []) as Point[]
  }));
  const memory: ISeries[] = devices.map(d => ({
    label: `${label(d)}${d.memory_total_mib ? ` (of ${Math.round(d.memory_total_mib)} MiB)` : ''}`,
    points: (d.memory_used_mib ?? []) as Point[]
  }));
  const simulated = devices.find(d => d.simulated)?.simulated;
  return (
    <section aria-label="Utilization" className="jp-accel-section">
      <h3 className="jp-accel-section-title">Accelerator use</h3>
      {error && (
        <p className="jp-accel-error" role="alert">
          {error}
        </p>
      )}
      {detail && (
        <p
          className="jp-accel-muted"
          aria-label="Metrics source"
          data-available={detail.source.available}
        >
          {detail.source.message}
        </p>
      )}
      {detail?.note && <p className="jp-accel-muted">{detail.note}</p>}
      {detail?.idle && (
        <p className="jp-accel-tone-warn" role="note" data-idle="true">
          {detail.idle}: suspend or delete it to give them back.
        </p>
      )}
      {simulated && (
        <p className="jp-accel-note" aria-label="Simulated devices">
          Simulated devices ({simulated}): devcluster's device exporter
          publishes DCGM's names with the container's CPU and memory use; these
          are not GPUs.
        </p>
      )}
      {devices.length > 0 && (
        <>
          <TimeChart
            series={util}
            unit="%"
            max={100}
            label={`Utilization per device of ${props.name}`}
          />
          <TimeChart
            series={memory}
            unit="MiB"
            label={`Memory in use per device of ${props.name}`}
            height={110}
          />
        </>
      )}
    </section>
  );
}
