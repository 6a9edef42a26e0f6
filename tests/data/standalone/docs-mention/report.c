/* report.c: the schema is in docs/report-schema.md, which this tree does not have. */
