/**
 * A model provider's response, read only when it has what the adapter needs:
 * a response with no `choices`, no `content` or no `output` is an error that
 * names the field (`model_response_invalid`), never a silent empty step.
 */
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';

/** The error of a response that lacks `field` (its provider's wire name, e.g. `choices[0].message`). */
export function invalidResponse(provider: string, field: string, what: string): AgtError {
  return new AgtError(
    'model_response_invalid',
    `${provider}: the model's response has no ${field} (${what}); nothing of this step was run — check the client or the proxy in between`,
    { details: { provider, field } },
  );
}

/** `response` as an object, or the error naming the response itself. */
export function responseObject(provider: string, response: unknown): Record<string, unknown> {
  if (!isPlainObject(response)) throw invalidResponse(provider, 'response', 'an object was expected');
  return response;
}
