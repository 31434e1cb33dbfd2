/**
 * K3: the model is told the run's skills by name and description only: the
 * three adapters add renderSkills' text to their instructions (Anthropic's
 * `system`, OpenAI's system message or `instructions`, the AI SDK's `system`);
 * a skill's body is never in a request unless skill_read returned it.
 */
import { describe, expect, it } from 'vitest';
import { aiSdkModel } from 'agt-mcp/ai-sdk';
import { anthropicModel } from 'agt-mcp/anthropic';
import { openAIModel } from 'agt-mcp/openai';
import { renderSkills, type SkillInfo } from '../../src/adapters.js';

const skills: SkillInfo[] = [
  {
    name: 'pdf-processing',
    description: 'Work with PDF files.',
    source: { kind: 'mcp', mount: 'tools/pdf', uri: 'skill://pdf-processing/SKILL.md' },
  },
  { name: 'style-guide', description: 'How we write.', source: { kind: 'registry', reference: 'docs/style' } },
];
const told = renderSkills(skills);

describe('K3: provider adapters tell the model the skills', () => {
  it('K3: renderSkills gives one line per skill (name: description) and says to read them with skill_read', () => {
    expect(told.split('\n').slice(1)).toEqual(['- pdf-processing: Work with PDF files.', '- style-guide: How we write.']);
    expect(told).toContain('skill_read');
    expect(renderSkills([])).toBe('');
  });

  it('K3: Anthropic, OpenAI (chat and responses) and the AI SDK send the instructions, then the skills', async () => {
    const bodies: Record<string, unknown>[] = [];
    const capture = (answer: unknown) => async (body: Record<string, unknown>) => (bodies.push(body), answer);
    const anthropic = anthropicModel({
      client: { messages: { create: capture({ content: [{ type: 'text', text: 'ok' }] }) } } as never,
      model: 'm',
      maxTokens: 10,
      instructions: 'be terse',
      input: 'go',
    });
    const chat = openAIModel({
      client: { chat: { completions: { create: capture({ choices: [{ message: { role: 'assistant', content: 'ok' } }] }) } } } as never,
      api: 'chat',
      model: 'm',
      input: 'go',
    });
    const responses = openAIModel({
      client: { responses: { create: capture({ output: [], output_text: 'ok' }) } } as never,
      api: 'responses',
      model: 'm',
      instructions: 'be terse',
      input: 'go',
    });
    const aiSdk = aiSdkModel({ generateText: capture({ text: 'ok', toolCalls: [] }) as never, model: {}, input: 'go' });
    for (const model of [anthropic, chat, responses, aiSdk]) await model.respond({ tools: [], history: [], skills });
    expect(bodies[0]?.system).toBe(`be terse\n\n${told}`);
    expect((bodies[1]?.messages as { role: string; content: string }[])[0]).toEqual({ role: 'system', content: told });
    expect(bodies[2]?.instructions).toBe(`be terse\n\n${told}`);
    expect(bodies[3]?.system).toBe(told);
    // Without skills, nothing is added.
    await anthropic.respond({ tools: [], history: [] });
    expect(bodies[4]?.system).toBe('be terse');
  });
});
