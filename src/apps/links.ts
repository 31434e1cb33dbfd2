/** The links an app may ask its host to open: http and https URLs only, no credentials in them, bounded. */

const MAX_LINK_LENGTH = 8192;

/** The URL to open (normalized), or undefined when `url` is not one an app may open. */
export function openableLink(url: unknown): string | undefined {
  if (typeof url !== 'string' || url.length > MAX_LINK_LENGTH) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.username !== '' || parsed.password !== '') return undefined; // https://trusted.example@evil.example
  return parsed.href;
}
