/**
 * A run's options are checked and resolved once (resolveRunOptions): a bad
 * one fails the start before anything connects, and after the start the run
 * reads only its frozen resolved value — never the host's options object.
 */
import { describe, expect, it } from 'vitest';
import { NativeRun, type NativeRunOptions, policies } from '../../src/index.js';
import { resolveRunOptions } from '../../src/runtime/run-options.js';
import { batch, py, runFixture, setup } from '../support/index.js';

const fx = runFixture();

describe('run options, resolved once', () => {
  it("B3: after the start a run never reads the host's options object again: batches, refreshes and decisions read the resolved value", async () => {
    const env = await setup();
    const { service } = env;
    await service.write({ kind: 'agent', reference: 'team/alice', create: true, data: { mcps: ['tools/py'] } });
    const reads: PropertyKey[] = [];
    let counting = false;
    const given: NativeRunOptions = { agent: 'team/alice', service, policy: policies.autoAllow('*'), hooks: { before: [], after: [] } };
    const options = new Proxy(given, {
      get(target, key, receiver) {
        if (counting) reads.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    const run = await NativeRun.start(options);
    fx.adopt(env, run);
    counting = true;
    for (let i = 0; i < 3; i += 1) {
      const { results } = await run.executeBatch(batch(run, [{ callId: `c${i}`, name: py('echo'), arguments: { message: 'hi' } }]));
      expect(results[0]).toMatchObject({ status: 'ok' });
    }
    await run.refresh();
    expect(reads).toEqual([]);
  });

  it('B3: the resolved value is frozen, with the defaults filled in; hooks and limits cannot be changed behind the run', () => {
    const before = [() => undefined];
    const resolved = resolveRunOptions({
      agent: 'team/alice',
      service: {} as NativeRunOptions['service'],
      policy: policies.autoAllow('*'),
      hooks: { before },
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.limits) && Object.isFrozen(resolved.before)).toBe(true);
    expect(resolved).toMatchObject({ concurrency: 4, skipBrokenMounts: false, approvalTtlMs: 24 * 60 * 60 * 1000 });
    before.push(() => undefined); // the host's array changes; the run's does not
    expect(resolved.before).toHaveLength(1);
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency'],
    [{ concurrency: 1.5 }, 'concurrency'],
    [{ approvalTtlMs: -5 }, 'approvalTtlMs'],
    [{ batchTimeoutMs: Number.NaN }, 'batchTimeoutMs'],
    [{ limits: { maxBatchCalls: 0 } }, 'limits.maxBatchCalls'],
    [{ timeouts: { callMs: -1 } }, 'timeouts.callMs'],
  ])('B3: a bad option (%o) fails the start with invalid_input naming %s, and no server is started', async (bad, field) => {
    await expect(fx.start(bad as Partial<NativeRunOptions>)).rejects.toMatchObject({ code: 'invalid_input', details: { field } });
    expect(fx.env.serverEvents()).toEqual([]); // a started server lists its tools: nothing was listed
  });
});

describe('unknown run options', () => {
  it("B3: a misspelled option (task: 'defer') fails the start with invalid_input naming it and the closest option; no server is started", async () => {
    const error = await fx.start({ task: 'defer' } as Partial<NativeRunOptions>).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_input', details: { key: 'task', closest: 'tasks' } });
    expect((error as Error).message).toMatch(/unknown key "task"; did you mean "tasks"\?/);
    expect((error as Error).message).not.toContain('defer'); // a value is never quoted
    expect(fx.env.serverEvents()).toEqual([]);
  });

  it('B3: an unknown key far from every option is named without a suggestion; a key with control characters is escaped', () => {
    const base = { agent: 'team/alice', service: {} as NativeRunOptions['service'], policy: policies.autoAllow('*') };
    expect(() => resolveRunOptions({ ...base, zzzzzzzzzzzz: 1 } as NativeRunOptions)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'zzzzzzzzzzzz' } }),
    );
    // Escaped once (`\x1b`, as every message quotes outside text), not JSON-quoted on top (`\\x1b`).
    expect(() => resolveRunOptions({ ...base, 'x\u001b[2Jy': 1 } as NativeRunOptions)).toThrow(/unknown key "x\\x1b\[2Jy"[^"]*$/);
    // A hostile key is bounded in the message and in details alike: 64 characters and `…`.
    const long = 'k'.repeat(5000);
    expect(() => resolveRunOptions({ ...base, [long]: 1 } as NativeRunOptions)).toThrow(
      expect.objectContaining({
        message: expect.stringContaining(`unknown key "${'k'.repeat(64)}…"`),
        details: expect.objectContaining({ key: `${'k'.repeat(64)}…` }),
      }),
    );
  });

  it('F6: a store given to start is refused, saying where a store goes (run.suspend, NativeRun.resume)', () => {
    const base = { agent: 'team/alice', service: {} as NativeRunOptions['service'], policy: policies.autoAllow('*') };
    expect(() => resolveRunOptions({ ...base, store: {} } as NativeRunOptions)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        details: { key: 'store' },
        message: expect.stringMatching(/run\.suspend\(\{ store \}\) and NativeRun\.resume/),
      }),
    );
  });

  it('B3: with strict: false an unknown option starts the run, and the run says so in its notices', async () => {
    const run = await fx.start({ strict: false, task: 'defer' } as Partial<NativeRunOptions>);
    expect(run.notices[0]).toMatch(/^NativeRun options: unknown key "task"; did you mean "tasks"\? \(ignored: strict is false\)$/);
  });
});

