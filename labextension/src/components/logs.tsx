/**
 * The logs part of the job detail tab: every pod's log interleaved (each
 * line prefixed with its pod) or one pod's, live or the server's kept copy
 * once the pods are gone, streamed with tail and follow, one render per
 * 100 ms however fast it comes.
 */
import { ServerConnection } from '@jupyterlab/services';
import * as React from 'react';

import { JobKind, rayJobsPath, requestAPI } from '../api';
import type { LogPod } from '../api';
import type { IJobRef } from '../detail';
import { LogBuffer, streamLogs } from '../logs';

export function LogsView(props: {
  settings: ServerConnection.ISettings;
  jobRef: IJobRef;
  /** The pods with a log, live or kept (JobDetail.logs.pods). */
  pods: LogPod[];
  /** Whether the job still runs: only then does following make sense. */
  live: boolean;
  /** What to say when there is no log at all (the server's sentence). */
  empty: string;
}): JSX.Element {
  const { settings, jobRef } = props;
  const [pod, setPod] = React.useState('');
  const [tail, setTail] = React.useState(200);
  const [tailDraft, setTailDraft] = React.useState('200');
  const [follow, setFollow] = React.useState(props.live);
  const [text, setText] = React.useState('');
  const [state, setState] = React.useState<
    'idle' | 'streaming' | 'ended' | 'error'
  >('idle');
  const [message, setMessage] = React.useState('');
  const [label, setLabel] = React.useState<string | null>(null);
  const [generation, setGeneration] = React.useState(0);
  const pre = React.useRef<HTMLPreElement>(null);
  const commitTail = (): void => {
    const n = Math.min(100000, Math.max(0, Math.floor(Number(tailDraft)) || 0));
    setTailDraft(String(n));
    setTail(n);
  };
  const hasPods = props.pods.length > 0;

  React.useEffect(() => {
    if (!hasPods) {
      return;
    }
    const abort = new AbortController();
    const buffer = new LogBuffer();
    setText('');
    setMessage('');
    setLabel(null);
    setState('streaming');
    let frame: ReturnType<typeof setTimeout> | null = null;
    const flush = (): void => {
      frame = null;
      setText(buffer.text);
    };
    streamLogs(
      settings,
      jobRef.kind,
      jobRef.name,
      { tail, follow, pod: pod || undefined },
      abort.signal,
      chunk => {
        buffer.append(chunk);
        // Coalesce chunks into one render per 100 ms.
        frame ??= setTimeout(flush, 100);
      },
      setLabel
    )
      .then(() => {
        if (!abort.signal.aborted) {
          flush();
          setState('ended');
        }
      })
      .catch(error => {
        if (!abort.signal.aborted) {
          flush();
          setState('error');
          setMessage(error instanceof Error ? error.message : String(error));
        }
      });
    return () => {
      abort.abort();
      if (frame !== null) {
        clearTimeout(frame);
      }
    };
  }, [
    settings,
    jobRef.kind,
    jobRef.name,
    pod,
    tail,
    follow,
    generation,
    hasPods
  ]);

  React.useEffect(() => {
    if (follow && pre.current) {
      pre.current.scrollTop = pre.current.scrollHeight;
    }
  }, [text, follow]);

  return (
    <section aria-label="Logs" className="jp-accel-section jp-accel-logs">
      <h3 className="jp-accel-section-title">Logs</h3>
      <div className="jp-accel-logs-controls">
        <label>
          Pod{' '}
          <select value={pod} onChange={e => setPod(e.target.value)}>
            <option value="">all pods</option>
            {props.pods.map(p => (
              <option key={p.pod} value={p.pod}>
                {p.label}
                {p.live ? '' : ' (kept)'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tail{' '}
          <input
            type="number"
            min={0}
            max={100000}
            value={tailDraft}
            onChange={e => setTailDraft(e.target.value)}
            // Applied on Enter or leaving the field: one request, not one per keystroke.
            onBlur={commitTail}
            onKeyDown={e => {
              if (e.key === 'Enter') {
                commitTail();
              }
            }}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={follow}
            onChange={e => setFollow(e.target.checked)}
          />{' '}
          Follow
        </label>
        <button
          type="button"
          className="jp-mod-styled jp-accel-button"
          onClick={() => setGeneration(generation + 1)}
        >
          Reload logs
        </button>
        <span
          className="jp-accel-muted"
          data-state={state}
          aria-label="Log state"
        >
          {state === 'streaming'
            ? follow
              ? 'following…'
              : 'loading…'
            : state === 'ended'
              ? 'end of log'
              : ''}
        </span>
      </div>
      {!hasPods && <p className="jp-accel-muted">{props.empty}</p>}
      {label && (
        <p className="jp-accel-muted" aria-label="Log source">
          {label}
        </p>
      )}
      {message && (
        <p className="jp-accel-error" role="alert">
          {message}
        </p>
      )}
      <pre
        ref={pre}
        className="jp-accel-log-text"
        tabIndex={0}
        aria-label="Log output"
      >
        {text}
      </pre>
    </section>
  );
}

const RAY_DONE = new Set(['SUCCEEDED', 'FAILED', 'STOPPED']);

/**
 * A Ray job's driver output (Ray's Jobs API behind the server's dashboard
 * proxy), read again every 2 s until the job ends.
 */
export function RayJobOutput(props: {
  settings: ServerConnection.ISettings;
  kind: string;
  name: string;
  submission: string;
}): JSX.Element {
  const [text, setText] = React.useState('');
  const [status, setStatus] = React.useState<string | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const kind = props.kind as JobKind;
    const recordPath = rayJobsPath(kind, props.name, props.submission);
    const logsPath = rayJobsPath(kind, props.name, props.submission, '/logs');
    const read = async (): Promise<void> => {
      try {
        const [record, logs] = await Promise.all([
          requestAPI<{ status?: string }>(recordPath, props.settings),
          requestAPI<{ logs?: string }>(logsPath, props.settings)
        ]);
        if (!live) {
          return;
        }
        setText(logs.logs ?? '');
        setStatus(record.status ?? null);
        setError(null);
        if (!RAY_DONE.has(record.status ?? '')) {
          timer = setTimeout(() => void read(), 2000);
        }
      } catch (e) {
        if (live) {
          setError(e instanceof Error ? e.message : String(e));
        }
      }
    };
    void read();
    return () => {
      live = false;
      if (timer !== null) {
        clearTimeout(timer);
      }
    };
  }, [props.settings, props.kind, props.name, props.submission]);
  return (
    <div aria-label={`Output of Ray job ${props.submission}`}>
      <p className="jp-accel-muted">
        {props.submission}: {status ?? 'reading…'}
      </p>
      {error && (
        <p className="jp-accel-error" role="alert">
          {error}
        </p>
      )}
      <pre className="jp-accel-log-text" tabIndex={0}>
        {text}
      </pre>
    </div>
  );
}
