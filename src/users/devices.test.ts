import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEVICE_MAX_AGE_MS, deviceToken, knownDevice } from './devices.js';

const ann = { id: 'usr_ann', password_hash: 'scrypt$32768$8$1$c2FsdA$aGFzaA' };
const bo = { id: 'usr_bo', password_hash: 'scrypt$32768$8$1$b3RoZXI$aGFzaDI' };
const NOW = Date.parse('2026-01-01T00:00:00Z');

test("a device token is its account's, until it is 180 days old or the password changes", () => {
  const token = deviceToken(ann, NOW);
  assert.match(token, /^[0-9a-z]+_[0-9a-f]{24}_[0-9a-f]{32}$/);
  const id = knownDevice(token, ann, NOW + 1000);
  assert.match(id ?? '', /^[0-9a-f]{24}$/);
  assert.notEqual(knownDevice(deviceToken(ann, NOW), ann, NOW), id, 'each login gets a token of its own');
  assert.equal(knownDevice(token, ann, NOW + DEVICE_MAX_AGE_MS - 1000), id);
  assert.equal(knownDevice(token, ann, NOW + DEVICE_MAX_AGE_MS + 1000), null, 'expired');
  assert.equal(knownDevice(token, bo, NOW), null, 'another account');
  assert.equal(knownDevice(token, { ...ann, password_hash: 'scrypt$new' }, NOW), null, 'a new password');
  assert.equal(knownDevice(token, undefined, NOW), null, 'no such account');
  const [issued, nonce, mac] = token.split('_');
  assert.equal(knownDevice(`${(parseInt(issued!, 36) + 1).toString(36)}_${nonce}_${mac}`, ann, NOW + 5000), null, 'a changed date');
  assert.equal(knownDevice(`${issued}_${nonce}_${mac!.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))}`, ann, NOW), null, 'a changed signature');
  for (const junk of ['', 'x', `${token}_`, token.toUpperCase()]) assert.equal(knownDevice(junk, ann, NOW), null, junk);
});
