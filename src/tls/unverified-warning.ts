/**
 * The warning when `/tls/allow` hands out certificates for domains nobody verified: with
 * DOMAIN_VERIFICATION=off every domain a workspace adds is allowed at once, so with more than one
 * workspace any tenant can take a name (and a certificate for it) from its real owner.
 *
 * What Waymark can see of a TLS terminator: whether HTTPS is served in front of it (short links
 * are `https`, BASE_URL `https://`), checked at start, and whether `/tls/allow` is asked, checked
 * on the first question. One line, at warn level, once per process. Pure decision:
 *
 * @example
 * unverifiedTlsWarning({ verification: 'off', workspaces: 3, tls: 'https-served' }); // 'DOMAIN_VERIFICATION=off …'
 * unverifiedTlsWarning({ verification: 'dns', workspaces: 3, tls: 'asked' });        // null
 */
export type TlsSign = 'https-served' | 'asked' | 'none';

export function unverifiedTlsWarning(input: { verification: 'off' | 'dns'; workspaces: number; tls: TlsSign }): string | null {
  if (input.verification !== 'off' || input.workspaces <= 1 || input.tls === 'none') return null;
  const seen = input.tls === 'asked' ? 'a TLS terminator asks GET /tls/allow' : 'HTTPS is served (short links or BASE_URL are https)';
  return (
    `DOMAIN_VERIFICATION=off with ${input.workspaces} workspaces and ${seen}: every domain a workspace adds gets a certificate at once, ` +
    'so any tenant can claim a name it does not own; set DOMAIN_VERIFICATION=dns (docs/domains.md)'
  );
}
