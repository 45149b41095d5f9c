// numactl's `interleaveweights:` line (numactl --show under weighted interleave, numactl master):
// the name, a colon, then each weight followed by a space, in node order, as its printmask()
// prints the interleave mask on the line before. Pure.

/** "interleaveweights: 3 3 1 \n" for the weights of `nodes` (those with no weight left out). */
export function renderInterleaveWeights(
  nodes: readonly number[],
  weightOf: (node: number) => number | undefined,
): string {
  const weights = nodes.flatMap((n) => {
    const w = weightOf(n);
    return w === undefined ? [] : [w];
  });
  return `interleaveweights: ${weights.map((w) => `${w} `).join('')}\n`;
}
