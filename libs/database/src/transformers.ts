import { ValueTransformer } from 'typeorm';

/** Postgres numeric comes back as a string; the API shows numbers. */
export const numericTransformer: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null || v === undefined ? null : Number(v)),
};
