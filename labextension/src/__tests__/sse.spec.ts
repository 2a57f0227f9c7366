import { backoffDelay, parseChange, SSEParser } from '../sse';

describe('SSEParser', () => {
  it('parses change events split across chunks at any point', () => {
    const stream =
      ': keep-alive\n\nevent: change\ndata: {"revision": 3, "topics": ["jobs"]}\n\n' +
      'event: change\r\ndata: {"revision": 4,\r\ndata:  "topics": ["*"]}\r\n\r\n';
    // Every split point gives the same events as one chunk.
    const whole = new SSEParser().push(stream);
    expect(whole.map(e => e.event)).toEqual(['change', 'change']);
    for (let cut = 1; cut < stream.length; cut++) {
      const parser = new SSEParser();
      const events = [
        ...parser.push(stream.slice(0, cut)),
        ...parser.push(stream.slice(cut))
      ];
      expect(events).toEqual(whole);
    }
    expect(whole[1].data).toBe('{"revision": 4,\n "topics": ["*"]}');
    expect(parseChange(whole[0])).toEqual({ revision: 3, topics: ['jobs'] });
    expect(parseChange(whole[1])).toEqual({ revision: 4, topics: ['*'] });
  });

  it('ignores comments and waits for the blank line', () => {
    const parser = new SSEParser();
    expect(parser.push(': ping\n\ndata: x\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([
      { event: 'message', data: 'x', id: null }
    ]);
  });

  it('rejects events that are not well-formed changes', () => {
    const bad = [
      { event: 'message', data: '{"revision":1,"topics":[]}', id: null },
      { event: 'change', data: 'not json', id: null },
      { event: 'change', data: '{"revision":"1","topics":[]}', id: null },
      { event: 'change', data: '{"revision":1}', id: null }
    ];
    for (const e of bad) {
      expect(parseChange(e)).toBeNull();
    }
  });
});

describe('backoffDelay', () => {
  it('doubles from one second up to the cap', () => {
    expect([0, 1, 2, 3].map(a => backoffDelay(a))).toEqual([
      1000, 2000, 4000, 8000
    ]);
    expect(backoffDelay(20, 30000)).toBe(30000);
  });
});
