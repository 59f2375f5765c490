/**
 * What a detail answer holds, named once for the command line (`services get`, through
 * src/commands/common.ts) and the console's detail screen (src/ui/resources.ts): the record
 * itself under its key, and the lists beside it, each a titled table with its columns.
 */

/** The record a detail answer is about: its key in the answer, and the console's title for it. */
export interface DetailRecord {
  title: string;
  key: string;
}

/** A list in a detail answer, drawn as a table under `title (count)` with these columns. */
export interface DetailTable {
  title: string;
  key: string;
  columns: string[];
}

export interface DetailShape {
  record: DetailRecord;
  tables: DetailTable[];
}
