// Transparent huge pages: enabled and defrag. The table's other acceptable values are left as
// they are ("already set"), so apply changes exactly what doctor would flag.
import type { Change } from '../../model/change.js';
import type { Advice, ThpWant } from '../knowledge/types.js';
import { sysfs } from './change.js';

export const THP_DIR = 'sys/kernel/mm/transparent_hugepage';

export function thpChanges(file: 'enabled' | 'defrag', a: Advice<ThpWant>): Change[] {
  return [
    sysfs(
      `${THP_DIR}/${file}`,
      a.value.prefer,
      `THP ${file}: ${a.reason}`,
      a.value.accept.filter((x) => x !== a.value.prefer),
    ),
  ];
}
