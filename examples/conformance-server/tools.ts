/**
 * The tools the server scenarios of @modelcontextprotocol/conformance call,
 * written with the authoring kit: content of every kind, logging, progress,
 * sampling, elicitation (with defaults and all enum forms), an error result,
 * and a tool whose inputSchema uses JSON Schema 2020-12 `$defs`.
 */
import * as v from 'valibot';
import { type CallToolResult, defineTool, toolResult } from 'agt-mcp/authoring';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'; // 1×1 red pixel
const WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=='; // 8 samples of silence
const none = v.object({});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const content = (name: string, description: string, parts: CallToolResult['content']) =>
  defineTool({ name, description, input: none, handler: () => toolResult({ content: parts }) });

/** Every tool of the conformance server. */
export function conformanceTools() {
  const address = v.object({ street: v.optional(v.string()), city: v.optional(v.string()) });
  return [
    content('test_simple_text', 'Returns a simple text.', [{ type: 'text', text: 'This is a simple text response for testing.' }]),
    content('test_image_content', 'Returns an image.', [{ type: 'image', data: PNG, mimeType: 'image/png' }]),
    content('test_audio_content', 'Returns audio.', [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }]),
    content('test_embedded_resource', 'Returns an embedded resource.', [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ]),
    content('test_multiple_content_types', 'Returns text, an image and a resource.', [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' },
      },
    ]),
    defineTool({
      name: 'test_error_handling',
      description: 'Always fails.',
      input: none,
      handler: () =>
        toolResult({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
    }),
    defineTool({
      name: 'test_tool_with_logging',
      description: 'Logs three messages while it runs.',
      input: none,
      handler: async (_input, { log }) => {
        await log('info', 'Tool execution started');
        await pause(50);
        await log('info', 'Tool processing data');
        await pause(50);
        await log('info', 'Tool execution completed');
        return 'Tool with logging executed successfully';
      },
    }),
    defineTool({
      name: 'test_tool_with_progress',
      description: 'Reports progress 0, 50 and 100 of 100.',
      input: none,
      handler: async (_input, { progress }) => {
        await progress(0, { total: 100 });
        await pause(50);
        await progress(50, { total: 100 });
        await pause(50);
        await progress(100, { total: 100 });
        return 'Tool with progress executed successfully';
      },
    }),
    defineTool({
      name: 'test_sampling',
      description: "Asks the client's model.",
      input: v.object({ prompt: v.string() }),
      handler: async ({ prompt }, { sample }) => {
        const answer = await sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
        const text = (answer.content as { type: string; text?: string }).text ?? '';
        return `LLM response: ${text}`;
      },
    }),
    defineTool({
      name: 'test_elicitation',
      description: "Asks the client's user.",
      input: v.object({ message: v.string() }),
      handler: async ({ message }, { elicit }) => {
        const answer = await elicit({
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        });
        return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'test_elicitation_sep1034_defaults',
      description: 'Asks with a default for every primitive type.',
      input: none,
      handler: async (_input, { elicit }) => {
        const answer = await elicit({
          message: 'Please review and update the form fields with defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
            required: [],
          },
        });
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'test_elicitation_sep1330_enums',
      description: 'Asks with every enum form.',
      input: none,
      handler: async (_input, { elicit }) => {
        const answer = await elicit({
          message: 'Please select options from the enum fields',
          requestedSchema: {
            type: 'object',
            properties: {
              untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
              titledSingle: {
                type: 'string',
                description: 'Titled single-select',
                oneOf: [
                  { const: 'value1', title: 'First Option' },
                  { const: 'value2', title: 'Second Option' },
                  { const: 'value3', title: 'Third Option' },
                ],
              },
              legacyEnum: {
                type: 'string',
                description: 'Legacy titled enum',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: {
                type: 'array',
                description: 'Untitled multi-select',
                items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
              },
              titledMulti: {
                type: 'array',
                description: 'Titled multi-select',
                items: {
                  anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                  ],
                },
              },
            },
            required: [],
          },
        } as never);
        return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
      },
    }),
    defineTool({
      name: 'test_reconnection',
      description: 'Closes its SSE stream mid-call; the client reconnects and gets the result (SEP-1699).',
      input: none,
      handler: async (_input, { closeStream }) => {
        await pause(50);
        closeStream();
        await pause(100); // the result is stored while the client is away
        return 'Reconnection test completed successfully';
      },
    }),
    defineTool({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      input: v.strictObject({ name: v.optional(v.string()), address: v.optional(address) }),
      definitions: { address },
      handler: ({ name }) => `hello ${name ?? 'there'}`,
    }),
    ...questionTools(),
  ];
}

const nameForm = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };
const okForm = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } }, required: ['ok'] };
const greeting = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Say hello' } }], maxTokens: 50 };

