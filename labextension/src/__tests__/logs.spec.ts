import { LogBuffer, logsPath } from '../logs';

describe('LogBuffer', () => {
  it('keeps the newest text, cut at a line start', () => {
    const buffer = new LogBuffer(20);
    buffer.append('line one\nline two\n');
    expect(buffer.truncated).toBe(false);
    buffer.append('line three\n');
    expect(buffer.text.length).toBeLessThanOrEqual(20);
    expect(buffer.text).toBe('line three\n');
    expect(buffer.truncated).toBe(true);
    buffer.clear();
    expect(buffer.text).toBe('');
  });

  it('keeps a long single line, bounded', () => {
    const buffer = new LogBuffer(10);
    buffer.append('x'.repeat(25));
    expect(buffer.text).toBe('x'.repeat(10));
  });
});

describe('logsPath', () => {
  it('escapes the job and passes tail, follow and one pod or all of them', () => {
    expect(
      logsPath('ray-job', 'a b', { tail: 50, follow: true, pod: 'p-0' })
    ).toBe('jobs/ray-job/a%20b/logs?tail=50&follow=true&pod=p-0');
    expect(logsPath('pytorch', 'x', { tail: 0, follow: false })).toBe(
      'jobs/pytorch/x/logs?tail=0&follow=false&all=true'
    );
  });
});
