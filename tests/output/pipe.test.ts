import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { guardPipe, printList, type OutputFormat } from '../../src/output/index.js';
import { fakeIO, type FakeIO } from '../support/fake-io.js';

/** Rows with a counter of how many the printer pulled, and whether the source was closed. */
function source(total: number, opts: { async?: boolean } = {}) {
  const stats = { produced: 0, finished: false };
  function* syncRows(): Generator<Record<string, unknown>> {
    try {
      for (let i = 0; i < total; i++) {
        stats.produced++;
        yield { id: i, name: `row ${i}`, amount: i % 100 };
      }
    } finally {
      stats.finished = true;
    }
  }
  async function* asyncRows(): AsyncGenerator<Record<string, unknown>> {
    try {
      for (let i = 0; i < total; i++) {
        if (i % 500 === 0) await new Promise((r) => setImmediate(r));
        stats.produced++;
        yield { id: i, name: `row ${i}`, amount: i % 100 };
      }
    } finally {
      stats.finished = true;
    }
  }
  return { rows: opts.async ? asyncRows() : syncRows(), stats };
}

function epipe(): NodeJS.ErrnoException {
  return Object.assign(new Error('write EPIPE'), { code: 'EPIPE', errno: -32, syscall: 'write' });
}

function ioWith(stdout: Writable, base: FakeIO = fakeIO()): FakeIO {
  return { ...base, stdout: stdout as FakeIO['stdout'] };
}

const FORMATS: OutputFormat[] = ['json', 'ndjson', 'csv', 'table'];

describe('a reader that goes away (| head -1)', () => {
  test.each(FORMATS)('%s: EPIPE after the first write ends quietly and stops pulling rows', async (format) => {
    let writes = 0;
    const sink = new Writable({
      write(_chunk, _enc, cb) {
        writes++;
        if (writes === 1) cb();
        else cb(epipe());
      },
    });
    const { rows, stats } = source(1_000_000);
    const written = await printList(rows, { format, io: ioWith(sink) });
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(2_000);
    expect(stats.produced).toBeLessThan(2_000);
    expect(stats.finished).toBe(true); // the source's finally ran: an HTTP page fetch would be abandoned
    expect(guardPipe(sink).closed()).toBe(true);
  });

  test('an async source (pages) is closed too', async () => {
    let writes = 0;
    const sink = new Writable({
      write(_chunk, _enc, cb) {
        if (++writes === 1) cb();
        else cb(epipe());
      },
    });
    const { rows, stats } = source(1_000_000, { async: true });
    await printList(rows, { format: 'ndjson', io: ioWith(sink) });
    expect(stats.produced).toBeLessThan(2_000);
    expect(stats.finished).toBe(true);
  });

  test('a real pipe into `head -n 1`', async () => {
    const head = spawn('head', ['-n', '1'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let got = '';
    head.stdout.setEncoding('utf8').on('data', (d: string) => (got += d));
    const exited = new Promise<number | null>((r) => head.on('close', r));
    const { rows, stats } = source(2_000_000);
    const written = await printList(rows, { format: 'ndjson', io: ioWith(head.stdin) });
    expect(await exited).toBe(0);
    expect(got).toBe('{"id":0,"name":"row 0","amount":0}\n');
    expect(written).toBeLessThan(2_000_000);
    expect(stats.produced).toBeLessThan(2_000_000);
    expect(stats.finished).toBe(true);
  });

  test('printing to an already closed pipe writes nothing and does not throw', async () => {
    const sink = new Writable({ write: (_c, _e, cb) => cb(epipe()) });
    const io = ioWith(sink);
    await printList([{ a: 1 }], { format: 'json', io });
    expect(await printList([{ a: 1 }], { format: 'json', io })).toBe(0);
  });

  test('other write errors are not swallowed: printList rejects with them', async () => {
    const sink = new Writable({
      write: (_c, _e, cb) => cb(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' })),
    });
    await expect(printList(source(100_000).rows, { format: 'ndjson', io: ioWith(sink) })).rejects.toThrow('no space left');
  });

  test('guardPipe installs one handler per stream and reports the same state', () => {
    const io = fakeIO();
    const a = guardPipe(io.stdout);
    const b = guardPipe(io.stdout);
    expect(a).toBe(b);
    expect(io.stdout.listenerCount('error')).toBe(1);
    expect(a.closed()).toBe(false);
    io.stdout.emit('error', epipe());
    expect(a.closed()).toBe(true);
    expect(a.error()).toBeUndefined();
  });
});

describe('backpressure and memory', () => {
  /** A sink that takes each chunk only after a timer: a reader slower than the producer. */
  function slowSink(onRows: (n: number) => void): Writable {
    return new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        let lines = 0;
        for (const byte of chunk) if (byte === 10) lines++;
        setImmediate(() => {
          onRows(lines);
          cb();
        });
      },
    });
  }

  test.each([
    ['ndjson', false],
    ['csv', false],
    ['ndjson', true],
    ['csv', true],
    ['json', true],
    ['table', true],
  ] as const)(
    '%s (async source: %s): 200,000 rows, the producer stays within ~1 highWaterMark of the reader',
    async (format, isAsync) => {
      const total = 200_000;
      let consumed = 0;
      let maxAhead = 0;
      const sink = slowSink((n) => (consumed += n));
      const stats = { produced: 0 };
      function* rows(): Generator<Record<string, unknown>> {
        for (let i = 0; i < total; i++) {
          stats.produced++;
          maxAhead = Math.max(maxAhead, stats.produced - consumed);
          yield { id: i, name: `row ${i}`, amount: i % 100 };
        }
      }
      async function* asyncRows(): AsyncGenerator<Record<string, unknown>> {
        yield* rows();
      }
      const written = await printList(isAsync ? asyncRows() : rows(), { format, io: ioWith(sink) });
      expect(written).toBe(total);
      await new Promise<void>((r) => sink.end(r)); // let the reader take what stdout still buffers
      // every line reached the reader (json: '[', one line per key and brace per item, ']')
      const expectedLines = { ndjson: total, csv: total + 1, table: total + 1, json: total * 5 + 2 }[format];
      expect(consumed).toBe(expectedLines);
      const aheadLimit = format === 'json' ? 2_000 * 5 : 2_000;
      // rows pulled but not yet read: a write chunk plus what stdout buffers, never the whole list
      expect(format === 'json' ? maxAhead * 5 : maxAhead).toBeLessThan(aheadLimit);
    },
    60_000,
  );
});

