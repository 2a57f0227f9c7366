/**
 * Streaming a job's logs: a bounded buffer (pure) and a reader over the
 * text/plain stream of GET jobs/{kind}/{name}/logs.
 */
import { ServerConnection } from '@jupyterlab/services';

import { JobKind, jobPath, openStream } from './api';

/**
 * Keeps the newest `maxChars` characters of a growing text, cut at a line
 * start, so a chatty job never grows the page without bound.
 */
export class LogBuffer {
  constructor(readonly maxChars = 512 * 1024) {}

  get text(): string {
    return this._text;
  }

  /** Whether older output was dropped. */
  get truncated(): boolean {
    return this._truncated;
  }

  append(chunk: string): void {
    this._text += chunk;
    if (this._text.length > this.maxChars) {
      let cut = this._text.length - this.maxChars;
      const nl = this._text.indexOf('\n', cut);
      if (nl >= 0 && nl < this._text.length - 1) {
        cut = nl + 1;
      }
      this._text = this._text.slice(cut);
      this._truncated = true;
    }
  }

  clear(): void {
    this._text = '';
    this._truncated = false;
  }

  private _text = '';
  private _truncated = false;
}

export interface ILogOptions {
  tail: number;
  follow: boolean;
  /** One pod; without it, every pod's lines, each prefixed with its pod. */
  pod?: string;
}

/** The logs endpoint with its query. */
export function logsPath(
  kind: JobKind,
  name: string,
  options: ILogOptions
): string {
  const query = new URLSearchParams({
    tail: String(options.tail),
    follow: options.follow ? 'true' : 'false'
  });
  if (options.pod) {
    query.set('pod', options.pod);
  } else {
    query.set('all', 'true');
  }
  return `${jobPath(kind, name)}/logs?${query.toString()}`;
}

/**
 * Read the logs stream, handing each decoded chunk to `onChunk`, until it
 * ends or `signal` aborts. Rejects with the server's sentence on 4xx/5xx.
 */
export async function streamLogs(
  settings: ServerConnection.ISettings,
  kind: JobKind,
  name: string,
  options: ILogOptions,
  signal: AbortSignal,
  onChunk: (text: string) => void,
  onLabel?: (label: string | null) => void
): Promise<void> {
  const response = await openStream(
    logsPath(kind, name, options),
    settings,
    signal
  );
  // the server's sentence above a log it kept (the pods gone, or every pod); none for a live pod's
  onLabel?.(response.headers.get('X-Accel-Log-Label'));
  const reader = response.body?.getReader();
  if (!reader) {
    onChunk(await response.text());
    return;
  }
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      const rest = decoder.decode();
      if (rest) {
        onChunk(rest);
      }
      return;
    }
    if (signal.aborted) {
      void reader.cancel().catch(() => undefined);
      return;
    }
    onChunk(decoder.decode(value, { stream: true }));
  }
}
