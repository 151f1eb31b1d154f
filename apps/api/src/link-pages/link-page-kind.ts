import { Type } from '@nestjs/common';

/** A row of a link page table (overlays, splash_pages): its id and its owner. */
export interface LinkPageRow {
  id: number;
  userId: number;
}

/**
 * One kind of page a link shows on a visit before or around its target (a CTA overlay over the
 * framed target, a custom splash page before it). What differs between the kinds is described
 * here; LinkPages lists, reads, adds, changes and deletes every kind the same way from it.
 */
export interface LinkPageKind<Row extends LinkPageRow, Body, View, Details> {
  /**
   * The link type that shows the page. It also names the links column pointing at the page
   * (`<type>_id`), those links' LinkCache reference and the plan's counted feature.
   */
  type: 'overlay' | 'splash';
  entity: Type<Row>;
  /** How messages name one page: "Overlay not found". */
  label: string;
  /** Key of the list in `GET /api/<type>` (`cta` for overlays, as in API v3). */
  listKey: string;
  /** The column each body field is stored in. */
  columns: { [Field in keyof Body]-?: keyof Row & string };
  /** Body fields holding a URL: '' for none, else normalised and checked as a destination. */
  urlFields: ReadonlyArray<keyof Body & string>;
  view: (row: Row) => View;
  detailsView: (row: Row) => Details;
}
