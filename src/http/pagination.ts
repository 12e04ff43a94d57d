/**
 * `page` and `pageSize` of every paged list query (`GET /links`, `/domains`, `/folders`, `/tags`,
 * `/customers`), defined once: whole numbers from 1, coerced from the query string, the page
 * size capped with the one refusal `Max page size is <max>.`.
 *
 * The lists differ only in what the published document says of them, and that document is what
 * the official SDK is generated from, so each difference is an option rather than unified away:
 * whether a field defaults or stays absent, and how the lower bound is written.
 *
 * @example
 * const ListFoldersQuery = z.object({ search: z.string().optional(), ...pageQuery({ maxPageSize: 50, defaultPage: 1, defaultPageSize: 50 }) });
 * ListFoldersQuery.parse({ pageSize: '20' }); // { page: 1, pageSize: 20 }
 */
import { z } from 'zod';

export interface PageQueryOptions<P extends number | undefined, S extends number | undefined> {
  /** Largest `pageSize`; a larger one is a 422 `Max page size is <maxPageSize>.`. */
  maxPageSize: number;
  /** `page` when none is sent; without it `page` stays absent (a cursor may stand in for it). */
  defaultPage?: P;
  /** `pageSize` when none is sent; without it `pageSize` stays absent and the service picks one. */
  defaultPageSize?: S;
  /**
   * How "at least 1" is written, in the document and in the refusal: `'positive'` (`> 0`,
   * `exclusiveMinimum`) as the published domains, folders and tags lists; `'min1'` (`>= 1`,
   * `minimum: 1`) as links and customers. The default is `'positive'`.
   */
  lowerBound?: 'positive' | 'min1';
}

type PageNumber = z.ZodCoercedNumber<unknown>;
/** A field with a default is always present after parsing; one without may be absent. */
type PageField<D> = D extends number ? z.ZodDefault<PageNumber> : z.ZodOptional<PageNumber>;

/** The `page` and `pageSize` fields, to spread into a list's query object. */
export function pageQuery<P extends number | undefined = undefined, S extends number | undefined = undefined>(
  options: PageQueryOptions<P, S>,
): { page: PageField<P>; pageSize: PageField<S> } {
  const { maxPageSize, defaultPage, defaultPageSize, lowerBound = 'positive' } = options;
  const wholeFromOne = () => {
    const n = z.coerce.number().int();
    return lowerBound === 'positive' ? n.positive() : n.min(1);
  };
  const withDefault = (schema: PageNumber, value: number | undefined) => (value === undefined ? schema.optional() : schema.default(value));
  return {
    page: withDefault(wholeFromOne(), defaultPage) as PageField<P>,
    pageSize: withDefault(wholeFromOne().max(maxPageSize, `Max page size is ${maxPageSize}.`), defaultPageSize) as PageField<S>,
  };
}