/**
 * The tools of the 2026-07-28 input_required scenarios: each asks with ctx.elicit / ctx.sample / ctx.roots /
 * ctx.ask, written once — round trip on a 2026-07-28 request, pushed on a 2025 connection.
 */
function questionTools() {
  const none = v.object({});
  const tool = (name: string, handler: Parameters<typeof defineTool>[0]['handler']) =>
    defineTool({ name, description: `A tool that asks the client (${name}).`, input: none, handler });
  return [
    tool('test_input_required_result_elicitation', async (_input, ctx) => {
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'user_name' });
      return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
    }),
    tool('test_input_required_result_sampling', async (_input, ctx) => {
      const answer = await ctx.sample(greeting, { key: 'greeting' });
      return `The model said: ${JSON.stringify(answer.content)}`;
    }),
    tool('test_input_required_result_list_roots', async (_input, ctx) => {
      const roots = await ctx.roots({ key: 'roots' });
      return `The client offers ${roots.length} root(s)`;
    }),
    tool('test_input_required_result_request_state', async (_input, ctx) => {
      await ctx.elicit({ message: 'Please confirm', requestedSchema: okForm }, { key: 'confirm' });
      return 'state-ok: the sealed state came back intact';
    }),
    tool('test_input_required_result_tampered_state', async (_input, ctx) => {
      await ctx.elicit({ message: 'Please confirm', requestedSchema: okForm }, { key: 'confirm' });
      return 'confirmed';
    }),
    tool('test_input_required_result_multi_round', async (_input, ctx) => {
      const first = await ctx.elicit({ message: 'Step 1: your name?', requestedSchema: nameForm }, { key: 'step1' });
      // The scenario's second question (its answer { color } is checked against this schema).
      await ctx.elicit(
        {
          message: 'Step 2: What is your favorite color?',
          requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
        },
        { key: 'step2' },
      );
      return `Done, ${String(first.content?.name ?? '')}`;
    }),
    tool('test_input_required_result_multiple_inputs', async (_input, ctx) => {
      const answers = await ctx.ask({
        user_name: { elicit: { message: 'What is your name?', requestedSchema: nameForm } },
        greeting: { sample: greeting },
        roots: { roots: true },
      });
      return `Got ${Object.keys(answers).length} answers`;
    }),
    tool('test_input_required_result_capabilities', async (_input, ctx) => {
      const caps = ctx.clientCapabilities;
      if (caps.sampling !== undefined && caps.elicitation === undefined) await ctx.sample(greeting, { key: 'greeting' });
      else await ctx.elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'user_name' });
      return 'asked only what the client offers';
    }),
    tool('test_missing_capability', async (_input, ctx) => {
      await ctx.sample(greeting, { key: 'greeting' }); // needs sampling: a client that did not declare it gets -32021
      return 'answered';
    }),
    tool('test_logging_tool', async (_input, ctx) => {
      await ctx.log('info', 'a log message, sent only when the request asked for a log level');
      return 'logged';
    }),
    tool('test_streaming_elicitation', async (_input, ctx) => {
      const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: nameForm }, { key: 'user_name' });
      return `Hello, ${String(answer.content?.name ?? 'stranger')}!`;
    }),
  ];
}
