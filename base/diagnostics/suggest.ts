/**
 * Did-you-mean: the closest candidate by edit distance (Damerau: a swap of two neighbours counts
 * once), accepted only when the distance is small for the name's length — about one edit per
 * three characters, as Elm's `Suggest.nearbyNames` scales it. Case differences cost nothing extra
 * when the names are otherwise equal. Pure; used by every phase for "unknown X" diagnostics.
 */

/** Optimal-string-alignment distance between two strings. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      let best = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** Largest distance accepted for a name of this length (1 for short names, then ~1 per 3 chars). */
export function threshold(length: number): number {
  return Math.max(1, Math.floor(length / 3));
}

export interface Ranked {
  readonly candidate: string;
  readonly distance: number;
}

/**
 * Candidates within the length-scaled threshold, closest first (ties: alphabetical).
 * A case-only difference ranks as distance 0.5, ahead of real edits.
 */
export function closest(name: string, candidates: readonly string[], limit = 3): Ranked[] {
  const lower = name.toLowerCase();
  const ranked: Ranked[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const distance = candidate.toLowerCase() === lower ? 0.5 : editDistance(lower, candidate.toLowerCase());
    if (distance <= threshold(Math.max(name.length, 1))) ranked.push({ candidate, distance });
  }
  ranked.sort(
    (x, y) => x.distance - y.distance || (x.candidate < y.candidate ? -1 : x.candidate > y.candidate ? 1 : 0),
  );
  return ranked.slice(0, limit);
}

/**
 * The single best suggestion, or undefined when nothing is close enough.
 * @example suggest('totl', ['total', 'title']) // 'total'
 */
export function suggest(name: string, candidates: readonly string[]): string | undefined {
  return closest(name, candidates, 1)[0]?.candidate;
}
