/**
 * Fits text into a length limit by cutting at the last word boundary, so SEO values that are
 * too long for a site's component are shortened readably instead of failing the publish.
 */
export function fitToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const boundary = cut.search(/\s+\S*$/);
  const fitted = (boundary > max / 2 ? cut.slice(0, boundary) : text.slice(0, max)).trimEnd();
  return fitted.replace(/[\s,;:.\-–—]+$/, '');
}
