import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDomainPlan, parseDomainMap } from './domain-plan.js';

test('--domain-map pairs: host names only, normalised, each FROM once', () => {
  assert.deepEqual([...parseDomainMap(['Dub.SH=go.acme.com', 'dub.link=go.acme.com'])], [['dub.sh', 'go.acme.com'], ['dub.link', 'go.acme.com']]);
  assert.deepEqual([...parseDomainMap(['bücher.de=go.acme.com'])], [['xn--bcher-kva.de', 'go.acme.com']]);
  for (const bad of ['dub.sh', 'dub.sh=', '=go.acme.com', 'a=b=c', 'https://dub.sh=go.acme.com', 'dub.sh=go acme']) {
    assert.throws(() => parseDomainMap([bad]), /--domain-map/, bad);
  }
  assert.throws(() => parseDomainMap(['dub.sh=a.example', 'dub.sh=b.example']), /twice/);
  assert.equal(parseDomainMap(['dub.sh=a.example', 'dub.sh=a.example']).size, 1);
});

test('own domains stay, shared ones go to the short domain, the map wins; moves are counted by pair', () => {
  const plan = createDomainPlan({ map: parseDomainMap(['dub.link=go.acme.com', 'old.acme.com=new.acme.com']), own: ['Acme.link', 'old.acme.com'], shortDomain: 'wm.example.com' });
  assert.equal(plan.target('acme.link'), 'acme.link');
  assert.equal(plan.target('ACME.LINK'), 'acme.link');
  assert.equal(plan.target('dub.sh'), 'wm.example.com');
  assert.equal(plan.target('dub.link'), 'go.acme.com');
  assert.equal(plan.target('old.acme.com'), 'new.acme.com');
  assert.equal(plan.copies('acme.link'), true);
  assert.equal(plan.copies('old.acme.com'), false, 'a mapped own domain is not copied');
  assert.equal(plan.copies('dub.sh'), false);
  assert.deepEqual(plan.mappedTargets().sort(), ['go.acme.com', 'new.acme.com']);
  for (const d of ['dub.sh', 'dub.sh', 'Dub.sh', 'dub.link', 'acme.link']) plan.noteMove(d, plan.target(d));
  assert.deepEqual(plan.moves(), [
    { from: 'dub.sh', to: 'wm.example.com', links: 3 },
    { from: 'dub.link', to: 'go.acme.com', links: 1 },
  ]);
});