describe('backpressure with a paged source', () => {
  test('pages arriving faster than the reader reads are not piled up in stdout', async () => {
    let consumed = 0;
    let maxAhead = 0;
    const sink = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        let lines = 0;
        for (const byte of chunk) if (byte === 10) lines++;
        setTimeout(() => {
          consumed += lines;
          cb();
        }, 2);
      },
    });
    let produced = 0;
    async function* pages(): AsyncGenerator<Record<string, unknown>> {
      for (let page = 0; page < 200; page++) {
        await new Promise((r) => setTimeout(r, 0)); // the next page's HTTP round trip
        for (let i = 0; i < 100; i++) {
          produced++;
          maxAhead = Math.max(maxAhead, produced - consumed);
          yield { id: page * 100 + i, name: `row ${i}`, amount: i };
        }
      }
    }
    expect(await printList(pages(), { format: 'ndjson', io: ioWith(sink) })).toBe(20_000);
    await new Promise<void>((r) => sink.end(r));
    expect(consumed).toBe(20_000);
    expect(maxAhead).toBeLessThan(2_000);
  }, 60_000);
});

describe('streaming from a slow source', () => {
  test('rows already received are written while the next page is awaited', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* pages(): AsyncGenerator<Record<string, unknown>> {
      yield { id: 1 };
      yield { id: 2 };
      await gate; // the next page is in flight
      yield { id: 3 };
    }
    const io = fakeIO();
    const done = printList(pages(), { format: 'ndjson', io });
    await new Promise((r) => setTimeout(r, 20));
    expect(io.out()).toBe('{"id":1}\n{"id":2}\n');
    release();
    expect(await done).toBe(3);
    expect(io.out()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
  });

  test('a source that fails midway: the rows before are output, the error goes up', async () => {
    async function* pages(): AsyncGenerator<Record<string, unknown>> {
      yield { id: 1 };
      yield { id: 2 };
      throw new Error('page 2: server error');
    }
    for (const format of ['ndjson', 'csv'] as const) {
      const io = fakeIO();
      await expect(printList(pages(), { format, io })).rejects.toThrow('page 2: server error');
      expect(io.out()).toBe(format === 'ndjson' ? '{"id":1}\n{"id":2}\n' : 'id\n1\n2\n');
    }
    // json: the array is left open, so a reader cannot mistake a partial list for a whole one
    const io = fakeIO();
    await expect(printList(pages(), { format: 'json', io })).rejects.toThrow();
    expect(() => JSON.parse(io.out())).toThrow();
  });
});
