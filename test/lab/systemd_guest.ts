// A guest whose PID 1 is Debian's systemd (GuestOptions.init = 'systemd'): the host's own
// /lib/systemd/systemd, started by the initramfs with switch_root on the same overlay root every
// guest has. The harness puts the two units below in the share; the initramfs copies them to
// /etc/systemd/system and starts numakit-lab.target alone (not the host's default.target): the
// lab command runs as a oneshot service, with its output and exit code in the share as in a
// busybox guest, and the guest powers off when it ends, whatever its result.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LabSetupError } from './exec.js';

export const SYSTEMD_BINARY = '/lib/systemd/systemd';
/** What systemd starts instead of default.target (the initramfs passes it as --unit=). */
export const LAB_TARGET = 'numakit-lab.target';
/** In the share: the units to install, and the file listing the units to mask. */
export const SHARE_UNITS_DIR = 'systemd';
export const SHARE_MASK_FILE = 'systemd-mask';

/** The units the initramfs installs; the target is what systemd starts (--unit=). */
export const LAB_UNITS: Readonly<Record<string, string>> = {
  [LAB_TARGET]: `[Unit]
Description=numakit lab: the command, then power off
Requires=numakit-lab.service
After=numakit-lab.service
AllowIsolate=yes
`,
  // poweroff-immediate: the results are written and synced by then; a clean shutdown would only
  // stop units and unmount, seconds under TCG. A command that never ends is the harness's timeout.
  'numakit-lab.service': `[Unit]
Description=numakit lab command (/run/lab/run.sh)
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate

[Service]
Type=oneshot
TimeoutStartSec=infinity
ExecStart=/bin/sh -c 'bash /run/lab/run.sh </dev/null >/run/lab/stdout 2>/run/lab/stderr; echo $? >/run/lab/rc; sync'
`,
};

/**
 * Units of the host's sysinit.target that the guest must not run: systemd-tmpfiles-setup's
 * \`D /tmp\` (tmp.conf) empties /tmp at boot, which on the overlay is a whiteout per file of the
 * host's /tmp read over 9p (it ran for minutes under TCG) and would hide the host's files a lab
 * command is given there; its daily clean likewise.
 */
export const LAB_MASKED_UNITS = ['systemd-tmpfiles-setup.service', 'systemd-tmpfiles-clean.timer'] as const;

/** Writes the lab units and the mask list into the guest's share, where the initramfs looks. */
export function writeLabUnits(share: string): void {
  if (!existsSync(SYSTEMD_BINARY))
    throw new LabSetupError(`a systemd guest runs the host's ${SYSTEMD_BINARY} (apt-get install systemd)`);
  const dir = join(share, SHARE_UNITS_DIR);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(LAB_UNITS)) writeFileSync(join(dir, name), text);
  writeFileSync(join(share, SHARE_MASK_FILE), LAB_MASKED_UNITS.join('\n') + '\n');
}
