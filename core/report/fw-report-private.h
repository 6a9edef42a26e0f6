/* fw-report-private.h: what the report writers share. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends text as one Markdown table cell: pipes escaped and newlines flattened, so a model's names cannot
 * break the table. */
void fw_markdown_append_cell (GString *md, const char *text);

G_END_DECLS
