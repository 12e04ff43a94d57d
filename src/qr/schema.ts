/**
 * `GET /qr` query parameters as the published API has them (behaviour.md §2.7), plus `format`
 * (`png` or `svg`; an `Accept: image/svg+xml` request gets SVG too).
 */
import { z } from 'zod';

/** `#abc`, `#aabbcc` or `#aabbccdd`, with or without `#`, normalised to lower-case `#rrggbb[aa]`. */
const HexColor = z
  .string()
  .regex(/^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i, 'must be a hex color such as #000000')
  .transform((v) => {
    const hex = v.replace(/^#/, '').toLowerCase();
    return `#${hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex}`;
  });

const QueryBool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

export const QrQuery = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be a valid http(s) URL' })
    .max(2_000)
    .meta({ description: 'The URL to encode.' }),
  logo: z.string().max(2_000).optional().meta({ description: 'Accepted for compatibility; Waymark does not draw logos.' }),
  size: z.coerce.number().int().min(32).max(2_000).default(600).meta({ description: 'Width and height in pixels (default 600).' }),
  level: z.enum(['L', 'M', 'Q', 'H']).default('L').meta({ description: 'Error correction level (default L).' }),
  fgColor: HexColor.default('#000000').meta({ description: 'Foreground color (default #000000).' }),
  bgColor: HexColor.default('#ffffff').meta({ description: 'Background color (default #FFFFFF).' }),
  hideLogo: QueryBool.optional().meta({ description: 'Accepted for compatibility; no logo is drawn.' }),
  margin: z.coerce.number().int().min(0).max(50).optional().meta({ description: 'Quiet zone around the code, in modules (default 2).' }),
  includeMargin: QueryBool.optional().meta({ description: 'Deprecated: false means margin 0 when `margin` is not given.', deprecated: true }),
  format: z.enum(['png', 'svg']).optional().meta({ description: 'Image format: png (default) or svg.' }),
});
export type QrQuery = z.infer<typeof QrQuery>;
