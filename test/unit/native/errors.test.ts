import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NativeError, errnoMessage, errnoName } from '../../../src/native/errors.ts';

test('errno numbers get their Linux names and strerror wording', () => {
  const cases: Array<[number, string, string]> = [
    [1, 'EPERM', 'Operation not permitted'],
    [3, 'ESRCH', 'No such process'],
    [7, 'E2BIG', 'Argument list too long'],
    [8, 'ENOEXEC', 'Exec format error'],
    [12, 'ENOMEM', 'Cannot allocate memory'],
    [13, 'EACCES', 'Permission denied'],
    [14, 'EFAULT', 'Bad address'],
    [19, 'ENODEV', 'No such device'],
    [22, 'EINVAL', 'Invalid argument'],
  ];
  for (const [errno, name, message] of cases) {
    assert.equal(errnoName(errno), name);
    assert.equal(errnoMessage(errno), message);
  }
  assert.equal(errnoName(99999), 'E99999');
  assert.equal(errnoMessage(99999), 'Unknown error 99999');
});

test('NativeError is one line naming the call, its target, errno and hint', () => {
  const err = new NativeError('set_mempolicy', 22, { target: 'bind, nodes 5', hint: 'node 5 is not online' });
  assert.equal(err.message, 'set_mempolicy (bind, nodes 5): Invalid argument (EINVAL); node 5 is not online');
  assert.equal(err.code, 'EINVAL');
  assert.equal(err.errno, 22);
  assert.equal(err.syscall, 'set_mempolicy');
  assert.ok(err instanceof Error);
  assert.equal(new NativeError('getcpu', 38).message, 'getcpu: Function not implemented (ENOSYS)');
});
