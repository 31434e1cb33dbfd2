import { describe, expect, it } from 'vitest';
import { MemoryRunStore, NativeRun, policies } from '../../src/index.js';
import { batch, py, runFixture } from '../support/index.js';

const fx = runFixture();
const deferBoth = () => policies.chain(policies.approval(py('withdraw')), policies.approval(py('add')), policies.autoAllow('*'));

describe('probe', () => {
  it('views', async () => {
    const store = new MemoryRunStore();
    const run = await fx.start({ policy: deferBoth() });
    await run.executeBatch({ ...batch(run, [{ callId: 'w1', name: py('withdraw'), arguments: { amount: 7 } }]), batchId: 'b1' });
    await run.suspend({ store });
    const b = await NativeRun.resume(run.id, { store, service: fx.env.service, policy: policies.denyAll() });
    const view = b.pending('b1')[0]!;
    console.log('frozen', Object.isFrozen(view), Object.isFrozen(view.annotations), view.annotations);
    try { (view.annotations as any).idempotentHint = true; } catch (e) { console.log('threw', e); }
    console.log('after', b.pending('b1')[0]!.annotations);
    console.log(JSON.stringify((await b.suspend({ store })).pending));
    await b.close();
  });
});
