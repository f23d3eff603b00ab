import { graphemePrefix } from './graphemes';

/**
 * Fits a text the sender chose (a path, an id, an error message quoting the body) into a text
 * column of `max` characters, cut between whole characters (utils/graphemes). PostgreSQL refuses
 * U+0000 in text, so NUL is kept visible as U+FFFD.
 */
export function fitColumn(value: string, max: number): string {
  const text = value.replaceAll('\u0000', '\uFFFD');
  return text.length > max ? `${graphemePrefix(text, max - 1)}…` : text;
}
