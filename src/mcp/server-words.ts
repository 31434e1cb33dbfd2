/**
 * Words a server wrote, made fit for one of our messages: every control
 * character and line break escaped (a server can neither drive a terminal
 * nor start a line of its own in our output) and the length bounded.
 */
import { MAX_SERVER_TEXT } from '../bounds.js';

/** Words a server wrote, fit for one of our messages: control characters escaped, bounded (MAX_SERVER_TEXT). */
export function serverWords(text: string): string {
  const escaped = JSON.stringify(text.length > MAX_SERVER_TEXT ? `${text.slice(0, MAX_SERVER_TEXT)}…` : text).slice(1, -1);
  return escaped === '' ? '(no message)' : escaped;
}
