/**
 * Words a server wrote, made fit for one of our messages: `outsideText` on one
 * line (a server can neither drive a terminal nor start a line of its own in
 * our output) and bounded (MAX_SERVER_TEXT).
 */
import { MAX_SERVER_TEXT } from '../bounds.js';
import { outsideText } from '../outside-text.js';

/** Words a server wrote, fit for one of our messages: `outsideText` on one line, bounded (MAX_SERVER_TEXT). */
export function serverWords(text: string): string {
  const words = outsideText(text, { max: MAX_SERVER_TEXT });
  return words === '' ? '(no message)' : words;
}
