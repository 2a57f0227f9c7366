/**
 * Building blocks of the sidebar's sections: the collapsible section, loading and not-visible states, usage bars,
 * the status badge and labelled form fields.
 */
import * as React from 'react';

import type { JobView, Visibility } from '../api';
import type { IResource } from '../cluster';
import type { FormField } from '../launch';
import type { IBar } from '../present';
import { SECTION_TITLES, SectionId } from '../sections/types';
import type { StreamState } from '../sse';

const STREAM_LABELS: Partial<Record<StreamState, string>> = {
  connecting: 'Connecting to live updates…',
  reconnecting: 'Reconnecting to live updates…'
};

export function StreamStatus(props: {
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

export function Section(props: {
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
export function ResourceState<T>(props: {
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

export function NotVisible(props: {
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
export function visibilityDetail(message: string | null | undefined): string {
  return message && !/not visible to your account\.?$/.test(message)
    ? `: ${message}`
    : '.';
}

/** What a job's own code reports of its progress (TrainJob's trainerStatus): a bar and the server's line. */
export function ProgressBar(props: { job: JobView }): JSX.Element | null {
  const progress = props.job.progress;
  if (!progress) {
    return null;
  }
  const percent = progress.percent ?? null;
  return (
    <div className="jp-accel-progress" data-percent={percent ?? undefined}>
      {percent !== null && (
        <div
          className="jp-accel-bar jp-accel-bar-small"
          role="progressbar"
          aria-label={`Progress of ${props.job.name}`}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          title={progress.text}
        >
          <span
            className="jp-accel-bar-seg jp-accel-bar-used"
            style={{ width: `${percent}%` }}
          />
        </div>
      )}
      <span className="jp-accel-muted jp-accel-progress-text">
        {progress.text}
      </span>
    </div>
  );
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

export interface IFieldProps {
  name: FormField;
  error?: string;
}

/** A labelled input with its message; the input gets aria-invalid. */
export function Field(
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
