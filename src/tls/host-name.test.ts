import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certificateName, fixedCertificateNames } from './host-name.js';

test('certificateName: the stored spelling of a host name, whatever form it is asked in', () => {
  const cases: [string, string | null][] = [
    ['go.acme.com', 'go.acme.com'],
    ['Go.ACME.com', 'go.acme.com'],
    ['go.acme.com:443', 'go.acme.com'],
    ['go.acme.com.', 'go.acme.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['BÜCHER.example:8443', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['XN--BCHER-KVA.EXAMPLE', 'xn--bcher-kva.example'],
    // Not names a certificate is asked for.
    ['', null],
    ['203.0.113.7', null],
    ['203.0.113.7:443', null],
    ['[2001:db8::1]', null],
    ['[2001:db8::1]:443', null],
    ['2001:db8::1', null],
    ['exa mple.com', null],
    ['a'.repeat(301), null],
  ];
  for (const [input, expected] of cases) assert.equal(certificateName(input), expected, JSON.stringify(input));
});

test('fixedCertificateNames: BASE_URL host, the API_HOSTS named and the short domain, without ports, IPs or loopback names', () => {
  assert.deepEqual(
    fixedCertificateNames({
      baseUrl: 'https://API.waymark.test',
      apiHosts: ['api.waymark.test', 'localhost', '127.0.0.1', '[::1]', 'admin.waymark.test', '10.0.0.5'],
      shortDomain: 'go.waymark.test:8443',
    }),
    ['api.waymark.test', 'admin.waymark.test', 'go.waymark.test'],
  );
  // A local set-up's BASE_URL is what the operator chose: it is kept.
  assert.deepEqual(fixedCertificateNames({ baseUrl: 'http://localhost:3000', apiHosts: ['localhost', '127.0.0.1', '[::1]'], shortDomain: 'wm.localhost:3000' }), ['localhost', 'wm.localhost']);
});
