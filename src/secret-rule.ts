/**
 * The one secret rule, for everything agt-mcp shows: launch displays, stderr
 * tails, what servers echo, errors and audit. A known secret value (an env
 * or header value, a resolved placeholder, a password) is masked from
 * MIN_SECRET_LENGTH characters, and of a `Scheme token` value the token alone
 * too; in free text from elsewhere (an SDK's or a server's error), the token
 * after a known auth scheme and the value of a secret-named parameter are
 * masked (`Bearer`, `Basic`, `DPoP`, `Digest`, as headers write them). A name is secret when it ends with one of the secret words
 * (`--api-key`, `client_secret`, `access_token`), or is `code` (OAuth).
 */

/** The shortest known value masked (shorter ones would mask ordinary words). */
export const MIN_SECRET_LENGTH = 6;

/** The auth schemes recognised in free text. */
export const AUTH_SCHEMES = ['Bearer', 'Basic', 'Token', 'DPoP', 'Digest', 'ApiKey'] as const;

const SCHEME = AUTH_SCHEMES.join('|');
// In free text only the schemes that are not ordinary words, as written in headers ("token endpoint" stays readable).
const TEXT_SCHEME = 'Bearer|Basic|DPoP|Digest';
// A name ends with a secret word (any prefix: access_token, x-api-key, clientsecret) or is OAuth's `code`.
const SECRET_WORDS = '(?:token|secret|password|passwd|credentials?|api[-_]?key|key)';
const SECRET_NAME = new RegExp(`^(?:[a-z0-9_.-]{0,64}${SECRET_WORDS}|code)$`, 'i');
// Bounded, linear patterns: a name of at most 64 characters before its word, one run of non-separators after.
const SCHEMED_TEXT = new RegExp(`\\b(${TEXT_SCHEME})\\s+[^\\s"',;]+`, 'g');
const NAMED_TEXT = new RegExp(`\\b([a-z0-9_.-]{0,64}${SECRET_WORDS}|code)=[^&\\s"']+`, 'gi');

/** True when `name` (a flag without its dashes, a parameter, a key) names a secret. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The token of a `Scheme token` value (a scheme name, whitespace, one token), which is a secret of its own. */
export function schemeToken(value: string): string | undefined {
  return /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,63}\s+(\S+)$/.exec(value)?.[1];
}

/** True when `literal` is only an auth scheme (and separators): what a placeholder-only header value leaves. */
export function isOnlyScheme(literal: string): boolean {
  return new RegExp(`^\\s*(?:(?:${SCHEME})\\s+)?[\\s:/.,;_-]*$`, 'i').test(literal);
}

/** `text` (bounded by its caller) with the token after a known scheme and every secret-named `name=value` masked. */
export function maskSecretText(text: string): string {
  return text.replace(SCHEMED_TEXT, '$1 ***').replace(NAMED_TEXT, '$1=***');
}
