import assert from 'node:assert/strict';
import { test } from 'node:test';
import { banRequest, parseIrqbalanceSetup } from '../../../src/actuate/irqbalance_socket.js';

// Replies recorded from irqbalance 1.9.2 (Debian 12) after --banirq=1, then 'settings ban irqs 5 6', then NONE.
test("irqbalance's setup reply: the IRQs listed before BANNED are the ones it leaves alone", () => {
  assert.deepEqual(parseIrqbalanceSetup('SLEEP 10 IRQ 1 LOAD 0 DIFF 0 CLASS 0 BANNED 00000000'), [1]);
  assert.deepEqual(
    parseIrqbalanceSetup('SLEEP 10 IRQ 6 LOAD 0 DIFF 0 CLASS 0 IRQ 5 LOAD 0 DIFF 0 CLASS 0 BANNED 00000000'),
    [5, 6],
  );
  assert.deepEqual(parseIrqbalanceSetup('SLEEP 10 BANNED 00000000'), []);
  assert.throws(() => parseIrqbalanceSetup(''), /irqbalance answered '' to setup/);
});

test('the ban request replaces the whole set; none is NONE', () => {
  assert.equal(banRequest([40, 41]), 'settings ban irqs 40 41');
  assert.equal(banRequest([]), 'settings ban irqs NONE');
});
