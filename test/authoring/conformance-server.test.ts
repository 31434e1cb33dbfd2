/**
 * Every server scenario of @modelcontextprotocol/conformance 0.1.13 that
 * applies to a tools server, run against the kit's conformance server
 * (examples/conformance-server) over Streamable HTTP as a real process — what
 * `npm run conformance:server` prints (docs/conformance.md). The list is read
 * from the package, so a scenario it adds is run too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_APPLICABLE, runScenario, serverScenarios, startConformanceServer } from '../../scripts/conformance-server.js';

const scenarios = serverScenarios();
const applicable = scenarios.filter((s) => NOT_APPLICABLE[s] === undefined);
let server: Awaited<ReturnType<typeof startConformanceServer>>;
beforeAll(async () => {
  server = await startConformanceServer();
}, 60_000);
afterAll(() => server?.stop());

describe('@modelcontextprotocol/conformance 0.1.13 server scenarios (the authoring kit over HTTP)', () => {
  it('the package ships 32 server scenarios; 20 apply to a tools server (the rest are resources, prompts, completions)', () => {
    expect(scenarios).toHaveLength(32);
    expect(applicable).toHaveLength(20);
  });

  describe.concurrent.each(applicable)('%s', (scenario) => {
    it(`C4: scenario ${scenario} has no failed check`, async () => {
      const result = await runScenario(server.url, scenario);
      expect(result.ok, result.output).toBe(true);
    }, 150_000); // a bound that proves "not hung" on a busy machine, not a timing
  });
});
