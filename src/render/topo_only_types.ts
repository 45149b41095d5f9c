// The types `topo --only` takes (lstopo's names), apart from the renderer so the option table
// does not load it. Pure.
export const ONLY_TYPES = ['numa', 'package', 'die', 'group', 'l3', 'l2', 'l1', 'core', 'pu', 'pci', 'osdev'] as const;
export type OnlyType = (typeof ONLY_TYPES)[number];
