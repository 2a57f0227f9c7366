/**
 * The left-sidebar panel: a SidePanel with a refresh button and a React view
 * of the model's state.
 */
import {
  ReactWidget,
  refreshIcon,
  SidePanel,
  ToolbarButton
} from '@jupyterlab/ui-components';
import { Message } from '@lumino/messaging';
import { Panel, Widget } from '@lumino/widgets';
import * as React from 'react';

import {
  apiRows,
  connectionRows,
  IRow,
  IStatusSummary,
  permissionRows,
  summarizeState
} from './format';
import { ClusterModel } from './cluster';
import type { ILaunchForm } from './launch';
import { chipIcon } from './icons';
import { AccelModel, AccelState } from './model';
import { PANEL_ID } from './tokens';
import { ClusterView, IClusterActions, SectionId } from './views';

const TITLE = 'Accelerators';

export class AccelPanel extends SidePanel {
  constructor(options: AccelPanel.IOptions) {
    // A plain Panel: one view needs no accordion section header.
    super({ content: new Panel() });
    this._model = options.model;
    this.id = PANEL_ID;
    this.addClass('jp-accel-panel');
    this.title.icon = chipIcon;
    this.title.caption = TITLE;
    this.node.setAttribute('role', 'region');
    this.node.setAttribute('aria-label', TITLE);

    const heading = new Widget({ node: document.createElement('h2') });
    heading.node.textContent = TITLE;
    heading.addClass('jp-accel-title');
    this.header.addWidget(heading);

    this.toolbar.addItem(
      'refresh',
      new ToolbarButton({
        icon: refreshIcon,
        tooltip: 'Refresh the connection state',
        label: '',
        onClick: () => void this._model.refresh()
      })
    );

    this._view = new AccelStatusView(this._model);
    this.addWidget(this._view);
    if (options.cluster && options.actions) {
      this._cluster = options.cluster;
      this._clusterView = new ClusterSectionsView(
        this._model,
        options.cluster,
        options.actions
      );
      this.addWidget(this._clusterView);
      this._model.stateChanged.connect(this._syncPaused, this);
    }
    // Hidden until the user opens the tab: no polling before that.
    this._model.paused = true;
  }

  /** The cluster sections, when the panel has them. */
  get clusterView(): ClusterSectionsView | null {
    return this._clusterView;
  }

  /** Whether the Capabilities section lists permissions (a setting). */
  set showPermissions(value: boolean) {
    this._view.showPermissions = value;
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._model.paused = false;
    this._visible = true;
    this._syncPaused();
    void this._model.refresh();
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this._model.paused = true;
    this._visible = false;
    this._syncPaused();
  }

  dispose(): void {
    this._model.stateChanged.disconnect(this._syncPaused, this);
    super.dispose();
  }

  /** The push stream is open only while the panel shows and Kubernetes is connected. */
  private _syncPaused(): void {
    if (!this._cluster) {
      return;
    }
    const state = this._model.state;
    const connected =
      state.kind === 'ready' && state.info.connection.state === 'connected';
    this._cluster.paused = !(this._visible && connected);
  }

  private _model: AccelModel;
  private _view: AccelStatusView;
  private _cluster: ClusterModel | null = null;
  private _clusterView: ClusterSectionsView | null = null;
  private _visible = false;
}

export namespace AccelPanel {
  export interface IOptions {
    model: AccelModel;
    /** The cluster sections (Accelerators, Queues, My jobs, Launch). */
    cluster?: ClusterModel;
    actions?: IClusterActions;
  }
}

/** The cluster sections, shown once Kubernetes is connected. */
export class ClusterSectionsView extends ReactWidget {
  constructor(
    private readonly _accel: AccelModel,
    private readonly _cluster: ClusterModel,
    private readonly _actions: IClusterActions
  ) {
    super();
    this.addClass('jp-accel-body');
    this.addClass('jp-accel-cluster-body');
    this._accel.stateChanged.connect(this._onChanged, this);
    this._cluster.changed.connect(this._onChanged, this);
  }

  /** Open a section (and focus the form for `launch`, filled with `preset`). */
  expand(id: SectionId, preset?: Partial<ILaunchForm>): void {
    this._expanded = { ...this._expanded, [id]: true };
    if (id === 'launch') {
      this._focusLaunch++;
      this._launchPreset = preset ?? null;
    }
    this.update();
  }

  dispose(): void {
    this._accel.stateChanged.disconnect(this._onChanged, this);
    this._cluster.changed.disconnect(this._onChanged, this);
    this._stopClock();
    super.dispose();
  }

  render(): JSX.Element | null {
    const state = this._accel.state;
    if (state.kind !== 'ready' || state.info.connection.state !== 'connected') {
      return null;
    }
    return (
      <ClusterView
        model={this._cluster}
        actions={this._actions}
        expanded={this._expanded}
        onToggle={id => {
          this._expanded = { ...this._expanded, [id]: !this._expanded[id] };
          this.update();
        }}
        readOnly={state.info.capabilities?.read_only ?? false}
        now={Date.now()}
        focusLaunch={this._focusLaunch}
        launchPreset={this._launchPreset}
      />
    );
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    // Ages tick while shown; no server request is involved.
    this._stopClock();
    this._clock = setInterval(() => this.update(), 15000);
  }