describe('an agent stored with an unknown key', () => {
  it('A1: still loads in a run, its mounts mounted, and a notice names the key and the closest one', async () => {
    const env = await setup();
    await env.service.store.put(
      { kind: 'agent', reference: 'team/alice', data: { mcps: ['tools/py'], skill: ['skills/x'] } },
      { expectedRevision: null },
    );
    const run = await NativeRun.start({ agent: 'team/alice', service: env.service, policy: policies.autoAllow('*') });
    fx.adopt(env, run);
    expect(run.notices).toContain(
      'stored agent data: unknown key "skill"; did you mean "skills"? (ignored; remove it by writing it as null)',
    );
    const { results } = await run.executeBatch(batch(run, [{ callId: 'c1', name: py('echo'), arguments: { message: 'hi' } }]));
    expect(results[0]).toMatchObject({ status: 'ok' });
  });
});

describe('nested run options', () => {
  const base = { agent: 'team/alice', service: {} as NativeRunOptions['service'], policy: policies.autoAllow('*') };

  it.each([
    [{ timeouts: { callMS: 5 } }, 'timeouts.callMS', 'timeouts.callMs'],
    [{ limits: { maxBatchCall: 5 } }, 'limits.maxBatchCall', 'limits.maxBatchCalls'],
    [{ toolSearch: { mod: 'always' } }, 'toolSearch.mod', 'toolSearch.mode'],
    [{ hooks: { befor: [] } }, 'hooks.befor', 'hooks.before'],
    [{ variables: { envs: {} } }, 'variables.envs', 'variables.env'],
    [
      { delegates: [{ name: 'd', targets: [], handler: async () => '', descripton: 'x' }] },
      'delegates[0].descripton',
      'delegates[0].description',
    ],
  ])('B3: a misspelled nested option (%o) is invalid_input naming %s and the closest, %s', (bad, key, closest) => {
    expect(() => resolveRunOptions({ ...base, ...bad } as NativeRunOptions)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringContaining(`NativeRun options: unknown key "${key}"; did you mean "${closest}"?`),
        details: { key, closest },
      }),
    );
  });

  it('B3: a misspelled nested option fails the start before any server starts; with strict: false the run starts and says so', async () => {
    await expect(fx.start({ timeouts: { callMS: 5 } } as Partial<NativeRunOptions>)).rejects.toMatchObject({
      code: 'invalid_input',
      details: { key: 'timeouts.callMS', closest: 'timeouts.callMs' },
    });
    expect(fx.env.serverEvents()).toEqual([]);
    const run = await fx.start({ strict: false, limits: { maxBatchCall: 5 } } as Partial<NativeRunOptions>);
    expect(run.notices[0]).toBe(
      'NativeRun options: unknown key "limits.maxBatchCall"; did you mean "limits.maxBatchCalls"? (ignored: strict is false)',
    );
  });

  it('B3: options that inherit an option (Object.create(base)) are refused naming it, strict or not: never half read', () => {
    const inherited = Object.assign(Object.create({ timeouts: { callMs: 5 } }) as object, base, { strict: false });
    expect(() => resolveRunOptions(inherited as NativeRunOptions)).toThrow(
      expect.objectContaining({ code: 'invalid_input', details: { key: 'timeouts', reason: 'inherited_key' } }),
    );
    const limits = Object.create({ maxBatchCalls: 2 }) as NativeRunOptions['limits'];
    expect(() => resolveRunOptions({ ...base, limits })).toThrow(
      expect.objectContaining({ details: { key: 'limits.maxBatchCalls', reason: 'inherited_key' } }),
    );
    // Spread into own keys, the same options are read whole.
    expect(resolveRunOptions({ ...base, timeouts: { callMs: 5 } }).connect.timeouts.callMs).toBe(5);
  });

  it('B3: a delegate tool may be a class instance whose handler is a method (delegates are read key by key)', () => {
    class Delegate {
      name = 'hand_off';
      targets = ['team/bob'];
      async handler() {
        return 'done';
      }
    }
    expect(resolveRunOptions({ ...base, delegates: [new Delegate()] }).delegates).toHaveLength(1);
  });
});
