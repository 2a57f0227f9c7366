/**
 * The panel's model: polls GET /info, applies the version rule and exposes
 * one `AccelState` that views render. It knows nothing about widgets.
 */
import { IDisposable } from '@lumino/disposable';
import { IPoll, Poll } from '@lumino/polling';
import { ISignal, Signal } from '@lumino/signaling';

import { AccelAPIError, InfoResponse } from './api';
import { setJobKinds } from './present';
import { checkVersion, FRONTEND_VERSION, IVersionCheck } from './version';

/** Everything the panel can be showing. */
export type AccelState =
  /** No answer yet. */
  | { kind: 'loading' }
  /** The server answered; its connection may still be not_configured or error. */
  | { kind: 'ready'; info: InfoResponse }
  /** The server extension could not be asked (network, 404, 5xx). */
  | { kind: 'unreachable'; message: string; status: number | null }
  /** Front-end and server versions differ: the panel refuses to run. */
  | { kind: 'version_mismatch'; check: IVersionCheck };

/** Poll timing, in seconds (the unit of the settings schema). */
export interface IPollTiming {
  refreshInterval: number;
  maxBackoffInterval: number;
}

export const DEFAULT_TIMING: IPollTiming = {
  refreshInterval: 15,
  maxBackoffInterval: 300
};

export class AccelModel implements IDisposable {
  constructor(options: AccelModel.IOptions) {
    this._fetchInfo = options.fetchInfo;
    this._frontendVersion = options.frontendVersion ?? FRONTEND_VERSION;
    this._poll = new Poll({
      name: 'jupyter-accel:info',
      factory: () => this._update(),
      frequency: frequency(options.timing ?? DEFAULT_TIMING),
      standby: () => this._standby(),
      auto: options.auto ?? true
    });
  }

  /** Emitted with the new state whenever it changes. */
  get stateChanged(): ISignal<this, AccelState> {
    return this._stateChanged;
  }

  get state(): AccelState {
    return this._state;
  }

  get isDisposed(): boolean {
    return this._poll.isDisposed;
  }

  /**
   * Whether the view is hidden. While paused the poll stands by, so a
   * collapsed sidebar costs the server nothing.
   */
  get paused(): boolean {
    return this._paused;
  }
  set paused(value: boolean) {
    this._paused = value;
  }

  /** Apply new poll timing (from the settings); takes effect on the next tick. */
  configure(timing: IPollTiming): void {
    if (!this.isDisposed) {
      this._poll.frequency = frequency(timing);
    }
  }

  /**
   * Ask the server now, even while paused or hidden, and resolve once the
   * answer has been applied. A no-op after a version mismatch.
   */
  async refresh(): Promise<void> {
    if (this.isDisposed || this._state.kind === 'version_mismatch') {
      return;
    }
    this._forceNext = true;
    await this._poll.refresh();
    await this._poll.tick;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._poll.dispose();
    Signal.clearData(this);
  }

  private async _update(): Promise<void> {
    let info: InfoResponse;
    try {
      info = await this._fetchInfo();
    } catch (error) {
      this._setState({
        kind: 'unreachable',
        message: error instanceof Error ? error.message : String(error),
        status: error instanceof AccelAPIError ? error.status : null
      });
      // Rejecting makes the poll back off instead of hammering a sick server.
      throw error;
    }
    const check = checkVersion(this._frontendVersion, info.version);
    if (!check.compatible) {
      this._setState({ kind: 'version_mismatch', check });
      void this._poll.stop();
      return;
    }
    setJobKinds(info.capabilities?.kinds);
    this._setState({ kind: 'ready', info });
  }

  private _standby(): boolean | Poll.Standby {
    if (this._forceNext) {
      this._forceNext = false;
      return false;
    }
    return this._paused ? true : 'when-hidden';
  }

  private _setState(state: AccelState): void {
    this._state = state;
    this._stateChanged.emit(state);
  }

  private _fetchInfo: () => Promise<InfoResponse>;
  private _frontendVersion: string;
  private _poll: Poll;
  private _state: AccelState = { kind: 'loading' };
  private _stateChanged = new Signal<this, AccelState>(this);
  private _paused = false;
  private _forceNext = false;
}

export namespace AccelModel {
  export interface IOptions {
    /** Fetch GET /info; in the app this is `() => fetchInfo(serverSettings)`. */
    fetchInfo: () => Promise<InfoResponse>;
    /** Defaults to the version in package.json. */
    frontendVersion?: string;
    timing?: IPollTiming;
    /** Start polling at once (default true). */
    auto?: boolean;
  }
}

function frequency(timing: IPollTiming): IPoll.Frequency {
  const interval = Math.max(1, timing.refreshInterval) * 1000;
  return {
    interval,
    backoff: true,
    max: Math.max(interval, timing.maxBackoffInterval * 1000)
  };
}
