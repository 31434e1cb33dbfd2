/**
 * B8 through runAgentLoop: a scripted model calls the Python fixture server's
 * `lines` (300,000 characters, a real process), sees the cut notice in its
 * history, and reads on with result_read by each notice's next offset until
 * the end; the text it was given, joined, is the fixture's text exactly.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type LoopMessage, runAgentLoop, type ToolResult } from '../../../src/index.js';
import { ScriptedModel, type ScriptedInput, type ScriptedStep } from '../../../src/testing/index.js';
import { py, runFixture } from '../../support/runs.js';

type Part = { type: string; text?: string };

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
// The fixture's `lines` text, by its own rule (test/fixtures/mcp_server.py): line i is
// ("line %06d " % i).ljust(width - 1, "abcdefghij"[i % 10]) + "\n".
const fixtureLines = (n: number, width: number) =>
  Array.from({ length: n }, (_, i) => `line ${String(i).padStart(6, '0')} `.padEnd(width - 1, 'abcdefghij'[i % 10]) + '\n').join('');

// The last result the model was shown: the newest tool message of its history.
function lastResult(history: readonly LoopMessage[]): ToolResult {
  const message = history.findLast((m) => m.role === 'tool');
  if (message?.role !== 'tool' || message.results.length !== 1) throw new Error('the model was not shown one result');
  return message.results[0] as ToolResult;
}
const partsOf = (result: ToolResult): Part[] => {
  if (result.status !== 'ok') throw new Error(`not ok: ${JSON.stringify(result)}`);
  return result.content as Part[];
};
// A result's last part is its notice; the text before it is what the model was given of the result.
const noticeOf = (result: ToolResult): string => String(partsOf(result).at(-1)?.text);
const textOf = (result: ToolResult): string =>
  partsOf(result)
    .slice(0, -1)
    .filter((p) => p.type === 'text')
    .map((p) => p.text ?? '')
    .join('');
// The read-on call a notice names: result_read {"callId":…,"offset":…}, or undefined at the end.
function readOnOf(notice: string): { callId: string; offset: number } | undefined {
  const m = /result_read (\{"callId":"[^"]*","offset":\d+\})\]$/.exec(notice);
  return m ? (JSON.parse(m[1] as string) as { callId: string; offset: number }) : undefined;
}

describe('B8: runAgentLoop reads a cut result on with result_read', () => {
  const f = runFixture(['results']);

  it('B8: the model sees the cut notice, reads by each next offset to the end; the text joined equals the original (sha256)', async () => {
    const run = await f.start();
    const given: string[] = []; // what the model was given of the result, page by page, notices left out
    const notices: string[] = [];
    // Each step after the first reads the notice of the result it was just shown, as a model would.
    const readOn = ({ history }: ScriptedInput): ScriptedStep => {
      const result = lastResult(history);
      const notice = noticeOf(result);
      notices.push(notice);
      given.push(textOf(result));
      if (notice.endsWith('; this is the end of the result]')) return { text: 'read it all' };
      const next = readOnOf(notice);
      if (next === undefined) throw new Error(`no read-on call in the notice: ${notice}`);
      return { toolCalls: [{ callId: `read-${notices.length}`, name: 'result_read', arguments: next }] };
    };
    const model = new ScriptedModel([
      { toolCalls: [{ callId: 'lines-1', name: py('lines'), arguments: { n: 3000, width: 100 } }] },
      ...Array.from({ length: 6 }, () => readOn),
    ]);
    const outcome = await runAgentLoop({ run, model, maxSteps: 10 });
    expect([outcome.status, outcome.text]).toEqual(['completed', 'read it all']);

    // 300,000 characters at 25,000 tokens × 4: the cut and two pages of 100,000 each.
    expect(notices).toHaveLength(3);
    expect(notices[0]).toBe(
      "[agt-mcp: this result is 300000 characters (about 75000 tokens), over this run's result budget of 25000 tokens; " +
        'shown: its first 100000. Read on with result_read {"callId":"lines-1","offset":100000}]',
    );
    expect(notices[1]).toBe(
      '[agt-mcp: characters 100000–200000 of 300000 of call "lines-1"; read on with result_read {"callId":"lines-1","offset":200000}]',
    );
    expect(notices[2]).toBe('[agt-mcp: characters 200000–300000 of 300000 of call "lines-1"; this is the end of the result]');
    const first = lastResult(model.inputs[1]?.history ?? []);
    expect(first.status === 'ok' && first.cut).toEqual({ keptChars: 100_000, totalChars: 300_000 });

    const original = fixtureLines(3000, 100);
    expect(original.length).toBe(300_000);
    expect(sha(given.join(''))).toBe(sha(original));

    // result_read is offered only once a result was cut: not in the first step's tools, in every step after.
    const offered = model.inputs.map((input) => input.tools.some((t) => t.name === 'result_read'));
    expect(offered).toEqual([false, true, true, true]);
    // Each read went through the run's pipeline as a call of its own (the fixture saw only `lines`).
    expect(f.env.calls().map((c) => c.tool)).toEqual(['lines']);
  });
});
