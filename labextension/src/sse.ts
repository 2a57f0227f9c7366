/**
 * The push stream GET accel/v1/stream: a Server-Sent Events parser (pure)
 * and a connection that reads it through fetch streaming, so the Jupyter
 * token and cookies travel as with every other request, and reconnects with
 * a growing wait when the stream breaks.
 */
import { ServerConnection } from '@jupyterlab/services';
import { ISignal, Signal } from '@lumino/signaling';

import { openStream } from './api';

/** The topics the server names; `*` means "refetch everything". */
export type Topic =
  'info' | 'inventory' | 'profiles' | 'queues' | 'workloads' | 'jobs' | '*';

export interface IChange {
  revision: number;
  topics: Topic[];
}

export interface ISSEEvent {
  event: string;
  data: string;
  id: string | null;
}

/**
 * Incremental SSE parser (the WHATWG event-stream format): feed it text
 * chunks as they arrive, split anywhere, and it returns the complete events.
 */
export class SSEParser {
  /** Parse one chunk; returns the events it completed. */
  push(chunk: string): ISSEEvent[] {
    this._buffer += chunk;
    const events: ISSEEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this._buffer);
      if (!match) {
        break;
      }
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (match[0] === '\r' && match.index === this._buffer.length - 1) {
        break;
      }
      const line = this._buffer.slice(0, match.index);
      this._buffer = this._buffer.slice(match.index + match[0].length);
      const event = this._line(line);
      if (event) {
        events.push(event);
      }
    }
    return events;
  }

  private _line(line: string): ISSEEvent | null {
    if (line === '') {
      // A blank line dispatches the event gathered so far.
      if (this._data.length === 0) {
        this._event = '';
        return null;
      }
      const event: ISSEEvent = {
        event: this._event || 'message',
        data: this._data.join('\n'),
        id: this._id
      };
      this._event = '';
      this._data = [];
      return event;
    }
    if (line.startsWith(':')) {
      return null; // comment: the server's keep-alive
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    switch (field) {
      case 'event':
        this._event = value;
        break;
      case 'data':
        this._data.push(value);
        break;
      case 'id':
        this._id = value;
        break;
      default:
        break; // `retry` and unknown fields: the reconnect policy is ours
    }
    return null;
  }

  private _buffer = '';
  private _event = '';
  private _data: string[] = [];
  private _id: string | null = null;
}

/** A `change` event's data, or null when it is not one we understand. */
export function parseChange(event: ISSEEvent): IChange | null {
  if (event.event !== 'change') {
    return null;
  }
  let body: unknown;
  try {
    body = JSON.parse(event.data);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) {
    return null;
  }
  const { revision, topics } = body as Record<string, unknown>;
  if (typeof revision !== 'number' || !Array.isArray(topics)) {
    return null;
  }
  return {
    revision,
    topics: topics.filter((t): t is Topic => typeof t === 'string')
  };
}

/** Wait before reconnect attempt `attempt` (0-based): 1 s doubling to `max`. */
export function backoffDelay(attempt: number, maxMs = 30000): number {
  return Math.min(maxMs, 1000 * 2 ** Math.max(0, attempt));
}

export type StreamState = 'closed' | 'connecting' | 'open' | 'reconnecting';

/**
 * One connection to the push stream. `start()` connects; `stop()` closes it
 * (the panel stops it while hidden, so a hidden panel costs nothing).
 */
export class ChangeStream {
  constructor(
    private readonly _settings: ServerConnection.ISettings,
    private readonly _maxBackoffMs = 30000
  ) {}

  get changed(): ISignal<this, IChange> {
    return this._changed;
  }

  get stateChanged(): ISignal<this, StreamState> {
    return this._stateChanged;
  }

  get state(): StreamState {
    return this._state;
  }

  /** The last error sentence while reconnecting. */
  get lastError(): string {
    return this._lastError;
  }

  start(): void {
    if (this._abort) {
      return;
    }
    this._abort = new AbortController();
    void this._run(this._abort.signal);
  }

  stop(): void {
    this._abort?.abort();
    this._abort = null;
    if (this._timer !== null) {
      clearTimeout(this._timer);
      this._timer = null;
    }
    this._setState('closed');
  }

  dispose(): void {
    this.stop();
    Signal.clearData(this);
  }

  private async _run(signal: AbortSignal): Promise<void> {
    let attempt = 0;
    while (!signal.aborted) {
      this._setState(attempt === 0 ? 'connecting' : 'reconnecting');
      try {
        const response = await openStream('stream', this._settings, signal);
        await this._read(response, signal, () => {
          attempt = 0;
        });
        this._lastError = 'The server closed the push stream.';
      } catch (error) {
        if (signal.aborted) {
          return;
        }
        this._lastError =
          error instanceof Error ? error.message : String(error);
      }
      if (signal.aborted) {
        return;
      }
      this._setState('reconnecting');
      const delay = backoffDelay(attempt++, this._maxBackoffMs);
      await new Promise<void>(resolve => {
        this._timer = setTimeout(() => {
          this._timer = null;
          resolve();
        }, delay);
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  private async _read(
    response: Response,
    signal: AbortSignal,
    onOpen: () => void
  ): Promise<void> {
    const reader = response.body?.getReader();
    if (!reader) {
      throw new Error('This browser cannot stream responses.');
    }
    const decoder = new TextDecoder();
    const parser = new SSEParser();
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) {
        void reader.cancel().catch(() => undefined);
        return;
      }
      for (const event of parser.push(
        decoder.decode(value, { stream: true })
      )) {
        const change = parseChange(event);
        if (change) {
          onOpen();
          this._setState('open');
          this._changed.emit(change);
        }
      }
    }
  }

  private _setState(state: StreamState): void {
    if (state !== this._state) {
      this._state = state;
      this._stateChanged.emit(state);
    }
  }

  private _abort: AbortController | null = null;
  private _timer: ReturnType<typeof setTimeout> | null = null;
  private _state: StreamState = 'closed';
  private _lastError = '';
  private _changed = new Signal<this, IChange>(this);
  private _stateChanged = new Signal<this, StreamState>(this);
}
