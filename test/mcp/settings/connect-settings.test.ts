/**
 * One check of the connect settings: connectMcp, McpProber,
 * NativeRun and McpPool refuse a bad value the moment they are given it, with
 * the same invalid_input naming the field, before anything starts.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConnectSettings,
  connectMcp,
  McpPool,
  McpProber,
  MemoryStore,
  NativeRun,
  policies,
  ResourceService,
} from '../../../src/index.js';
import { failure, pythonConfig } from '../../support/index.js';

const BAD: [string, ConnectSettings][] = [
  ['timeouts.callMs', { timeouts: { callMs: -1 } }],
  ['timeouts.handshakeMs', { timeouts: { handshakeMs: Number.NaN } }],
  ['maxMessageBytes', { maxMessageBytes: 10 }],
  ['pingIntervalMs', { pingIntervalMs: 5 }],
  ['legacyVerdictMs', { legacyVerdictMs: 0 }],
  ['roots[0].uri', { roots: [{ uri: 'http://not-a-file' }] }],
];

describe('one check of the connect settings', () => {
  it.each(BAD)(
    'P2/E2: %s is refused alike by connectMcp, McpProber, NativeRun and McpPool, before anything starts',
    async (field, settings) => {
      const service = new ResourceService({ store: new MemoryStore() });
      await service.write({ kind: 'mcp', reference: 'tools/py', create: true, data: { mcpServers: { py: pythonConfig() } } });
      await service.write({ kind: 'agent', reference: 'team/a', create: true, data: { mcps: ['tools/py'] } });
      const attempts = [
        () => connectMcp(pythonConfig(), settings),
        () => new McpProber({ service, ...settings }),
        () => NativeRun.start({ agent: 'team/a', service, policy: policies.autoAllow('*'), ...settings }),
        () => new McpPool({ service, ...settings }),
      ];
      for (const attempt of attempts) {
        const f = await failure((async () => attempt())());
        expect(f).toMatchObject({ code: 'invalid_input', details: { field } });
      }
    },
  );
});