  protected onAfterHide(msg: Message): void {
    super.onAfterHide(msg);
    this._stopClock();
  }

  private _stopClock(): void {
    if (this._clock !== null) {
      clearInterval(this._clock);
      this._clock = null;
    }
  }

  private _onChanged(): void {
    this.update();
  }

  private _expanded: Record<SectionId, boolean> = {
    workbench: false,
    accelerators: true,
    queues: true,
    jobs: true,
    launch: false
  };
  private _focusLaunch = 0;
  private _launchPreset: Partial<ILaunchForm> | null = null;
  private _clock: ReturnType<typeof setInterval> | null = null;
}

/** Re-renders on every state change of the model. */
class AccelStatusView extends ReactWidget {
  constructor(private readonly _model: AccelModel) {
    super();
    this.addClass('jp-accel-body');
    this._model.stateChanged.connect(this._onStateChanged, this);
  }

  set showPermissions(value: boolean) {
    if (value !== this._showPermissions) {
      this._showPermissions = value;
      this.update();
    }
  }

  dispose(): void {
    this._model.stateChanged.disconnect(this._onStateChanged, this);
    super.dispose();
  }

  render(): JSX.Element {
    return (
      <AccelStatus
        state={this._model.state}
        showPermissions={this._showPermissions}
      />
    );
  }

  private _onStateChanged(): void {
    this.update();
  }

  private _showPermissions = true;
}

export function AccelStatus(props: {
  state: AccelState;
  showPermissions: boolean;
}): JSX.Element {
  const { state, showPermissions } = props;
  const summary = summarizeState(state);
  if (state.kind === 'version_mismatch') {
    return <VersionMismatch summary={summary} />;
  }
  const connected =
    state.kind === 'ready' && state.info.connection.state === 'connected';
  const capabilities =
    state.kind === 'ready' ? state.info.capabilities : undefined;
  const details = (
    <>
      <Rows label="Connection details" rows={connectionRows(state)} />
      {state.kind === 'ready' && (
        <section className="jp-accel-section" aria-label="Capabilities">
          <h3 className="jp-accel-section-title">Capabilities</h3>
          {capabilities?.read_only && (
            <p className="jp-accel-note">
              Read-only: the administrator disabled launching and controlling
              jobs.
            </p>
          )}
          <Rows label="Cluster APIs" rows={apiRows(capabilities, connected)} />
          {showPermissions && (
            <Rows
              label="Permissions"
              rows={permissionRows(capabilities?.permissions)}
            />
          )}
        </section>
      )}
    </>
  );
  return (
    <div className="jp-accel-status-view">
      <ConnectionStatus summary={summary} />
      {connected ? (
        // Connected, the cluster sections matter more: details fold away.
        <details className="jp-accel-details">
          <summary>Connection and capabilities</summary>
          {details}
        </details>
      ) : (
        details
      )}
    </div>
  );
}

function ConnectionStatus(props: { summary: IStatusSummary }): JSX.Element {
  const { summary } = props;
  return (
    <div
      className={`jp-accel-status jp-accel-tone-${summary.tone}`}
      role="status"
      aria-live="polite"
      aria-label="Connection state"
      data-state={summary.state}
    >
      <span className="jp-accel-status-dot" aria-hidden="true" />
      <div className="jp-accel-status-text">
        <div className="jp-accel-status-label">{summary.label}</div>
        {summary.message && (
          <div className="jp-accel-status-message">{summary.message}</div>
        )}
        {summary.degraded && (
          <div
            className={`jp-accel-degraded jp-accel-tone-${summary.degraded.tone}`}
            data-reason={summary.degraded.reason}
          >
            {summary.degraded.message}
          </div>
        )}
        {summary.clusterReads && (
          <div className="jp-accel-status-message jp-accel-cluster-reads">
            {summary.clusterReads}
          </div>
        )}
      </div>
    </div>
  );
}

function VersionMismatch(props: { summary: IStatusSummary }): JSX.Element {
  return (
    <div
      className="jp-accel-mismatch jp-accel-tone-error"
      role="alert"
      aria-label="Version mismatch"
      data-state="version_mismatch"
    >
      <div className="jp-accel-status-label">{props.summary.label}</div>
      <p className="jp-accel-status-message">{props.summary.message}</p>
    </div>
  );
}

function Rows(props: { label: string; rows: IRow[] }): JSX.Element | null {
  if (props.rows.length === 0) {
    return null;
  }
  return (
    <dl className="jp-accel-rows" aria-label={props.label}>
      {props.rows.map(row => (
        <div className="jp-accel-row" key={row.key}>
          <dt className="jp-accel-row-label">{row.label}</dt>
          <dd className={`jp-accel-row-value jp-accel-tone-${row.tone}`}>
            {row.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
