/**
 * Text values as the site's attributes can hold them: cut, left out or refused, each noted. Pure:
 * the attribute's bounds come from the mapping, the notes go back with the request's answer.
 */
import { ContractError } from '../contract/errors';
import type { Resource } from '../resources';
import { NAME_FIELD } from './catalogue';
import { fitNames, fitText, maxLengthOf, type TextBounds } from './fit';

/**
 * `value` as the attribute can hold it: cut at a word boundary when too long, left out when
 * shorter than its minLength or when not even its first character fits, each noted. An
 * identifier is never cut and a name is never left out: those answer 400 naming the field instead,
 * unless they are `optional` (a part of the seo object, which never costs the post): then an
 * identifier that does not fit is left out, noted.
 */
export function fittedText(
  label: string,
  target: TextBounds & { attribute: string },
  value: string,
  notes: string[],
  { identifier = false, name = false, optional = false } = {}
): string | undefined {
  const fitted = fitText(value, target, { cuttable: !identifier });
  // A name or an identifier is refused, never stored cut or empty; any other text is left out,
  // noted: a value that cannot fit never costs the post its publish.
  const refused = (identifier || name) && !optional;
  const notStored = (why: string, refusal: string): undefined => {
    if (refused) throw new ContractError(400, `Invalid request: ${label}: ${refusal}`);
    notes.push(`${label} was not stored: ${why}`);
    return undefined;
  };
  const sent = value.length;
  switch (fitted.outcome) {
    case 'fits':
      return fitted.value;
    case 'cut':
      notes.push(
        `${label} was cut to ${fitted.value.length} characters to fit ${target.attribute} (at most ${fitted.max}).`
      );
      return fitted.value;
    case 'tooLong':
      return notStored(
        `${target.attribute} holds at most ${fitted.max} characters (got ${sent}), and it is never shortened.`,
        `this site stores it in a field of at most ${fitted.max} characters (got ${sent}), and an identifier is never shortened.`
      );
    case 'nothingFits': {
      // Strapi counts maxLength in UTF-16 units, so the grapheme cannot be kept whole either.
      const where = `${target.attribute} (at most ${fitted.max} characters, ${sent} sent)`;
      return notStored(
        `not even its first character fits in ${where}.`,
        `not even its first character fits in ${where}, and it is never stored empty. Send a shorter value.`
      );
    }
    case 'tooShort':
      return notStored(
        `${target.attribute} needs at least ${fitted.min} characters (got ${sent}).`,
        `this site needs at least ${fitted.min} characters in ${target.attribute} (got ${sent}).`
      );
  }
}

/** Names into a JSON attribute as a list, into a text attribute as many whole names as fit. */
export function namesValue(
  label: string,
  names: string[],
  target: TextBounds & { attribute: string },
  notes: string[]
) {
  if (target.attributeType === 'json') return names;
  const { value, dropped } = fitNames(names, ', ', target);
  if (dropped.length > 0) {
    notes.push(
      `${label}: ${dropped.map((name) => `"${name}"`).join(', ')} not stored: ${target.attribute} holds at most ${maxLengthOf(target)} characters.`
    );
  }
  return value;
}

/** A name as the resource's name attribute holds it; it is matched in full before this. */
export function storedName(resource: Resource, name: string, notes: string[]): string {
  const target = resource.fields[NAME_FIELD[resource.kind]];
  return fittedText(`${resource.label} name "${name}"`, target, name, notes, { name: true })!;
}
