// The options bench mem and bench ab share for keeping a result: --save FILE (for bench compare)
// and --report DIR. One declaration, spread into each command's table.
export const BENCH_OUTPUT_OPTIONS = {
  save: {
    type: 'string',
    value: 'FILE',
    complete: 'file',
    help: 'also write the JSON result to FILE (for bench compare)',
  },
  report: {
    type: 'string',
    value: 'DIR',
    complete: 'dir',
    help: 'also write DIR/REPORT.md and DIR/report.html (charts as inline SVG; opens offline)',
  },
} as const;
