import { join } from 'node:path';

/**
 * Where an import's file waits for its job (STORAGE_DIR is shared by the api, which writes it,
 * and the worker, which reads and then deletes it): `<STORAGE_DIR>/imports/<id>.<csv|json>`.
 */
export function importFile(storageDir: string, id: number, format: 'csv' | 'json'): string {
  return join(storageDir, 'imports', `${id}.${format}`);
}
