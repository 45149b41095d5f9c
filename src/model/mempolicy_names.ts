// numactl's names for the kernel's memory policy modes (include/uapi/linux/mempolicy.h), as
// `numactl --show` and `--dump` print them. One table: native/, run --show and the dumps read it.
export const MODE_NAMES: Readonly<Record<number, string>> = {
  0: 'default',
  1: 'preferred',
  2: 'bind',
  3: 'interleave',
  4: 'local',
  5: 'preferred-many',
  6: 'weighted-interleave',
};
