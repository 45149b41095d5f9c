// Kernel choice without a guest: which cached kernel a series picks, the mirror the trixie fetch
// uses, and module load order when a wanted module is built into the kernel.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moduleLoadOrder } from './initramfs.js';
import { abiInSeries, debianMirror, isKernelSeries, pickCachedAbi } from './kernel.js';

describe('lab kernel series', () => {
  const cache = [
    'debs',
    'kernel-6.1.0-57-amd64',
    'kernel-6.1.0-9-amd64',
    'kernel-6.12.117+deb13-amd64',
    'netkernel-6.12.200+deb13-amd64',
    'initramfs-6.1.0-57-amd64-dccf6d288abb.cpio',
  ];

  it('picks the newest kernel of the asked series, never the newest overall', () => {
    assert.equal(pickCachedAbi(cache, '6.1'), '6.1.0-57-amd64');
    assert.equal(pickCachedAbi(cache, '6.12'), '6.12.117+deb13-amd64');
    assert.equal(pickCachedAbi(['kernel-6.12.117+deb13-amd64'], '6.1'), undefined);
    assert.equal(pickCachedAbi(['kernel-6.1.0-57-amd64'], '6.12'), undefined);
  });

  it('tells the series apart by the ABI prefix ("6.1." is not "6.12.")', () => {
    assert.equal(abiInSeries('6.1.0-57-amd64', '6.1'), true);
    assert.equal(abiInSeries('6.12.117+deb13-amd64', '6.1'), false);
    assert.equal(abiInSeries('6.12.117+deb13-amd64', '6.12'), true);
    assert.equal(isKernelSeries('6.12'), true);
    assert.equal(isKernelSeries('6.6'), false);
  });

  it("takes Debian's mirror from the host's apt sources (deb822 or one-line), skipping security", () => {
    const deb822 = [
      'Types: deb',
      'URIs: http://deb.debian.org/debian-security',
      'Suites: bookworm-security',
      '',
      'Types: deb',
      'URIs: http://mirror.example/debian/',
      'Suites: bookworm',
    ].join('\n');
    assert.equal(debianMirror(deb822), 'http://mirror.example/debian');
    assert.equal(
      debianMirror('deb [arch=amd64] http://ftp.de.debian.org/debian bookworm main\n'),
      'http://ftp.de.debian.org/debian',
    );
    assert.equal(debianMirror(''), 'http://deb.debian.org/debian');
  });
});

describe('moduleLoadOrder', () => {
  const dep = [
    'kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_modern_dev.ko',
    'kernel/drivers/virtio/virtio_pci_modern_dev.ko:',
    'kernel/net/9p/9pnet.ko:',
    'kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko',
    'kernel/fs/netfs/netfs.ko:',
    'kernel/fs/9p/9p.ko: kernel/fs/netfs/netfs.ko kernel/net/9p/9pnet.ko',
  ].join('\n');

  it('puts dependencies first', () => {
    assert.deepEqual(moduleLoadOrder(dep, ['9p', 'virtio_pci']), [
      'kernel/fs/netfs/netfs.ko',
      'kernel/net/9p/9pnet.ko',
      'kernel/fs/9p/9p.ko',
      'kernel/drivers/virtio/virtio_pci_modern_dev.ko',
      'kernel/drivers/virtio/virtio_pci.ko',
    ]);
  });

  it('skips a wanted module that modules.builtin lists, and names one that is nowhere', () => {
    const noPci = dep
      .split('\n')
      .filter((l) => !l.includes('virtio_pci'))
      .join('\n');
    const builtin = 'kernel/drivers/virtio/virtio_pci.ko\nkernel/drivers/virtio/virtio_pci_modern_dev.ko\n';
    assert.deepEqual(moduleLoadOrder(noPci, ['virtio_pci', '9pnet_virtio'], builtin), [
      'kernel/net/9p/9pnet.ko',
      'kernel/net/9p/9pnet_virtio.ko',
    ]);
    assert.throws(() => moduleLoadOrder(noPci, ['virtio_pci']), /virtio_pci not found in modules.dep/);
  });
});
