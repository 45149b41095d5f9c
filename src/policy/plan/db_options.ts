// plan mysql / plan postgres: raw options -> DbOptions, with the distribution's units and paths
// (distro.ts) decided here, before anything is planned.
import { UsageError } from '../../model/errors.js';
import type { DbOptions } from './db.js';
import { mysqlLayout, postgresLayout, resolveDistro } from './distro.js';
import { str, type RawOptions } from './options.js';
import type { MachineShare } from './types.js';
import { intIn, safeCommand, safeName } from './validate.js';
import { parseSize } from '../../model/size.js';

export const DB_KEYS = {
  mysql: ['buffer-pool', 'node', 'systemd-version', 'exec', 'name', 'huge-pages', 'distro', 'server'],
  postgres: [
    'buffer-pool',
    'node',
    'systemd-version',
    'exec',
    'name',
    'huge-pages',
    'distro',
    'pg-version',
    'pg-cluster',
  ],
} as const;

function layoutOf(engine: 'mysql' | 'postgres', m: MachineShare, raw: RawOptions) {
  const distro = resolveDistro(m.os, typeof raw['distro'] === 'string' ? raw['distro'] : undefined, m.label);
  if (engine === 'postgres') {
    const version = typeof raw['pg-version'] === 'string' ? intIn(raw['pg-version'], '--pg-version', 9, 99) : undefined;
    const l = postgresLayout(distro, version, safeName(str(raw, 'pg-cluster', 'main'), '--pg-cluster'));
    return {
      unit: l.unit,
      confPath: l.confPath,
      includeFrom: l.includeFrom,
      exec: null,
      interleaveOption: false,
      mariadb: false,
      why: l.why,
    };
  }
  const server = str(raw, 'server', 'mysql');
  if (server !== 'mysql' && server !== 'mariadb') throw new UsageError(`--server ${server}: expected mysql or mariadb`);
  const l = mysqlLayout(distro, server);
  return {
    unit: l.unit,
    confPath: l.confPath,
    includeFrom: null,
    exec: l.exec,
    interleaveOption: l.interleaveOption,
    mariadb: server === 'mariadb',
    why: l.why,
  };
}

export function dbOptions(engine: 'mysql' | 'postgres', m: MachineShare, raw: RawOptions): DbOptions {
  const pool = raw['buffer-pool'];
  if (typeof pool !== 'string')
    throw new UsageError(
      `plan ${engine}: --buffer-pool SIZE is required (innodb_buffer_pool_size or shared_buffers, e.g. 48g)`,
    );
  const systemdVersion = intIn(str(raw, 'systemd-version', '252'), '--systemd-version', 200, 999);
  const layout = layoutOf(engine, m, raw);
  const execText = str(raw, 'exec', layout.exec ?? '');
  if (systemdVersion < 243 && execText === '')
    throw new UsageError(
      `plan ${engine}: systemd < 243 needs --exec 'FULL SERVER COMMAND' to put numactl in front of it`,
    );
  return {
    engine,
    poolBytes: parseSize(pool, '--buffer-pool', { positive: true }),
    node: typeof raw['node'] === 'string' ? intIn(raw['node'], '--node', 0, 4095) : undefined,
    systemdVersion,
    unit: typeof raw['name'] === 'string' ? safeName(raw['name'], '--name') : layout.unit,
    confPath: layout.confPath,
    includeFrom: layout.includeFrom,
    interleaveOption: layout.interleaveOption,
    mariadb: layout.mariadb,
    layoutWhy: typeof raw['name'] === 'string' ? `${layout.why}; --name ${raw['name']} names the unit` : layout.why,
    exec: execText === '' ? null : safeCommand(execText, '--exec'),
    hugePages: raw['huge-pages'] === true,
  };
}
