// What the differentials share: their seeded randomness, and comparing
// piscope's JSON answers with pi's.

/** The first path at which two JSON values differ, or null. */
export function firstDiff(a, b, path = "$") {
  if (Object.is(a, b) || (a === 0 && b === 0)) return null;
  const show = (v) => JSON.stringify(v)?.slice(0, 160);
  if (typeof a !== typeof b || a === null || b === null || Array.isArray(a) !== Array.isArray(b) || typeof a !== "object") {
    return `${path}: piscope ${show(a)} vs pi ${show(b)}`;
  }
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${path}.length: piscope ${a.length} vs pi ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDiff(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of [...keys].sort()) {
    if (!(k in a)) return `${path}.${k}: missing in piscope (pi: ${show(b[k])})`;
    if (!(k in b)) return `${path}.${k}: extra in piscope (${show(a[k])})`;
    const d = firstDiff(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

/** Replaces 8-hex ids by their order of first appearance: pi gives a legacy
 * file's entries random ids on every read, so only the shape can match. */
export function canonicalIds(value) {
  const names = new Map();
  return JSON.parse(
    JSON.stringify(value).replace(/"([0-9a-f]{8})"/g, (_, id) => {
      if (!names.has(id)) names.set(id, `#${names.size}`);
      return `"${names.get(id)}"`;
    }),
  );
}

/** A seeded xorshift32: numbers in [0, 1), the same for the same seed. */
export function xorshift32(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}
