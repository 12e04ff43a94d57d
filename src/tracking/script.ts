/**
 * The first-party client script served at `GET /script.js`. A merchant page includes it; when the
 * visitor arrives from a short link, the redirect has appended `?<clickIdParam>=<click id>` to the
 * URL, and the script keeps that id in a first-party cookie of the same name (90 days,
 * SameSite=Lax). The merchant's server reads the cookie at sign-up and sends it as `clickId` to
 * `POST /track/lead`.
 *
 * Options, as attributes of the script tag:
 * - `data-cookie-domain=".example.com"` shares the cookie with sub-domains (e.g. app.example.com).
 *
 * Last click wins: a newer click id replaces the stored one, as the redirect issues a new id per click.
 */

/** Cookie lifetime: 90 days. */
export const CLICK_COOKIE_MAX_AGE_S = 90 * 24 * 60 * 60;

/**
 * The script's source for a click-id parameter name (config CLICK_ID_PARAM, `waymark_id` by default).
 * Built once at start; the name is checked by the config schema (`[a-z][a-z0-9_]*`).
 */
export function buildClientScript(param: string): string {
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(param)) throw new Error(`Invalid click id parameter name: ${param}`);
  return `/* Waymark click attribution: keeps the ${param} query parameter in a first-party cookie. */
(function () {
  var name = ${JSON.stringify(param)};
  try {
    var script = document.currentScript;
    var domain = script && script.getAttribute("data-cookie-domain");
    if (domain && !/^\\.?[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$/.test(domain)) domain = null;
    var id = new URLSearchParams(window.location.search).get(name);
    if (id && /^[A-Za-z0-9_-]{1,64}$/.test(id)) {
      document.cookie = name + "=" + id + "; Max-Age=${CLICK_COOKIE_MAX_AGE_S}; Path=/; SameSite=Lax" +
        (domain ? "; Domain=" + domain : "") + (window.location.protocol === "https:" ? "; Secure" : "");
    }
    var api = (window.waymark = window.waymark || {});
    api.clickId = function () {
      var m = document.cookie.match(new RegExp("(?:^|; )" + name + "=([^;]*)"));
      return m ? decodeURIComponent(m[1]) : null;
    };
  } catch (e) {
    /* Never break the merchant's page. */
  }
})();
`;
}
