/**
 * Comparing coprocessor firmware versions as they are written in two places: the device's own
 * answer (GetFwVersion on the current firmware: `FG-1.2.3.4.5`, the name before the numbers) and an
 * image's esp_app_desc_t version (the build's project version: `1.2.3`, `v1.2.3`, or what
 * `git describe` gave, such as `v1.2.3-4-gabc1234`). The numbers decide; trailing zeros do not count.
 */

interface ParsedVersion {
  numbers: number[];
  /** What follows the numbers (`-rc1`, `-4-gabc1234`): a build the numbers alone cannot place. */
  suffix: string;
}

function parse(text: string): ParsedVersion | null {
  const match = /(\d+(?:\.\d+)*)(.*)$/.exec(text.trim());
  if (!match) return null;
  const numbers = match[1].split('.').map(Number);
  while (numbers.length > 1 && numbers[numbers.length - 1] === 0) numbers.pop();
  return { numbers, suffix: match[2].trim() };
}

/**
 * Positive when `a` is newer than `b`, negative when older, 0 when the same release; null when the
 * two cannot be placed (no numbers, or the same numbers with a build suffix on either side).
 */
export function compareFirmwareVersions(a: string, b: string): number | null {
  const left = parse(a);
  const right = parse(b);
  if (!left || !right) return null;
  const length = Math.max(left.numbers.length, right.numbers.length);
  for (let i = 0; i < length; i++) {
    const difference = (left.numbers[i] ?? 0) - (right.numbers[i] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return left.suffix === right.suffix ? 0 : null;
}
